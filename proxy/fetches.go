package proxy

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Under the filtered network an agent's own API must not become a way out:
// with it the provider's servers fetch a URL the request names (an image,
// a document or a file by URL, Anthropic's web_fetch, Gemini's
// urlContext, OpenAI's live web search), connect to one (a remote MCP
// server), or read a stored file by its id, and the agent reads or sends
// whatever it likes past the allow list. The agents need none of them:
// their fetches and MCP servers run on the client, inside the sandbox's
// network. What a request may ask of the provider is a known list (the
// tools the agents declare, content given inline); anything else is
// refused, with what it was and how to allow it.
//
// A body is checked as it streams to the API, never held whole: the
// supervisor keeps a few kilobytes per request whatever the sandbox
// sends. The object's closing brace goes on only once all of it has
// passed, so a refused request reaches the API cut short, which it
// cannot parse, let alone act on.

// maxAPIBody bounds an API request's body.
const maxAPIBody = 64 << 20

// maxDepth bounds how deep a body's JSON nests (each level costs the
// check a frame); the APIs' own parsers stop far sooner.
const maxDepth = 512

// maxNoted is how much of a key or string value the check decodes to
// compare: the names it knows are shorter.
const maxNoted = 64

// apiShape is which API's request a body is: each names its fetches in
// its own places.
type apiShape uint8

const (
	messagesAPI  apiShape = iota // Anthropic's Messages API
	responsesAPI                 // OpenAI's Responses API (Codex: a key, or the ChatGPT login)
	geminiAPI                    // Gemini's generateContent, direct or through Code Assist
)

// shapeOf is the API a credential of kind k calls.
func shapeOf(k Kind) apiShape {
	switch k {
	case OpenAIKey, ChatGPTLogin:
		return responsesAPI
	case GeminiKey, GoogleOAuth:
		return geminiAPI
	}
	return messagesAPI
}

// howToAllow ends every refusal of a fetch.
const howToAllow = ": a way around the filtered network; " + allowOnHost

// allowOnHost says how to allow what the filtered network refuses.
const allowOnHost = "to allow it, run the session on the host's network: claudebox --network=host"

// refusal is a request the check refuses: what it asks of the provider,
// and whether it stands in the conversation (a message or the system
// prompt), which every later turn sends again.
type refusal struct {
	what         string
	conversation bool
}

func (r *refusal) Error() string { return "it asks for " + r.what + howToAllow }

// errNotJSON is a body the check cannot read as the API would.
var errNotJSON = errors.New("its body is not one JSON object")

// checkBetas refuses a Messages API request whose betas turn on a fetch,
// or that names a beta not known to leave what the API reaches as the
// body check judges it. A beta changes what a request's fields do, and
// the check knows what they do without one. The server reads header
// names and beta names without regard to case; a name with underscores
// for dashes is read as the same header by some proxies on the way, so
// it is taken as one too.
func checkBetas(h http.Header) error {
	var unknown []string
	for _, v := range headerValues(h, "anthropic-beta") {
		for _, beta := range strings.Split(v, ",") {
			beta = strings.TrimSpace(beta)
			name := strings.ToLower(beta)
			switch {
			case name == "":
			case strings.HasPrefix(name, "mcp-client") || strings.HasPrefix(name, "web-fetch"):
				return &refusal{what: "the beta " + quote(name) + " (the API's servers would connect to an MCP server or fetch a page)"}
			case !slices.Contains(knownBetaFamilies, betaFamily(name)):
				unknown = append(unknown, "`"+strings.ReplaceAll(printableNote(beta), "`", "?")+"`")
			}
		}
	}
	if unknown != nil {
		return &unknownBetas{strings.Join(unknown, ", ")}
	}
	return nil
}

// knownBetaFamilies are the Messages API's betas that pass, by name
// without their date: those Claude Code 2.1.330 sends to it (read from
// its program, and measured) that change what the model does with what
// the request carries. Left out are those that reach what the API stores
// for the key or a server: stored files (files-api), MCP servers
// (mcp-servers, and mcp-client, refused as a fetch), Claude Code's remote
// environments (environments, ccr-byoc, tool-provenance, whose tools name
// a server's URL), a conversation stored with the API (message-threads,
// resumption). Claude Code answered that a beta is unknown sends the
// request again without it, and goes on without the feature.
var knownBetaFamilies = []string{
	"claude-code", "oauth", "interleaved-thinking", "context-1m", "context-management",
	"structured-outputs", "web-search", "web-search-results-only", "advanced-tool-use",
	"tool-search-tool", "effort", "task-budgets", "prompt-caching-scope", "prompt-caching-evict",
	"cache-keepalive", "extended-cache-ttl", "fast-mode", "redact-thinking", "thinking-resumption",
	"thinking-token-count", "afk-mode", "advisor-tool", "cache-diagnosis", "context-hint",
	"mid-conversation-system", "mid-conversation-system-clear-at", "per-turn-control", "timing",
	"mid-conversation-tool-changes", "inline-tools", "server-side-fallback", "program-use-case-ids",
	"fallback-credit", "claude-code-side-query", "dangerous-tool-use", "auto-mode-classifier",
	"thinking-display-updates", "thinking-binding-controls", "request-tags", "token-counting",
}

// betaFamily is a beta's name without its date (-2025-04-14, or
// -20250219), or "" where it has none.
func betaFamily(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && digits(name[i+1:]) == 8 {
		return name[:i]
	}
	if n := len(name) - len("-2006-01-02"); n > 0 && name[n] == '-' && digits(name[n+1:n+5]) == 4 && name[n+5] == '-' && digits(name[n+6:n+8]) == 2 && name[n+8] == '-' && digits(name[n+9:]) == 2 {
		return name[:n]
	}
	return ""
}

// digits is how long s is where it is all ASCII digits, else -1.
func digits(s string) int {
	if strings.Trim(s, "0123456789") != "" {
		return -1
	}
	return len(s)
}

// unknownBetas refuses betas the check does not know, in the words the
// API refuses a beta it does not know, which Claude Code reads.
type unknownBetas struct{ names string }

func (u *unknownBetas) Error() string {
	return "Unexpected value(s) " + u.names + " for the `anthropic-beta` header (the filtered network passes only the betas known to leave what the API reaches as it is); " + allowOnHost
}

// checkedBody is a request body checked as it is read: what Read returns
// is what passed, and the request as the API gets it.
type checkedBody struct {
	src  io.ReadCloser
	scan scanner
	in   []byte
	// out is what passed and is not yet returned, in buf.
	out, buf []byte
	// read counts the bytes read from src; spaces, the whitespace after
	// the object still to return.
	read, spaces int64
	// err ends the body: io.EOF, or why it was cut short (refused, when
	// it is a *refusal or errNotJSON).
	err error
}

func newCheckedBody(src io.ReadCloser, shape apiShape) *checkedBody {
	return &checkedBody{src: src, scan: scanner{shape: shape, keys: requestKeys(shape)}, in: make([]byte, 8<<10)}
}

// refused is why the body was refused, or nil.
func (b *checkedBody) refused() error {
	var r *refusal
	if errors.As(b.err, &r) || errors.Is(b.err, errNotJSON) || errors.Is(b.err, errTooBig) {
		return b.err
	}
	return nil
}

// errTooBig is a body over maxAPIBody.
var errTooBig = errors.New("its body is over 64 MiB")

func (b *checkedBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		n, err := b.src.Read(b.in)
		b.read += int64(n)
		if b.read > maxAPIBody {
			b.err = errTooBig
			break
		}
		b.buf, b.err = b.scan.feed(b.buf[:0], b.in[:n])
		if r := (*refusal)(nil); errors.As(b.err, &r) {
			r.conversation = b.scan.inConversation()
		}
		if b.err == nil && err == io.EOF {
			b.buf, b.err = b.scan.end(b.buf)
			b.spaces = b.scan.trailing
		} else if b.err == nil {
			b.err = err
		}
		b.out = b.buf
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	for ; n < len(p) && len(b.out) == 0 && b.spaces > 0; n++ {
		p[n] = ' '
		b.spaces--
	}
	if len(b.out) > 0 || b.spaces > 0 {
		return n, nil
	}
	return n, b.err
}

func (b *checkedBody) Close() error { return b.src.Close() }

// quote is a name from the body as a refusal shows it.
func quote(s string) string { return `"` + s + `"` }

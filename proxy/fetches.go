package proxy

import (
	"errors"
	"io"
	"net/http"
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
const howToAllow = ": a way around the filtered network; to allow it, run the session on the host's network: claudebox --network=host"

// refusal is a request the check refuses: what it asks of the provider.
type refusal struct{ what string }

func (r *refusal) Error() string { return "it asks for " + r.what + howToAllow }

// errNotJSON is a body the check cannot read as the API would.
var errNotJSON = errors.New("its body is not one JSON object")

// checkBetas refuses a Messages API request whose betas turn on a fetch.
// The server reads header names and beta names without regard to case;
// a name with underscores for dashes is read as the same header by some
// proxies on the way, so it is taken as one too.
func checkBetas(h http.Header) error {
	for _, v := range headerValues(h, "anthropic-beta") {
		for _, beta := range strings.Split(v, ",") {
			beta = strings.ToLower(strings.TrimSpace(beta))
			if strings.HasPrefix(beta, "mcp-client") || strings.HasPrefix(beta, "web-fetch") {
				return &refusal{"the beta " + quote(beta) + " (the API's servers would connect to an MCP server or fetch a page)"}
			}
		}
	}
	return nil
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

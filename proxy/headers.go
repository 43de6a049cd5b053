package proxy

import (
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// SendHeaders has the proxy add the user's ANTHROPIC_CUSTOM_HEADERS
// ("Name: Value" lines, as Claude Code reads them) to every API call it
// forwards for Claude: a gateway's key there stays on the host, never in
// the sandbox. A line without a name is skipped. Called before the
// sandbox starts.
func (p *Proxy) SendHeaders(lines string) {
	h := http.Header{}
	for _, line := range strings.Split(lines, "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\"(),/;<=>?@[\\]{}") {
			continue
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), strings.TrimSpace(value))
	}
	p.headers.Store(&h)
}

// passedHeaders are the request headers an API call keeps, besides the
// credential the proxy puts in (and the user's custom headers above):
// those the agents' clients send (measured against a local listener:
// Claude Code 2.1.330 with a key and a login, codex-cli 0.169.0 with a
// key and the ChatGPT login, gemini-cli 0.61.0 with a key and a Google
// login), by their names as a server may read them (headerName). Any
// other is dropped on the way, whatever the network: a header chooses
// what the body cannot, and with the user's credential, such as who pays
// and who logs the call (anthropic-workspace-id, OpenAI-Organization,
// OpenAI-Project, X-Goog-User-Project, Codex's account routing
// override). A header a client adds later is lost until it is known,
// which costs what it turns on, never the call.
var passedHeaders = map[apiShape][]string{
	messagesAPI: {"anthropic-beta", "anthropic-version", "anthropic-dangerous-direct-browser-access", "x-app", "x-claude-code-session-id"},
	// Codex's headers name its own conversation (session, thread,
	// window, turn), its features and the data residency the user chose;
	// a subagent's and a turn's routing ones are in its program.
	responsesAPI: {"originator", "session-id", "thread-id", "x-client-request-id", "x-codex-beta-features", "x-codex-turn-metadata", "x-codex-window-id", "x-codex-turn-state", "x-codex-parent-thread-id", "x-openai-subagent", "x-openai-internal-codex-responses-lite", "x-openai-internal-codex-residency", "cache-control"},
	geminiAPI:    {"x-goog-api-client", "x-gemini-api-privileged-user-id", "sec-fetch-mode"},
}

// commonHeaders are kept for every API: what HTTP itself says of the
// request, and of the client.
var commonHeaders = []string{"accept", "accept-encoding", "accept-language", "content-type", "content-length", "user-agent"}

// anthropicVersion is the one version of the Messages API the check
// knows; another would give the body's fields another meaning.
const anthropicVersion = "2023-06-01"

// passedHeader says the header name (as headerName reads it) with values
// is kept on a call to the API of shape. The Stainless SDK's description
// of itself (x-stainless-arch, -os, -retry-count, -timeout, ...) is kept
// whole: Claude Code's SDK names a few more by the call's helper.
func passedHeader(shape apiShape, name string, values []string) bool {
	switch {
	case slices.Contains(commonHeaders, name):
		return true
	case shape == messagesAPI && strings.HasPrefix(name, "x-stainless-"):
		return true
	case shape == messagesAPI && name == "anthropic-version":
		return !slices.ContainsFunc(values, func(v string) bool { return v != anthropicVersion })
	}
	return slices.Contains(passedHeaders[shape], name)
}

package proxy

import (
	"net/http"
	"net/textproto"
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

package session

import (
	"encoding/json"
	"slices"
	"testing"
)

// A remote MCP server carried in gets its host on the filtered network's
// allow list, on its URL's port; a local one, or a URL that is not
// http(s), adds nothing.
func TestMCPHosts(t *testing.T) {
	servers := map[string]json.RawMessage{
		"remote":  json.RawMessage(`{"type":"http","url":"https://mcp.example.com/mcp"}`),
		"sse":     json.RawMessage(`{"type":"sse","url":"http://10.0.0.5:8080/sse"}`),
		"local":   json.RawMessage(`{"type":"stdio","command":"server"}`),
		"file":    json.RawMessage(`{"type":"http","url":"file:///etc/passwd"}`),
		"garbled": json.RawMessage(`{"url":`),
	}
	var got []string
	for _, r := range mcpHosts(servers) {
		got = append(got, r.String())
	}
	slices.Sort(got)
	if want := []string{"10.0.0.5:8080", "mcp.example.com:443"}; !slices.Equal(got, want) {
		t.Errorf("mcpHosts = %q, want %q", got, want)
	}
}

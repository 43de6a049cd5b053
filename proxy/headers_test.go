package proxy

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The user's custom headers are read as Claude Code reads them: one
// "Name: Value" a line, blanks around both trimmed; a line with no name is
// skipped.
func TestSendHeaders(t *testing.T) {
	p := &Proxy{}
	p.SendHeaders("x-gateway-key: k1\n  X-Team :t \nno colon\n: empty\nbad name: v\nX-Gateway-Key: k2")
	want := http.Header{"X-Gateway-Key": {"k1", "k2"}, "X-Team": {"t"}}
	if got := *p.headers.Load(); !reflect.DeepEqual(got, want) {
		t.Errorf("headers %v, want %v", got, want)
	}
}

// A header dropped on the way leaves one line in the session's log,
// naming it without its value, once a session: a client's new header
// costs its feature with a word. The credential the proxy replaces
// leaves none.
func TestDroppedHeaderLogged(t *testing.T) {
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(http.Header) bool { return true }, rec, nil)
	var log bytes.Buffer
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, up.URL, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for range 2 {
		resp, _ := post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom, "Anthropic-Workspace-Id": "wrkspc_01Secret", "Content-Type": "application/json"})
		if resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
	p.Close()
	if len(rec.headers) != 2 || rec.headers[0].Get("Anthropic-Workspace-Id") != "" {
		t.Fatalf("the API got %d calls, the first with %v", len(rec.headers), rec.headers)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"decision":"drop-header"`) || !strings.Contains(lines[0], `"header":"Anthropic-Workspace-Id"`) || strings.Contains(lines[0], "Secret") {
		t.Errorf("the log, want one line naming Anthropic-Workspace-Id without its value:\n%s", log.String())
	}
}

// TestReplayReview43DroppedNamesPastTheBound: a sandbox that spent the
// bound of logged names on names of its own silenced the drop of a
// client's new header; the name past the bound is logged, saying that
// later ones are not.
func TestReplayReview43DroppedNamesPastTheBound(t *testing.T) {
	up := startUpstream(t, func(http.Header) bool { return true }, nil, nil)
	var log bytes.Buffer
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, up.URL, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	h := map[string]string{"X-Api-Key": p.Phantom, "Content-Type": "application/json"}
	for i := range maxDroppedNames {
		h[fmt.Sprintf("X-Filler-%d", i)] = "x"
	}
	post(t, p.URL+"/v1/messages", h)
	post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom, "Content-Type": "application/json", "Anthropic-New-Feature": "on"})
	post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom, "Content-Type": "application/json", "Anthropic-Later-Feature": "on"})
	p.Close()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	last := lines[len(lines)-1]
	if len(lines) != maxDroppedNames+1 || !strings.Contains(last, `"header":"Anthropic-New-Feature"`) || !strings.Contains(last, "no header name dropped after this one is") {
		t.Fatalf("want %d lines, the last naming Anthropic-New-Feature and saying later drops are not logged; got %d, the last:\n%s", maxDroppedNames+1, len(lines), last)
	}
}

package main

import (
	"strings"
	"testing"
)

// --net-log names a header the proxy dropped, and where it was going.
func TestNetLogDroppedHeader(t *testing.T) {
	got := readable([]byte(`{"decision":"drop-header","method":"POST","path":"/v1/messages","header":"Anthropic-Workspace-Id","why":"no client of this API is known to send it (its value is not logged)","time":"2026-12-02T07:14:05Z"}`))
	if want := " dropped the header Anthropic-Workspace-Id of POST /v1/messages: no client of this API is known to send it (its value is not logged)"; !strings.HasSuffix(got, want) {
		t.Errorf("got %q, want it to end %q", got, want)
	}
}

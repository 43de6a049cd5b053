package proxy

import (
	"net/http"
	"reflect"
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

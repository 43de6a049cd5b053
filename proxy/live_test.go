package proxy

import (
	"bytes"
	"strings"
	"testing"
)

// TestAllowLive: a host the running proxy refused passes once allowed
// live, without a restart; the 403 says how to allow it, with its port when
// that is not 443 or 80; an entry deny-hosts covers, or the API's own host,
// is not added; the tally counts the refusals by the entry that allows
// them.
func TestAllowLive(t *testing.T) {
	echo := echoServer(t)
	port := echo[strings.LastIndex(echo, ":")+1:]
	stub := &stubNet{}
	var log bytes.Buffer
	px := startEgress(t, mustPolicy(t, nil, []string{"denied.example", "*.evil.example"}), stub, &log)
	for range 2 {
		status, body, _ := connect(t, px, echo)
		if status != 403 || !strings.Contains(body, "claudebox --allow-host 127.0.0.1:"+port+" --live") {
			t.Fatalf("before: %d %q", status, body)
		}
	}
	if r, err := px.Allow("127.0.0.1:" + port); err != nil || r.String() != "127.0.0.1:"+port {
		t.Fatalf("Allow: %v, %v", r, err)
	}
	status, body, c := connect(t, px, echo)
	if status != 200 {
		t.Fatalf("after: %d %q", status, body)
	}
	c.Close()
	for _, refused := range []string{"denied.example", "DENIED.example:443", "a.evil.example", "*.evil.example", "*.a.evil.example", "api.anthropic.com"} {
		if _, err := px.Allow(refused); err == nil {
			t.Errorf("Allow(%q) passed", refused)
		}
	}
	// Partly denied: what deny-hosts does not cover passes.
	if _, err := px.Allow("*.denied.example"); err != nil {
		t.Errorf("Allow(*.denied.example): %v", err)
	}
	hosts, others := px.Blocked()
	if len(hosts) != 1 || hosts[0] != (Blocked{"127.0.0.1:" + port, 2}) || others != 0 {
		t.Errorf("Blocked() = %v, %d", hosts, others)
	}
	for _, want := range []string{`"decision":"refuse"`, `"decision":"allow","target":"` + echo + `"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, log.String())
		}
	}
}

// TestBlockedTallyBounded: the sandbox chooses how many hosts it asks
// for; the tally names at most maxTallied and counts the rest.
func TestBlockedTallyBounded(t *testing.T) {
	var tl tally
	for i := range maxTallied + 10 {
		tl.add(strings.Repeat("h", i+1))
	}
	tl.add("h")
	if len(tl.counts) != maxTallied || tl.others != 10 || tl.counts["h"] != 2 {
		t.Errorf("%d hosts, %d others, h counted %d", len(tl.counts), tl.others, tl.counts["h"])
	}
}

package network

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview44BlockedLinePadded: the session's end offered the most
// refused host to allow, and counted at most the 100 hosts the tally keeps.
// A hostile agent asked for its own host twenty times and for 120 made-up
// ones once: the end told the user "to allow one: claudebox --allow-host
// exfil.example.test", and said "and 95 more hosts" of 121 more, the host
// the user's build needed among those never named. Where the line cannot
// name every host asked for, it now offers none, counts no fewer than
// were asked, and says where each refusal is.
func TestReplayReview44BlockedLinePadded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.Write(filepath.Join(proj, "x"), "x\n")
	script := `get() { curl -s --max-time 5 -o /dev/null "https://$1/"; }
get needed.example.test
for i in $(seq 20); do get exfil.example.test; done
for i in $(seq 120); do get "pad$i.example.test"; done
exit 0`
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, []string{harness.NoResolve}, "claudebox", "--shell", "-c", script)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	end := stderr.String()
	if strings.Contains(end, "--allow-host exfil.example.test") {
		t.Errorf("the end offers the host the sandbox put first:\n%s", end)
	}
	if strings.Contains(end, "95 more hosts") || !strings.Contains(end, "blocked more than 100 hosts") {
		t.Errorf("the end counts fewer hosts than the sandbox asked for:\n%s", end)
	}
	if !regexp.MustCompile(`the session's first 4,000 decisions are in \S+\.log until the next session starts`).MatchString(end) {
		t.Errorf("the end does not say where each refusal is:\n%s", end)
	}
}

package hostcmds

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22MakeIncludesBounded: the exit audit reads what the
// project's makefiles include, each include line's $(wildcard …) pattern
// matched against the directories it names. The attack, from inside: a
// Makefile of 1 MiB whose every line includes d/*, beside 5,000 files in
// d: each of its 87,000 lines read d whole and looked at 1,000 of them
// (1,000 such lines held the audit 24 s; all of them, hours). Proof: the
// session ends within the harness's minute, its audit saying it did not
// examine the makefile's includes past its bound.
func TestReplayReview22MakeIncludesBounded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	start := time.Now()
	out, err := h.Bounded(proj, "--shell", "-c", `python3 -c '
import os
os.mkdir("d")
for i in range(5000):
    open("d/%d" % i, "w").close()
with open("Makefile", "w") as f:
    f.write("include d/*\n" * 87000)
'`)
	t.Logf("session and exit audit: %v", time.Since(start))
	if err != nil {
		t.Fatalf("session: %v\n%.2000s", err, out)
	}
	if !strings.Contains(out, "did not examine "+filepath.Join(proj, "Makefile")) {
		t.Errorf("the exit audit does not say it left the Makefile's includes unread:\n%.2000s", out)
	}
}

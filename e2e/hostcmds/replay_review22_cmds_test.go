package hostcmds

import (
	"path/filepath"
	"strings"
	"syscall"
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

// TestReplayReview22MakeVariablesBounded: the exit audit replaces the
// variables a makefile sets in its include lines. The attack, from
// inside: a Makefile whose 15 lines of A := $(A)$(A)$(A) triple A at
// each (16 of A += $(A) $(A) held the audit 47 s at 4.8 GiB, 18 more
// than the machine had), and 10,000 variables, each of which was replaced
// in every line in turn (40,000: 4.5 minutes); the audit went on with
// what it could not read left out in silence. Proof: the audit says it
// did not examine the Makefile's includes past its bounds on variables.
func TestReplayReview22MakeVariablesBounded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `python3 -c '
with open("Makefile", "w") as f:
    f.write("A = abcdefgh\n" + "A := $(A)$(A)$(A)\n" * 15 + "include $(A)\n")
    f.write("X = x\n" + "".join("V%d = $(X)\n" % i for i in range(10000)))
'`)
	start := time.Now()
	out, err := c.CombinedOutput()
	t.Logf("session and exit audit: %v, peak %d KiB", time.Since(start), c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	if err != nil {
		t.Fatalf("session: %v\n%.2000s", err, out)
	}
	if !strings.Contains(string(out), "did not examine "+filepath.Join(proj, "Makefile")) {
		t.Errorf("the exit audit does not say it left the Makefile's includes unread:\n%.2000s", out)
	}
}

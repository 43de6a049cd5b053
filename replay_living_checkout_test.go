package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayLivingCheckoutProtected: a branch changes the tracked .envrc,
// which the sandbox holds read-only. git checkout inside used to print
// "unable to unlink old '.envrc'", switch anyway and exit 0, leaving the
// index at odds with the old file, inside and on the host.
// Proof: inside, that checkout exits non-zero with a message saying to run
// it on the host; the host's .envrc is byte-identical; a checkout that
// touches no protected file, git status and a failing git pass through.
func TestReplayLivingCheckoutProtected(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	envrc := filepath.Join(proj, ".envrc")
	git := func(args ...string) {
		h.run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	}
	h.write(envrc, "export A=1\n")
	git("add", ".envrc")
	git("commit", "-q", "-m", "envrc")
	git("checkout", "-q", "-b", "other")
	h.write(envrc, "export A=2\n")
	git("commit", "-q", "-am", "other envrc")
	git("checkout", "-q", "-")
	git("checkout", "-q", "-b", "plain")
	h.write(filepath.Join(proj, "plain.txt"), "plain\n")
	git("add", "plain.txt")
	git("commit", "-q", "-m", "plain")
	git("checkout", "-q", "-")

	out := h.inside(proj, nil, `
		echo "which: $(command -v git)"
		git checkout -q plain; echo "plain: $?"
		git -c core.abbrev=7 -C . checkout -q -; echo "back: $?"
		git checkout other 2>&1; echo "other: $?"
		git status --porcelain; echo "status: $?"
		git log -q no-such-ref >/dev/null 2>&1; echo "log: $?"
	`)
	for _, want := range []string{
		"which: /run/claudebox/bin/git",
		"plain: 0",
		"back: 0",
		`claudebox: git could not change .envrc, which this sandbox protects; run "git checkout other" on the host`,
		"other: 1",
		" M .envrc",
		"status: 0",
		"log: 128",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("no line %q inside:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(envrc); err != nil || string(b) != "export A=1\n" {
		t.Errorf("host .envrc = %q, %v; want it unchanged", b, err)
	}
}

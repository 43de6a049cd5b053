package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayLivingCheckoutProtected: a branch changes the tracked .envrc,
// which the sandbox holds read-only. git checkout inside used to print
// "unable to unlink old '.envrc'", switch anyway and exit 0, leaving the
// index at odds with the old file, inside and on the host; then it failed,
// but only after git ran: HEAD on the other branch, the old .envrc a
// modification. The same for a merge, a hard reset, a stash pop, a
// checkout through git -C, and git am of a patch (named or on standard
// input).
// Proof: inside, each exits non-zero before git runs, with a message
// saying to run it on the host; HEAD, the index and the work tree are as
// they were (the host's git status is clean, HEAD on its branch); a
// checkout that touches no protected file, git status and a failing git
// pass through.
func TestReplayLivingCheckoutProtected(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	envrc := filepath.Join(proj, ".envrc")
	git := func(args ...string) {
		h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	}
	h.Write(envrc, "export A=1\n")
	git("add", ".envrc")
	git("commit", "-q", "-m", "envrc")
	git("checkout", "-q", "-b", "other")
	h.Write(envrc, "export A=2\n")
	git("commit", "-q", "-am", "other envrc")
	git("checkout", "-q", "-")
	git("checkout", "-q", "-b", "plain")
	h.Write(filepath.Join(proj, "plain.txt"), "plain\n")
	git("add", "plain.txt")
	git("commit", "-q", "-m", "plain")
	git("checkout", "-q", "-")

	branch := h.Run(proj, nil, "git", "status", "--porcelain", "--branch")
	out := h.Inside(proj, nil, `
		echo "which: $(command -v git)"
		git checkout -q plain; echo "plain: $?"
		git -c core.abbrev=7 -C . checkout -q -; echo "back: $?"
		git checkout other 2>&1; echo "other: $?"
		git switch --detach other 2>&1; echo "switch: $?"
		git merge --ff-only other 2>&1; echo "merge: $?"
		git reset -q --hard other 2>&1; echo "reset: $?"
		git cherry-pick other 2>&1; echo "cherry-pick: $?"
		git -C "$PWD" checkout other 2>&1; echo "-C: $?"
		git format-patch -q --stdout -1 other >/tmp/other.patch
		export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		git am /tmp/other.patch 2>&1; echo "am: $?"
		git am </tmp/other.patch 2>&1; echo "am stdin: $?"
		git status --porcelain; echo "status: $?"
		git log -q no-such-ref >/dev/null 2>&1; echo "log: $?"
	`)
	for _, want := range []string{
		"which: /run/claudebox/bin/git",
		"plain: 0",
		"back: 0",
		`claudebox: git checkout other would change .envrc, which this sandbox protects; run it on the host`,
		"other: 1",
		"switch: 1",
		"merge: 1",
		"reset: 1",
		"cherry-pick: 1",
		"-C: 1",
		"am: 1",
		"am stdin: 1",
		"status: 0",
		"log: 128",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("no line %q inside:\n%s", want, out)
		}
	}
	if strings.Contains(out, " M .envrc") {
		t.Errorf("a refused command left .envrc modified inside:\n%s", out)
	}
	if b, err := os.ReadFile(envrc); err != nil || string(b) != "export A=1\n" {
		t.Errorf("host .envrc = %q, %v; want it unchanged", b, err)
	}
	if got := h.Run(proj, nil, "git", "status", "--porcelain", "--branch"); got != branch {
		t.Errorf("after the refused commands, the host's git status says %q; want the branch as it was, clean", got)
	}
}

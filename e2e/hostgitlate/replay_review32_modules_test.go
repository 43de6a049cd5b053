package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32PlantedGitDirsLeaveNextLaunch: each git directory in
// .git/modules is a handful of mounts at the launch (its config, hooks,
// info, what is not git's own), and what the session made there stayed
// after its exit (a bare repository's config sets nothing git runs). A
// session makes 400 bare repositories there: every later launch refused,
// its plan past the arguments bwrap takes, until the user removed them by
// hand. Likewise 100 files made in .git/annex, not git-annex's own, had
// every later launch show the annex empty whole. Proof: after that
// session's exit, the next launch works and shows the annex, and the
// submodule the user had in .git/modules is in place.
func TestReplayReview32PlantedGitDirsLeaveNextLaunch(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "init", "-q", "--bare", ".git/modules/mine")
	h.Run(proj, nil, "mkdir", "-p", ".git/annex/objects")
	h.Plant(proj, "400 bare repositories in .git/modules and 100 files in .git/annex",
		`git init -q --bare .git/modules/m0 && for i in $(seq 1 399); do cp -r .git/modules/m0 .git/modules/m$i || exit 1; done && for i in $(seq 1 100); do : > .git/annex/pad$i || exit 1; done`)
	out, err := h.Bounded(proj, "--shell", "-c", "ls .git/annex; ls .git/modules | wc -l")
	if err != nil {
		t.Fatalf("the launch after a session that made 400 repositories in .git/modules failed: %v\n%s", err, out)
	}
	if strings.Contains(out, "pad1") || !strings.Contains(out, "objects") || !strings.Contains(out, "\n1\n") {
		t.Errorf("the next session should see the annex, and .git/modules without what the session made:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(proj, ".git", "modules", "mine", "config")); err != nil {
		t.Errorf("the user's own repository in .git/modules: %v", err)
	}
}

package hostgitlate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReview33AnnexInside: in a repository the host initialized for
// git-annex, git annex works inside: the sandbox's copy of .git/config
// keeps annex.uuid and annex.version (it kept no annex variable, and every
// git annex command said the repository was not initialized); an annex
// command variable of the host's stays out.
func TestReview33AnnexInside(t *testing.T) {
	harness.RequireTool(t, "git-annex", "apt-get install git-annex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	git := annexRepo(t, h, proj)
	git("config", "annex.secure-erase-command", "touch /tmp/erased-%file")
	git("annex", "add", "-q", "data.bin")
	git("commit", "-qm", "annex")
	h.Chown()
	out, err := h.Bounded(proj, "--shell", "-c", "git annex whereis data.bin && git config --get-regexp '^annex\\.'")
	if err != nil || !strings.Contains(out, "mine") || !strings.Contains(out, "here") {
		t.Fatalf("git annex whereis inside: %v\n%s", err, out)
	}
	if strings.Contains(out, "secure-erase") {
		t.Errorf("an annex command variable crossed:\n%s", out)
	}
}

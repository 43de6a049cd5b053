package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// TestReplayAuditClone: a repository cloned inside keeps its config, which
// holds only what git never executes (its remote, its branch, core's
// format settings), and its hooks/*.sample, which git never runs: neither
// is a finding, so the clone keeps its origin. The attack beside it: a
// second clone whose config the session gives a core.fsmonitor, and a
// third given an include (what the included file sets is not judged). The
// host-side proof: the audit moves those configs aside, and the host's git
// status in each runs nothing.
func TestReplayAuditClone(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "MARKER")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `set -e
		git clone -q . clean
		git clone -q . fsmonitor && git -C fsmonitor config core.fsmonitor "touch `+marker+`; false"
		git clone -q . include && printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' > inc && git -C include config include.path ../../inc
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), filepath.Join(proj, "clean")) {
		t.Errorf("the audit names the clean clone:\n%s", stderr.String())
	}
	if out := h.Run(filepath.Join(proj, "clean"), nil, "git", "remote", "get-url", "origin"); strings.TrimSpace(out) != proj+"/." {
		t.Errorf("the clean clone's origin: %q", out)
	}
	for _, clone := range []string{"fsmonitor", "include"} {
		if !strings.Contains(stderr.String(), filepath.Join(proj, clone, ".git", "config")) {
			t.Errorf("the audit does not name %s's config:\n%s", clone, stderr.String())
		}
		h.Run(filepath.Join(proj, clone), nil, "git", "status", "--short")
		if paths.Exists(marker) {
			t.Errorf("the host's git status in %s ran what the session planted", clone)
		}
	}
}

// TestSandboxCloneHiddenSource: git clone of a local repository outside
// the project fails inside (the sandbox does not show it) with git's bare
// "does not exist"; claudebox's git adds the way to bring it, and that way
// works.
func TestSandboxCloneHiddenSource(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	lib := filepath.Join(h.Home, "src", "lib")
	h.GitRepo(lib)
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "git clone -q "+lib+" lib")
	c.Stderr = &stderr
	if err := c.Run(); err == nil {
		t.Fatalf("the clone of a hidden repository worked:\n%s", stderr.String())
	}
	if want := "hint: if it is on the host, start claudebox with --ro-bind " + lib + "\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("the failed clone does not say how to bring its source (%q):\n%s", want, stderr.String())
	}
	h.Run(proj, nil, "claudebox", "--ro-bind", lib, "--shell", "-c", "git clone -q "+lib+" lib && test -f lib/README")
}

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

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
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "proj")
	h.gitRepo(proj)
	marker := filepath.Join(h.base, "MARKER")
	var stderr strings.Builder
	c := h.command(proj, nil, "claudebox", "--shell", "-c", `set -e
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
	if out := h.run(filepath.Join(proj, "clean"), nil, "git", "remote", "get-url", "origin"); strings.TrimSpace(out) != proj+"/." {
		t.Errorf("the clean clone's origin: %q", out)
	}
	for _, clone := range []string{"fsmonitor", "include"} {
		if !strings.Contains(stderr.String(), filepath.Join(proj, clone, ".git", "config")) {
			t.Errorf("the audit does not name %s's config:\n%s", clone, stderr.String())
		}
		h.run(filepath.Join(proj, clone), nil, "git", "status", "--short")
		if paths.Exists(marker) {
			t.Errorf("the host's git status in %s ran what the session planted", clone)
		}
	}
}

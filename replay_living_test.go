package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayLivingPlantedWorktreeEntry: the agent plants entries in
// .git/worktrees that git never made: a dangling symlink, a symlink to a
// directory of the project holding a config.worktree whose fsmonitor runs,
// and a directory whose gitdir names a checkout that does not exist. The
// attack's aim is the launches after: that each refuses (the user is
// locked out of claudebox with a hint about replacing links with copies),
// or that a host git obeys the planted config.
// Host-side proof: the next launch starts, the host's git status in the
// project runs nothing, and git itself lists no planted worktree.
func TestReplayLivingPlantedWorktreeEntry(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	marker := filepath.Join(h.base, "marker")
	h.inside(proj, nil, `set -e
		ln -s /nonexistent .git/worktrees/dangling 2>/dev/null || { mkdir -p .git/worktrees; ln -s /nonexistent .git/worktrees/dangling; }
		mkdir -p planted
		printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' > planted/config.worktree
		echo ../.. > planted/commondir
		echo /nonexistent/.git > planted/gitdir
		ln -s ../../planted .git/worktrees/linked
		mkdir .git/worktrees/bogus
		echo /nonexistent/checkout/.git > .git/worktrees/bogus/gitdir
		echo ../.. > .git/worktrees/bogus/commondir
		echo ref: refs/heads/master > .git/worktrees/bogus/HEAD
	`)
	var stderr bytes.Buffer
	c := h.command(proj, nil, "claudebox", "--shell", "-c", "echo started")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("the next launch: %v: %s\n%s", err, out, stderr.String())
	}
	h.run(proj, nil, "git", "status")
	h.run(proj, nil, "git", "worktree", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the host's git ran the planted fsmonitor")
	}
}

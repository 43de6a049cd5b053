package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/paths"
)

// TestReplayAuditLinkedWorktreeGitDir: a session in a linked worktree
// writes the repository's git directory, which lies outside its checkout.
// The main checkout's branch has a submodule the worktree's branch lacks,
// not yet initialized; the session makes its git directory
// (.git/modules/m) with a core.fsmonitor, in place or behind a symlink
// .git/modules to a directory the audit has no other reason to read.
// Host-side proof: the host's git submodule update --init adopts it, and
// git status then runs nothing.
func TestReplayAuditLinkedWorktreeGitDir(t *testing.T) {
	for name, plant := range map[string]string{
		"in place":       `m=$common/modules/m`,
		"behind symlink": `mkdir -p $common/worktrees/elsewhere && ln -s worktrees/elsewhere $common/modules && m=$common/worktrees/elsewhere/m`,
	} {
		t.Run(name, func(t *testing.T) {
			h := newE2EHost(t)
			proj, src := filepath.Join(h.home, "proj"), filepath.Join(h.home, "src")
			h.gitRepo(proj)
			h.gitRepo(src)
			head := strings.TrimSpace(h.run(src, nil, "git", "rev-parse", "HEAD"))
			h.write(filepath.Join(proj, ".gitmodules"), "[submodule \"m\"]\n\tpath = m\n\turl = "+src+"\n")
			h.run(proj, nil, "git", "update-index", "--add", "--cacheinfo", "160000,"+head+",m")
			h.run(proj, nil, "git", "add", ".gitmodules")
			h.run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sub")
			wt := filepath.Join(h.home, "wt")
			h.run(proj, nil, "git", "worktree", "add", "-q", "--detach", wt, "HEAD~1")
			marker := filepath.Join(h.base, "MARKER")
			out := h.inside(wt, nil, `
				common=`+filepath.Join(proj, ".git")+`
				`+plant+`
				g="git --git-dir=$m"
				git init -q --bare $m && $g config core.bare false && $g config core.fsmonitor "touch `+marker+`; false" && $g remote add origin `+src+` && echo PLANTED
			`)
			if !strings.Contains(out, "PLANTED") {
				t.Fatalf("the session could not plant:\n%s", out)
			}
			// It may fail: the audit moved aside what the remote was named in.
			h.command(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "update", "--init").Run()
			h.command(proj, nil, "git", "status", "--short").Run()
			if paths.Exists(marker) {
				t.Error("the host's git ran the fsmonitor planted in .git/modules/m")
			}
		})
	}
}

package hostgit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

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
		"behind symlink": `mkdir -p $common/lost-found/elsewhere && ln -s lost-found/elsewhere $common/modules && m=$common/lost-found/elsewhere/m`,
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj, src := filepath.Join(h.Home, "proj"), filepath.Join(h.Home, "src")
			h.GitRepo(proj)
			h.GitRepo(src)
			head := strings.TrimSpace(h.Run(src, nil, "git", "rev-parse", "HEAD"))
			h.Write(filepath.Join(proj, ".gitmodules"), "[submodule \"m\"]\n\tpath = m\n\turl = "+src+"\n")
			h.Run(proj, nil, "git", "update-index", "--add", "--cacheinfo", "160000,"+head+",m")
			h.Run(proj, nil, "git", "add", ".gitmodules")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sub")
			wt := filepath.Join(h.Home, "wt")
			h.Run(proj, nil, "git", "worktree", "add", "-q", "--detach", wt, "HEAD~1")
			marker := filepath.Join(h.Base, "MARKER")
			out := h.Inside(wt, nil, `
				common=`+filepath.Join(proj, ".git")+`
				`+plant+`
				g="git --git-dir=$m"
				git init -q --bare $m && $g config core.bare false && $g config core.fsmonitor "touch `+marker+`; false" && $g remote add origin `+src+` && echo PLANTED
			`)
			if !strings.Contains(out, "PLANTED") {
				t.Fatalf("the session could not plant:\n%s", out)
			}
			// It may fail: the audit moved aside what the remote was named in.
			h.Command(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "update", "--init").Run()
			h.Command(proj, nil, "git", "status", "--short").Run()
			if paths.Exists(marker) {
				t.Error("the host's git ran the fsmonitor planted in .git/modules/m")
			}
		})
	}
}

package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
)

// A repository's worktrees folder is a guard (read-only inside, the
// project's own repository's the session's own; made where missing), its
// linked worktrees' own directories (those with a
// gitdir file) writable in it, and nothing else there: git worktree prune,
// and git gc, which runs it, remove an entry through a link the sandbox
// made there, as the host's git runs while a session does.
func TestWorktreesGuarded(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	worktrees := filepath.Join(proj, ".git", "worktrees")
	find := func() *mount.Guard {
		guards, _, _, _, _ := Find(home, project, nil, nil)
		if i := slices.IndexFunc(guards, func(g mount.Guard) bool { return g.Path == worktrees }); i >= 0 {
			return &guards[i]
		}
		return nil
	}
	if w := find(); w == nil || w.Exists || !w.MakeDir {
		t.Fatalf("a missing worktrees folder is not guarded, to be made: %+v", w)
	}
	testfs.Write(t, filepath.Join(worktrees, "w", "gitdir"), "/elsewhere/.git\n")
	testfs.Write(t, filepath.Join(worktrees, "junk", "HEAD"), "ref: refs/heads/x\n")
	if err := os.Symlink(home, filepath.Join(worktrees, "zz")); err != nil {
		t.Fatal(err)
	}
	if w := find(); w == nil || !w.Exists || !w.Private || !slices.Equal(w.Writable, []string{filepath.Join(worktrees, "w")}) {
		t.Errorf("the worktrees folder's guard: %+v", w)
	}
	// A submodule's git directory's is read-only inside: only the
	// project's own repository's is the session's.
	sub := filepath.Join(proj, ".git", "modules", "lib")
	if out, err := exec.Command("git", "init", "-q", "--bare", sub).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	guards, _, _, _, _ := Find(home, project, nil, nil)
	if i := slices.IndexFunc(guards, func(g mount.Guard) bool { return g.Path == filepath.Join(sub, "worktrees") }); i < 0 || guards[i].Private || !guards[i].MakeDir {
		t.Errorf("the submodule's worktrees folder's guard: %d %+v", i, guards)
	}
}

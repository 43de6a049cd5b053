package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/project"
)

// TestWorktreeReflogPastPlanted: a session that planted 41 folders in
// .git/worktrees pushed a linked worktree's reflog, with the token of
// the host's git pull there, past the 16 the launch read (in directory
// order: with a thousand planted, it is past them but by chance). Every
// entry is read now; past MaxWorktrees the launch refuses, naming the
// folder.
func TestWorktreeReflogPastPlanted(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	log := filepath.Join(git, "worktrees", "w", "logs", "HEAD")
	os.MkdirAll(filepath.Dir(log), 0o755)
	os.WriteFile(log, []byte("a1 b2 A <a@example.com> 1 +0000\tpull https://bob:TOKEN@host/x main: Fast-forward\n"), 0o644)
	plant := func(n int) {
		for i := range n {
			os.MkdirAll(filepath.Join(git, "worktrees", fmt.Sprintf("a%d", i), "logs"), 0o755)
		}
	}
	plant(MaxWorktrees - 1)
	copies, _, crowded := reflogCopies(project.Project{GitDir: git, CommonDir: git}, nil)
	if len(copies) != 1 || copies[0].Path != log || crowded != "" {
		t.Errorf("with %d planted: copies %v, crowded %q; want %s's copy", MaxWorktrees-1, copies, crowded, log)
	}
	plant(MaxWorktrees)
	copies, leftOut, crowded := reflogCopies(project.Project{GitDir: git, CommonDir: git}, nil)
	if want := filepath.Join(git, "worktrees"); crowded != want || len(copies) != 0 || len(leftOut) != 0 {
		t.Errorf("with %d planted: crowded %q, %d copies, want %s and none", MaxWorktrees, crowded, len(copies), want)
	}
}

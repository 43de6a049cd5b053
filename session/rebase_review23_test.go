package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRebasedBranch: the branch a stopped rebase's state names is printed
// in a command only when it is a plain name and HEAD is detached; what
// the sandbox wrote there otherwise names none.
func TestRebasedBranch(t *testing.T) {
	for _, c := range []struct{ head, headName, want string }{
		{"0123abcd\n", "refs/heads/feature/x-1\n", "feature/x-1"},
		{"ref: refs/heads/main\n", "refs/heads/main\n", ""},
		{"0123abcd\n", "detached HEAD\n", ""},
		{"0123abcd\n", "refs/heads/x;touch /tmp/p\n", ""},
		{"0123abcd\n", "refs/heads/-f\n", ""},
		{"0123abcd\n", "refs/heads/a/../b\n", ""},
		{"0123abcd\n", "refs/heads/a\x1b[2J\n", ""},
	} {
		git := t.TempDir()
		state := filepath.Join(git, "rebase-merge")
		os.Mkdir(state, 0o755)
		os.WriteFile(filepath.Join(git, "HEAD"), []byte(c.head), 0o644)
		os.WriteFile(filepath.Join(state, "head-name"), []byte(c.headName), 0o644)
		if got := rebasedBranch(state); got != c.want {
			t.Errorf("HEAD %q, head-name %q: %q, want %q", c.head, c.headName, got, c.want)
		}
	}
	git := t.TempDir()
	os.WriteFile(filepath.Join(git, "HEAD"), []byte("0123abcd\n"), 0o644)
	os.Mkdir(filepath.Join(git, "rebase-merge"), 0o755)
	os.Symlink("/etc/hostname", filepath.Join(git, "rebase-merge", "head-name"))
	if got := rebasedBranch(filepath.Join(git, "rebase-merge")); got != "" {
		t.Errorf("a head-name that is a link names %q", got)
	}
}

// TestRebaseWayBackAutostash: a rebase run with --autostash (or
// rebase.autoStash) that stopped keeps the checkout's uncommitted changes
// in a commit its state's autostash file names, which git rebase --abort
// applies again and git switch --discard-changes does not: the way back
// said is then --abort, with the state put back.
func TestRebaseWayBackAutostash(t *testing.T) {
	for _, autostash := range []bool{false, true} {
		git := t.TempDir()
		state := filepath.Join(git, "rebase-merge")
		os.Mkdir(state, 0o755)
		os.WriteFile(filepath.Join(git, "HEAD"), []byte("0123abcd\n"), 0o644)
		os.WriteFile(filepath.Join(state, "head-name"), []byte("refs/heads/main\n"), 0o644)
		if autostash {
			os.WriteFile(filepath.Join(state, "autostash"), []byte("0123abcd\n"), 0o644)
		}
		lines := rebaseWayBack(state)
		if len(lines) != 2 {
			t.Fatalf("autostash %v: %q", autostash, lines)
		}
		if abort := strings.Contains(lines[1], "then git rebase --abort"); abort != autostash {
			t.Errorf("autostash %v: %q", autostash, lines[1])
		}
		if discard := strings.Contains(lines[1], "--discard-changes main ends it as git rebase --abort would"); discard == autostash {
			t.Errorf("autostash %v: %q", autostash, lines[1])
		}
	}
}

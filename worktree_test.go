package main

import (
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// git worktree list --porcelain read: each entry's checkout and branch,
// and whether --gc must leave it (locked, bare).
func TestParseWorktrees(t *testing.T) {
	list := "worktree /c/app\nHEAD 1\nbranch refs/heads/main\n\nworktree /c/app-feat\nHEAD 2\nbranch refs/heads/feat\n\nworktree /c/held\nHEAD 3\nbranch refs/heads/held\nlocked on a stick\n\nworktree /c/d\nHEAD 4\ndetached\n"
	want := []worktree{{Path: "/c/app", Branch: "main"}, {Path: "/c/app-feat", Branch: "feat"}, {Path: "/c/held", Branch: "held", Held: true}, {Path: "/c/d"}}
	if got := parseWorktrees(list); !slices.Equal(got, want) {
		t.Errorf("parseWorktrees = %+v, want %+v", got, want)
	}
	if got := parseWorktrees("worktree /r.git\nbare\n"); !slices.Equal(got, []worktree{{Path: "/r.git", Held: true}}) {
		t.Errorf("bare: %+v", got)
	}
}

// A .git a session of an enclosing project swapped for a FIFO as git
// made the worktree is not waited on: -w holds the lock every launch of
// the project waits on.
func TestWorktreeFilesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".git"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan map[string][]byte, 1)
	go func() { done <- worktreeFiles(dir, "task") }()
	select {
	case got := <-done:
		if got != nil {
			t.Errorf("worktreeFiles of a FIFO .git = %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("worktreeFiles waited on a FIFO .git")
	}
}

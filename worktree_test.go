package main

import (
	"slices"
	"testing"
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

package mount

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// A repository's worktrees folder is read-only inside (the host's git gc
// removes an entry through a link the sandbox made there), but for the
// linked worktrees' own directories, bound writable after it and not
// before (a bind before is hidden by it); a missing one is made, kept,
// and bound read-only, never a stand-in, which the host's git worktree
// add could not write in while a session runs.
func TestWorktreesReadOnly(t *testing.T) {
	build := func(g Guard) Plan {
		return Build(Inputs{
			Home: "/h", StateDir: "/h/.claudebox",
			Project: instance.Project{Root: "/h/p", Checkout: "/h/p"},
			Cwd:     "/h/p",
			Host:    Host{Guards: []Guard{g}, Pins: []string{"/h/p/.git/worktrees/w"}},
			Command: []string{"/usr/bin/claude"}, Claude: true,
		})
	}
	p := build(Guard{Path: "/h/p/.git/worktrees", Exists: true, MakeDir: true, Writable: []string{"/h/p/.git/worktrees/w"}})
	args := strings.Join(p.Args(), "\n")
	want := "--ro-bind\n/h/p/.git/worktrees\n/h/p/.git/worktrees\n--bind\n/h/p/.git/worktrees/w\n/h/p/.git/worktrees/w\n"
	if !strings.Contains(args, want) || strings.Count(args, "--bind\n/h/p/.git/worktrees/w\n") != 1 {
		t.Errorf("args lack %q once:\n%s", want, args)
	}
	p = build(Guard{Path: "/h/p/.git/worktrees", MakeDir: true})
	if args := strings.Join(p.Args(), "\n"); !strings.Contains(args, "--ro-bind\n/h/p/.git/worktrees\n/h/p/.git/worktrees\n") {
		t.Errorf("a missing worktrees folder is not bound read-only:\n%s", args)
	}
	if got := p.MadeDirs(); !reflect.DeepEqual(got, []string{"/h/p/.git/worktrees"}) || len(p.Placeholders()) != 0 {
		t.Errorf("MadeDirs = %q, Placeholders = %v", got, p.Placeholders())
	}
}

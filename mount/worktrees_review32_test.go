package mount

import (
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// A submodule's worktrees folder is read-only inside (the host's git gc
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

// The project's own repository's worktrees folder (Guard.Private) is a
// writable tmpfs of the session's inside, the linked worktrees' own bound
// in it after it; a missing one is still made on the host, for the mount
// to stand on. Claude's session gets the folder its worktrees are checked
// out in, the hook that makes them there and the managed settings naming
// it; a shell's the folder alone.
func TestWorktreesPrivate(t *testing.T) {
	build := func(g Guard, claude bool) Plan {
		return Build(Inputs{
			Home: "/h", StateDir: "/h/.claudebox",
			Project: instance.Project{Root: "/h/p", Checkout: "/h/p", GitDir: "/h/p/.git", CommonDir: "/h/p/.git"},
			Cwd:     "/h/p",
			Host:    Host{Guards: []Guard{g}, Pins: []string{"/h/p/.git/worktrees/w"}},
			Command: []string{"/usr/bin/claude"}, Claude: claude,
		})
	}
	p := build(Guard{Path: "/h/p/.git/worktrees", Exists: true, MakeDir: true, Private: true, Writable: []string{"/h/p/.git/worktrees/w"}}, true)
	args := strings.Join(p.Args(), "\n")
	want := "\n--tmpfs\n/h/p/.git/worktrees\n--bind\n/h/p/.git/worktrees/w\n/h/p/.git/worktrees/w\n"
	if !strings.Contains(args, want) || strings.Contains(args, "--ro-bind\n/h/p/.git/worktrees\n") {
		t.Errorf("args lack %q:\n%s", want, args)
	}
	for _, want := range []string{"\n--tmpfs\n" + WorktreesDir + "\n", "\n--perms\n0555\n--ro-bind-data\n", "\n" + worktreeHook + "\n", "\n" + worktreeSettings + "\n"} {
		if !strings.Contains(args, want) {
			t.Errorf("args lack %q:\n%s", want, args)
		}
	}
	p = build(Guard{Path: "/h/p/.git/worktrees", MakeDir: true, Private: true}, false)
	args = strings.Join(p.Args(), "\n")
	if !strings.Contains(args, "\n--tmpfs\n/h/p/.git/worktrees\n") || !strings.Contains(args, "\n--tmpfs\n"+WorktreesDir+"\n") || strings.Contains(args, "\n"+worktreeHook+"\n") {
		t.Errorf("a shell's plan:\n%s", args)
	}
	if got := p.MadeDirs(); !reflect.DeepEqual(got, []string{"/h/p/.git/worktrees"}) || len(p.Placeholders()) != 0 {
		t.Errorf("MadeDirs = %q, Placeholders = %v", got, p.Placeholders())
	}
}

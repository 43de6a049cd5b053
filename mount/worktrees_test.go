package mount

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorktreeHook runs claudebox's WorktreeCreate and WorktreeRemove hook
// with a stand-in git that logs its calls, on what Claude Code sends: a
// name of letters, digits, dots, dashes and underscores becomes
// git worktree add of branch worktree-<name> in WorktreesDir (the branch
// taken up again where it exists), printed for Claude Code; any other
// name (a path, a control character, a quote, .., a name git refuses, one
// over 64 characters) runs no git and fails; a removal removes only what
// lies in WorktreesDir, and its branch with git branch -d (where it holds
// no commit HEAD lacks).
func TestWorktreeHook(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	hook := filepath.Join(dir, "hook")
	var content string
	p := Plan{}
	p.addWorktrees("/h/it's", true)
	for _, m := range p.Mounts {
		if m.Dest == worktreeHook {
			content = m.Content
		}
		if m.Dest == worktreeSettings {
			var s struct {
				Hooks map[string][]struct {
					Hooks []struct{ Type, Command string }
				}
			}
			if err := json.Unmarshal([]byte(m.Content), &s); err != nil || s.Hooks["WorktreeCreate"][0].Hooks[0].Command != worktreeHook+" create" || s.Hooks["WorktreeRemove"][0].Hooks[0].Command != worktreeHook+" remove" || s.Hooks["SessionEnd"][0].Hooks[0].Command != worktreeHook+" end" {
				t.Errorf("the managed settings: %v %s", err, m.Content)
			}
		}
	}
	if err := os.WriteFile(hook, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	// The stand-in git knows one branch, worktree-old, checked out in
	// every worktree.
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\necho \"$*\" >>"+log+"\ncase $* in *rev-parse*worktree-old) exit 0 ;; *rev-parse*) exit 1 ;; *symbolic-ref*) echo worktree-old ;; esac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(arg, input string) (string, string, error) {
		os.Remove(log)
		cmd := exec.Command(hook, arg)
		cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.Output()
		calls, _ := os.ReadFile(log)
		return string(out), string(calls), err
	}
	request := func(name string) string {
		b, _ := json.Marshal(map[string]string{"session_id": "s", "cwd": `/h/"name":"evil"`, "hook_event_name": "WorktreeCreate", "name": name})
		return string(b)
	}
	out, calls, err := run("create", request("feat"))
	if err != nil || out != WorktreesDir+"/feat\n" || calls != "-C /h/it's rev-parse -q --verify refs/heads/worktree-feat\n-C /h/it's worktree add -q -b worktree-feat "+WorktreesDir+"/feat HEAD\n" {
		t.Errorf("create feat: %v %q\n%s", err, out, calls)
	}
	out, calls, err = run("create", request("old"))
	if err != nil || out != WorktreesDir+"/old\n" || !strings.HasSuffix(calls, "worktree add -q "+WorktreesDir+"/old worktree-old\n") {
		t.Errorf("create old: %v %q\n%s", err, out, calls)
	}
	for _, name := range []string{"", "a/b", "../x", "..", "a..b", "x.lock", "x.", ".x", "-x", "a\x1b[31mb", "a\nb", `a"b`, "a b", "a$(touch x)", strings.Repeat("a", 65)} {
		if out, calls, err := run("create", request(name)); err == nil || out != "" || calls != "" {
			t.Errorf("create %q: %v %q, git ran: %q", name, err, out, calls)
		}
	}
	_, calls, err = run("remove", `{"hook_event_name":"WorktreeRemove","worktree_path":"`+WorktreesDir+`/feat"}`)
	if err != nil || calls != "-C "+WorktreesDir+"/feat symbolic-ref -q --short HEAD\n-C /h/it's worktree remove --force "+WorktreesDir+"/feat\n-C /h/it's branch -d -q worktree-old\n" {
		t.Errorf("remove: %v\n%s", err, calls)
	}
	for _, path := range []string{"/h/p", WorktreesDir + "/..", WorktreesDir + "/a/../../x", WorktreesDir} {
		if _, calls, err := run("remove", `{"worktree_path":"`+path+`"}`); err == nil || calls != "" {
			t.Errorf("remove %q: %v, git ran: %q", path, err, calls)
		}
	}
}

package firstday

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayHostRebaseRefsNotTheSessions: the user rebases the branch
// checked out on the host, in another terminal, while a session runs
// and writes nothing. The end said "the session moved or made branches,
// tags or other refs" and listed .git/ORIG_HEAD and .git/AUTO_MERGE,
// which the host's git had left: where the branch was at the start, and
// the tree of the commit HEAD now names. A rebase that stops on a
// conflict left REBASE_HEAD, on the branch's old history, listed too.
// The end names neither: what they name is the user's own, or what git
// log shows.
func TestFirstDayHostRebaseRefsNotTheSessions(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "rebasing")
	h.GitRepo(proj)
	git := func(args ...string) string {
		return h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	commit := func(file, content string) {
		h.Write(filepath.Join(proj, file), content)
		git("add", file)
		git("commit", "-qm", file)
	}
	git("checkout", "-qb", "feat")
	commit("f.txt", "f\n")
	commit("README", "feat\n")
	git("checkout", "-q", "master")
	commit("b.txt", "b\n")
	git("checkout", "-q", "feat")

	session := func(onHost string) (hostSaid, end string) {
		_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done")
		said, _ := h.Command(proj, []string{"GIT_EDITOR=true"}, "sh", "-c", onHost).CombinedOutput()
		harness.TouchDone(t, proj)
		if err := <-exited; err != nil {
			t.Fatalf("session: %v\n%s", err, out.String())
		}
		os.Remove(filepath.Join(proj, "started"))
		os.Remove(filepath.Join(proj, "done"))
		return string(said), out.String()
	}

	said, end := session("git -c user.name=t -c user.email=t@e rebase master")
	if !strings.Contains(said, "Successfully rebased") {
		t.Fatalf("the host's rebase beside the session failed:\n%s", said)
	}
	if strings.Contains(end, harness.RefsNamed) {
		t.Errorf("the end names the refs the host's rebase left as the session's:\n%s", end)
	}

	commit("README", "feat again\n")
	git("checkout", "-q", "master")
	commit("README", "master\n")
	git("checkout", "-q", "feat")
	said, end = session("git -c user.name=t -c user.email=t@e rebase master")
	if !strings.Contains(said, "CONFLICT") {
		t.Fatalf("the host's second rebase did not stop on its conflict:\n%s", said)
	}
	for _, ref := range []string{"REBASE_HEAD", "ORIG_HEAD"} {
		if strings.Contains(end, filepath.Join(proj, ".git", ref)+"\n") {
			t.Errorf("the end names the %s the host's stopped rebase left as the session's:\n%s", ref, end)
		}
	}
}

// TestFirstDayHookScriptWritesClaudeDir: a Stop hook in
// ~/.claude/settings.json runs a script that keeps a log in ~/.claude
// (a file, a directory, a file beside the script). Inside, the script
// writes the sandbox's own ~/.claude, lost at exit, and nothing said so:
// the launch names what a hook's command line writes there, never what
// its script does. The end names each entry the session made there that
// is not Claude Code's own state, with the way to keep it; Claude's own
// (its sessions, backups, file history) are not named.
func TestFirstDayHookScriptWritesClaudeDir(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "hooklog")
	h.GitRepo(proj)
	claudeDir := filepath.Join(h.Home, ".claude")
	script := filepath.Join(claudeDir, "hooks", "log.sh")
	h.Write(script, `#!/bin/sh
echo stop >> "$HOME/.claude/hook-log.txt"
mkdir -p "$HOME/.claude/logs" && echo stop >> "$HOME/.claude/logs/stops.log"
date > "$HOME/.claude/hooks/last-run"
`)
	h.Run(proj, nil, "chmod", "+x", script)
	h.Write(filepath.Join(claudeDir, "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/log.sh"}]}]}}`)
	const key = "sk-ant-test-key-hooklog-0123456789abcde"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-hooklog")
	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hello")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(claudeDir, "hook-log.txt")); err == nil {
		t.Fatalf("the hook's script wrote the host's ~/.claude")
	}
	var named []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if path, ok := strings.CutSuffix(line, " (made in the sandbox's own ~/.claude, not in yours)"); ok {
			named = append(named, strings.TrimPrefix(path, "  "))
		}
	}
	want := []string{filepath.Join(claudeDir, "hook-log.txt"), filepath.Join(claudeDir, "hooks", "last-run"), filepath.Join(claudeDir, "logs")}
	if slices.Sort(named); !slices.Equal(named, want) {
		t.Errorf("the end named %q as made in the sandbox's ~/.claude, want %q:\n%s", named, want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "hint: what a hook writes in ~/.claude stays in the sandbox; to keep it, have the hook write to a directory you bind with --bind DIR") {
		t.Errorf("the end does not say how to keep what the hook wrote:\n%s", stderr.String())
	}
}

// TestFirstDayCheckKeepsTheLastSession: claudebox --check runs a trial
// sandbox, a launch, whose end ran as a session's: with no start record
// of its own, it said "the session moved or made branches" of the
// project's reflogs, in a fresh home "claudebox --changes will not list
// everything the session did: open …/.<hash>.changes.claudebox-…: no such
// file or directory", and it replaced the last session's record, so that
// claudebox --changes after --check said "no file changed". The trial
// takes its start record, as a session does, and leaves the last
// session's record as it was.
func TestFirstDayCheckKeepsTheLastSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "checked")
	h.GitRepo(proj)
	key := []string{"ANTHROPIC_API_KEY=sk-ant-test-key-checked-0123456789abcd"}
	check := func() string {
		out, err := h.Command(proj, key, "claudebox", "--check").CombinedOutput()
		if err != nil {
			t.Fatalf("claudebox --check: %v\n%s", err, out)
		}
		for _, wrong := range []string{harness.RefsNamed, "will not list everything", "claudebox: moved aside"} {
			if strings.Contains(string(out), wrong) {
				t.Errorf("claudebox --check says %q of its trial:\n%s", wrong, out)
			}
		}
		return string(out)
	}
	check()
	if out, err := harness.ShellAfterSnapshot(t, h, proj, "echo made > made-by-session.txt"); err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	check()
	changes := h.Run(proj, nil, "claudebox", "--changes")
	if !strings.Contains(changes, "created  made-by-session.txt") {
		t.Errorf("claudebox --changes after --check does not list what the last session made:\n%s", changes)
	}
}

// TestFirstDayUndoNamesTheUsersLaterEdits: a session edits, creates,
// removes and renames files; then the user edits on the host, a file the
// session changed and one it never touched, and runs claudebox --undo.
// --undo puts back what the session found, the user's later edit of the
// untouched file too (moved aside, with the mv that brings it back), and
// its list said "restore e.txt (changed)" as for the session's own
// changes. It says "(changed since the session ended)" of a change the
// session's own record does not list; git status is then as before the
// session.
func TestFirstDayUndoNamesTheUsersLaterEdits(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "undone")
	h.GitRepo(proj)
	for _, f := range []string{"a", "b", "c", "e"} {
		h.Write(filepath.Join(proj, f+".txt"), f+"\n")
	}
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "files")
	h.Write(filepath.Join(proj, "u.txt"), "untracked\n")
	before := h.Run(proj, nil, "git", "status", "--porcelain")
	if out, err := harness.ShellAfterSnapshot(t, h, proj, "echo session >> a.txt; echo new > new.txt; rm b.txt; mv c.txt d.txt"); err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	for path, content := range map[string]string{"a.txt": "a\nsession\nmine\n", "e.txt": "mine\n"} {
		harness.Must(t, os.WriteFile(filepath.Join(proj, path), []byte(content), 0o644))
	}
	list := h.Run(proj, nil, "claudebox", "--undo", "--dry-run")
	for _, want := range []string{
		"  restore    a.txt (changed)\n", "  restore    b.txt (removed)\n", "  restore    c.txt (removed)\n",
		"  restore    e.txt (changed since the session ended)\n", "  move aside d.txt (created)\n", "  move aside new.txt (created)\n",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("claudebox --undo --dry-run does not say %q:\n%s", want, list)
		}
	}
	out := h.Run(proj, nil, "claudebox", "--undo", "-y")
	if !strings.Contains(out, "moved aside "+filepath.Join(proj, "e.txt")+"; to put it back: mv ") {
		t.Errorf("--undo did not keep the user's own later edit of e.txt:\n%s", out)
	}
	if after := h.Run(proj, nil, "git", "status", "--porcelain"); after != before {
		t.Errorf("git status after --undo:\n%s\nbefore the session:\n%s", after, before)
	}
}

// TestFirstDayClaudeScreensNameNothing: /sandbox, /permissions and
// /config inside open as on the host, and make empty directories of
// Claude Code's own in its ~/.claude (ssh, dev-mods, seed-admin in
// 2.1.330), which the end named as lost, each time. An empty directory
// holds nothing lost: the end names none of them. /sandbox also makes an
// empty .git/objects/info/alternates in the project (for its own
// sandbox to mount over), which the end moved aside as a finding: an
// empty one names no object store, and is left.
func TestFirstDayClaudeScreensNameNothing(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "screens")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-screens-0123456789abcde"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-screens")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "160", "-y", "45", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
	for cmd, shows := range map[string]string{"/sandbox": "No sandbox", "/permissions": "Add a new rule", "/config": "Auto-compact"} {
		harness.Slash(t, tmux, cmd, func(s string) bool { return strings.Contains(s, shows) }, cmd+"'s screen")
		// /config's first Escape leaves its search for its list: one
		// more a second while the screen stays.
		polls := 0
		harness.WaitScreen(t, tmux, func(s string) bool {
			if !strings.Contains(s, shows) {
				return true
			}
			if polls%4 == 0 {
				tmux("send-keys", "Escape")
			}
			polls++
			return false
		}, cmd+" closed")
	}
	screen := harness.Slash(t, tmux, "/exit", func(s string) bool {
		return strings.HasSuffix(strings.TrimSpace(s), "$") && strings.Contains(s, "claudebox\n")
	}, "the session's end")
	if strings.Contains(screen, "made in the sandbox's own ~/.claude") || strings.Contains(screen, "claudebox: moved aside") {
		t.Errorf("the end names what Claude Code's own screens made:\n%s", screen)
	}
}

// TestFirstDayHostWorktreeAddBesideSession: the user adds a worktree
// beside the project on the host (git worktree add ../NAME) while a
// session runs. The end took its administrative files in the repository
// (.git/worktrees/NAME/gitdir, commondir) for the session's and moved
// them aside: git in the new worktree then said "fatal: not a git
// repository", and git worktree list no longer listed it. They are left;
// the worktree works after the session.
func TestFirstDayHostWorktreeAddBesideSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "trunk")
	h.GitRepo(proj)
	beside := filepath.Join(h.Home, "code", "trunk-fix")
	_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done")
	h.Run(proj, nil, "git", "worktree", "add", "-q", beside)
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "claudebox: moved aside") {
		t.Errorf("the end moved aside what the host's git worktree add wrote:\n%s", out.String())
	}
	if said, err := h.Command(beside, nil, "git", "status", "--short").CombinedOutput(); err != nil {
		t.Errorf("git in the worktree added beside the session: %v\n%s", err, said)
	}
	if list := h.Run(proj, nil, "git", "worktree", "list"); !strings.Contains(list, beside+" ") {
		t.Errorf("git worktree list lost the worktree added beside the session:\n%s", list)
	}
}

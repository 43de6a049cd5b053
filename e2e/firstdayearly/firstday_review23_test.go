package firstdayearly

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayLogoutInsideSaysSo: /logout inside (and claudebox auth
// logout) has Claude say "Successfully logged out from your Anthropic
// account", and claudebox said nothing: the user believed the host's
// login gone. The end says, in claudebox's voice, that only the
// sandbox's session ended and the host's login stays, which the next
// launch shows; a session that did not log out says nothing of it.
func TestFirstDayLogoutInsideSaysSo(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "logout")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-logout-0123456789abcd"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-logout")
	const note = "claudebox: logging out inside ended the sandbox's session only: your login on the host stays"
	run := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		cmd := h.Command(proj, api.Env(key), "claudebox", args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox %q: %v\n%s%s", args, err, stdout.String(), stderr.String())
		}
		return stdout.String() + stderr.String()
	}
	if out := run("-p", "hello"); strings.Contains(out, note) {
		t.Errorf("a session that did not log out says it did:\n%s", out)
	}
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
	harness.Type(t, tmux, "/logout")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Sign out") }, "the /logout command offered")
	harness.Enter(t, tmux, func(s string) bool { return strings.Contains(strings.ReplaceAll(s, "\n", ""), note) }, "claudebox to say what /logout ended")
	if out := run("auth", "logout"); !strings.Contains(out, note) {
		t.Errorf("claudebox auth logout does not say what it ended:\n%s", out)
	}
	if out := run("-p", "hello"); !strings.Contains(out, "FAKE-REPLY-logout") || strings.Contains(out, note) {
		t.Errorf("the launch after /logout inside:\n%s", out)
	}
}

// TestFirstDayStoppedRebaseSaysWayBack: a session whose git rebase -i
// stopped (an edit, a conflict) leaves, beside the real claude, a rebase
// in progress that git status names and git rebase --abort ends; the exit
// audit moves its state aside (its todo is what the host's git
// --continue runs), and the host's git then said only "Not currently on
// any branch", with no rebase to abort. The end says where the branch
// is and the command that ends the rebase as --abort would, which
// brings the branch back, in place of the hint to put back what you
// changed yourself, which a rebase's state is not.
func TestFirstDayStoppedRebaseSaysWayBack(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "rebase")
	h.GitRepo(proj)
	for i := range 2 {
		h.Write(filepath.Join(proj, "f"), strings.Repeat("x\n", i+1))
		h.Run(proj, nil, "git", "add", "f")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "more")
	}
	head := h.Run(proj, nil, "git", "rev-parse", "HEAD")
	const key = "sk-ant-test-key-rebase-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-rebase", harness.ToolCall{Name: "Bash", Input: map[string]any{
		"command":     "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git rebase -i HEAD~2; git status",
		"description": "rebase",
	}})
	var stdout, stderr bytes.Buffer
	cmd := h.Command(proj, api.Env(key), "claudebox", "--allowedTools", "Bash", "-p", "rebase")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(api.ToolResults()["toolu_fake_0"], "interactive rebase in progress") {
		t.Fatalf("claudebox: %v\n%s%s\n%q", err, stdout.String(), stderr.String(), api.ToolResults())
	}
	const way = "hint: git switch --discard-changes master ends it as git rebase --abort would"
	if !strings.Contains(stderr.String(), "claudebox: the rebase of master begun while the session ran (inside, or on the host) stopped part way") || !strings.Contains(stderr.String(), way) {
		t.Fatalf("the end does not say where the stopped rebase left the host's git:\n%s", stderr.String())
	}
	// Its own way back, not the hint for what you changed yourself.
	if strings.Contains(stderr.String(), "if you changed one yourself") {
		t.Errorf("the end tells to put back the rebase's state if you changed it yourself:\n%s", stderr.String())
	}
	h.Run(proj, nil, "git", "switch", "-q", "--discard-changes", "master")
	if status := h.Run(proj, nil, "git", "status"); !strings.Contains(status, "On branch master") || h.Run(proj, nil, "git", "rev-parse", "HEAD") != head {
		t.Errorf("the hint's command does not bring the branch back:\n%s", status)
	}
}

// TestFirstDayMCPAddSaysHost: claude mcp add on the host adds a server
// the next claude has; claudebox mcp add said "Added stdio MCP server …
// File modified: ~/.claude.json" of the sandbox's copy, whose user-scope
// servers the next launch replaced: the server was gone at the next
// claudebox mcp list, and the host had none. It is refused, saying to
// add it on the host and bring it in, which works.
func TestFirstDayMCPAddSaysHost(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "mcpadd")
	h.GitRepo(proj)
	server := filepath.Join(h.Home, "bin", "srv.sh")
	h.Write(server, harness.MCPServerScript)
	h.Run(proj, nil, "chmod", "+x", server)
	const key = "sk-ant-test-key-mcpadd-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-mcpadd")
	out, err := h.Command(proj, api.Env(key), "claudebox", "mcp", "add", "-s", "user", "usersrv", "--", server).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "hint: add it on the host, claude mcp add …, then claudebox --with-mcp NAME brings it in") {
		t.Errorf("claudebox mcp add -s user: %v\n%s", err, out)
	}
	h.RunBoth(proj, "claude", "mcp", "add", "-s", "user", "usersrv", "--", server)
	out, err = h.Command(proj, api.Env(key), "claudebox", "--with-mcp", "usersrv", "mcp", "list").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "usersrv: "+server+"  - ✔ Connected") {
		t.Errorf("claudebox --with-mcp usersrv mcp list, the server added on the host: %v\n%s", err, out)
	}
}

// TestFirstDayWorktreeSubmoduleRefsNotNamed: a session in a linked
// worktree of a repository with a submodule (claudebox -w, or git
// worktree add) that did nothing ended with "the session moved or made
// branches, tags or other refs" naming the submodule's refs, its
// packed-refs and reflogs, at every session: the stand-ins in the
// submodule's git directory changed its status, and that tree had no
// record of its start. It has one; a branch the session makes there is
// still named.
func TestFirstDayWorktreeSubmoduleRefsNotNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	super := filepath.Join(h.Home, "code", "super")
	h.GitRepo(super)
	lib := filepath.Join(h.Home, "code", "libsrc")
	h.GitRepo(lib)
	h.Run(super, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	h.Run(super, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib")
	wt := filepath.Join(h.Home, "code", "super-wt")
	h.Run(super, nil, "git", "worktree", "add", "-q", wt)
	const key = "sk-ant-test-key-wtsub-0123456789abcdefg"
	h.Onboarded(key, wt)
	modules := filepath.Join(super, ".git", "modules", "lib")
	run := func(script string) string {
		api := harness.StartScriptedAPI(t, "FAKE-REPLY-wtsub", harness.ToolCall{Name: "Bash", Input: map[string]any{"command": script, "description": "x"}})
		var stdout, stderr bytes.Buffer
		cmd := h.Command(wt, api.Env(key), "claudebox", "--allowedTools", "Bash", "-p", "go")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stderr.String()
	}
	for range 2 {
		if out := run("git status --short"); strings.Contains(out, harness.RefsNamed) {
			t.Errorf("a session that made no ref names the submodule's:\n%s", out)
		}
	}
	out := run("git --git-dir=" + modules + " branch planted")
	if _, err := os.Stat(filepath.Join(modules, "refs", "heads", "planted")); err != nil {
		t.Fatalf("the session made no branch in the submodule's git directory: %v", err)
	}
	if !strings.Contains(out, filepath.Join(modules, "refs", "heads", "planted")) {
		t.Errorf("a branch the session made in the submodule's git directory is not named:\n%s", out)
	}
}

package firstday

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// pingServer is a stdio MCP server in bash with one tool, ping, as the
// SDKs answer (a method it does not know gets "method not found").
const pingServer = `#!/bin/bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id": *\([0-9][0-9]*\|"[^"]*"\).*/\1/p')
  method=$(printf '%s' "$line" | sed -n 's/.*"method": *"\([^"]*\)".*/\1/p')
  [ -z "$id" ] && continue
  case "$method" in
  initialize)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    reply='"result":{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"1"}}' ;;
  tools/list)
    reply='"result":{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{}}}]}' ;;
  *) reply='"error":{"code":-32601,"message":"method not found"}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$reply"
done
`

// TestFirstDayConfigDirMCPOffered: a user whose claude keeps its
// configuration where CLAUDE_CONFIG_DIR says keeps its ~/.claude.json
// there too ($CLAUDE_CONFIG_DIR/.claude.json: claude mcp add writes it,
// with the onboarding and the projects' trust). Having linked ~/.claude
// there, as the launch says to, --with-mcp NAME of a server claude mcp
// add had just added failed: "no MCP server NAME in ~/.claude.json". The
// launch reads the file the host's claude reads, and claude inside gets
// the server.
func TestFirstDayConfigDirMCPOffered(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "confmcp")
	h.GitRepo(proj)
	conf := filepath.Join(h.Home, ".config", "claude")
	const key = "sk-ant-test-key-confmcp-0123456789abcde"
	h.Onboarded(key, proj)
	h.Run(h.Home, nil, "mkdir", "-p", conf)
	h.Run(h.Home, nil, "mv", filepath.Join(h.Home, ".claude.json"), filepath.Join(conf, ".claude.json"))
	h.Run(h.Home, nil, "ln", "-s", conf, filepath.Join(h.Home, ".claude"))
	server := filepath.Join(h.Home, ".local", "share", "notes", "server.sh")
	h.Write(server, pingServer)
	harness.Must(t, os.Chmod(server, 0o755))
	confEnv := []string{"CLAUDE_CONFIG_DIR=" + conf}
	h.Run(proj, confEnv, "claude", "mcp", "add", "--scope", "user", "notes", "--", server)

	api := harness.StartFakeAPI(t, "FAKE-REPLY-confmcp")
	var stderr strings.Builder
	// Claude Code 2.1.330's -p sends its first request without waiting
	// for MCP servers still connecting (it names them "still connecting"
	// instead of offering their tools): under load the server started
	// late, and the test failed there, at a load of 17, every time.
	// MCP_CONNECTION_NONBLOCKING=false has it wait.
	cmd := h.Command(proj, append(api.Env(key), confEnv...), "claudebox", "--env", "MCP_CONNECTION_NONBLOCKING=false", "--with-mcp", "notes", "-p", "hi")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox --with-mcp notes: %v\n%s", err, stderr.String())
	}
	if !api.Received("mcp__notes__ping") {
		t.Errorf("claude inside was not offered the server of %s/.claude.json:\n%s", conf, stderr.String())
	}
}

// TestFirstDayHostCheckoutBesideSession: the user switches branches on the
// host, in another terminal, while a session runs. The branch tracks
// .vscode/settings.json where the launch found no .vscode, so claudebox
// stands an empty read-only directory there, and git's checkout, unable
// to write into it, says "unable to create file" and switches anyway:
// git status shows the file deleted, and once the session ends nothing
// says why (a git commit -a commits the deletion). The end names each
// file git tracks that a stand-in kept out, with how to write it. A
// rebase on the host that stops on a stand-in (its next commit adds an
// .envrc, which git takes the stand-in for) is moved aside at the end,
// as any begun during the session; the end no longer calls it the
// session's.
func TestFirstDayHostCheckoutBesideSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "beside")
	h.GitRepo(proj)
	git := func(args ...string) string {
		return h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	branch := func(name, path string) {
		git("checkout", "-qb", name, "master")
		h.Write(filepath.Join(proj, path), "{}\n")
		git("add", "-A")
		git("commit", "-qm", name)
	}
	branch("vs", ".vscode/settings.json")
	branch("env", ".envrc")
	git("checkout", "-q", "master")
	h.Write(filepath.Join(proj, "b.txt"), "b\n")
	git("add", "b.txt")
	git("commit", "-qm", "b")

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

	said, end := session("git checkout vs")
	if !strings.Contains(said, "unable to create file .vscode/settings.json") {
		t.Fatalf("the host's checkout beside the session wrote .vscode/settings.json (nothing to name):\n%s", said)
	}
	want := "  " + filepath.Join(proj, ".vscode", "settings.json")
	if !strings.Contains(end, "claudebox: git tracks what a checkout could not write while claudebox stood in for a missing path") ||
		!strings.Contains(end, want+"\n") || !strings.Contains(end, "git checkout HEAD -- ") {
		t.Errorf("the end does not name the file the host's checkout could not write:\n%s", end)
	}
	git("checkout", "-q", "-f", "master")

	said, end = session("git -c user.name=t -c user.email=t@e rebase master env")
	if !strings.Contains(said, "would be overwritten") {
		t.Fatalf("the host's rebase did not stop on the stand-in:\n%s", said)
	}
	if strings.Contains(end, "the session's rebase") || !strings.Contains(end, "claudebox: the rebase of env begun while the session ran (inside, or on the host) stopped part way") {
		t.Errorf("the end calls the host's rebase the session's:\n%s", end)
	}
}

// TestFirstDayClaudeResumeLineNamesClaudebox: at the end of an interactive
// session Claude Code's own line said "Resume this session with: claude
// --append-system-prompt-file /home/…/.claude/SANDBOX.md --resume ID": a
// flag the user never typed, naming a file the host does not have, and a
// command that finds no conversation on the host. Claude inside is told
// the program that resumes it (CLAUDE_CODE_RESUME_HINT_COMMAND), so its
// line says claudebox --resume ID. claudebox's own line said it again
// below it: the end says it once.
func TestFirstDayClaudeResumeLineNamesClaudebox(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "resumeline")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-resumeline-0123456789ab"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-resumeline")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "200", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
	harness.Ask(t, tmux, "hello resumeline", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-resumeline") }, "the reply")
	screen := harness.Slash(t, tmux, "/exit", harness.SessionEnded, "the shell after the session's end")
	if !strings.Contains(screen, "Resume this session with:\nclaudebox --resume ") || strings.Contains(screen, "--append-system-prompt-file") {
		t.Errorf("Claude's own resume line is not claudebox's:\n%s", screen)
	}
	if n := strings.Count(screen, "--resume"); n != 1 {
		t.Errorf("the end says how to resume %d times:\n%s", n, screen)
	}
}

// TestFirstDayHostCheckoutAfterKilledSession: the same checkout on the
// host beside a session whose claudebox was killed (kill -9): its
// stand-ins stay until the next claudebox command removes them, which
// named the count of stand-ins alone, and git status went on showing
// .vscode/settings.json deleted. That command names it too.
func TestFirstDayHostCheckoutAfterKilledSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "killed")
	h.GitRepo(proj)
	git := func(args ...string) string {
		return h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	git("checkout", "-qb", "vs")
	h.Write(filepath.Join(proj, ".vscode", "settings.json"), "{}\n")
	git("add", "-A")
	git("commit", "-qm", "vs")
	git("checkout", "-q", "master")
	c, _, exited := harness.StartSession(t, h, proj, "touch started; sleep 600")
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	said, _ := h.Command(proj, nil, "git", "checkout", "vs").CombinedOutput()
	if !strings.Contains(string(said), "unable to create file .vscode/settings.json") {
		t.Fatalf("the host's checkout beside the killed session's stand-ins wrote .vscode/settings.json:\n%s", said)
	}
	out, _ := h.Command(proj, nil, "claudebox", "--list").CombinedOutput()
	if !strings.Contains(string(out), "claudebox: git tracks what a checkout could not write") || !strings.Contains(string(out), filepath.Join(proj, ".vscode", "settings.json")) {
		t.Errorf("the command that removed the killed session's stand-ins does not name the file the checkout could not write:\n%s", out)
	}
}

// TestFirstDayHostCheckoutAfterKilledSessionWorktree: the same in a linked
// worktree (git worktree add), whose .git is a file: the command that
// removed the killed session's stand-ins looked for a .git directory
// alone and named nothing.
func TestFirstDayHostCheckoutAfterKilledSessionWorktree(t *testing.T) {
	h := harness.NewHost(t)
	repo := filepath.Join(h.Home, "code", "killedmain")
	h.GitRepo(repo)
	git := func(dir string, args ...string) string {
		return h.Run(dir, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	git(repo, "checkout", "-qb", "vs")
	h.Write(filepath.Join(repo, ".vscode", "settings.json"), "{}\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "vs")
	git(repo, "checkout", "-q", "master")
	proj := filepath.Join(h.Home, "code", "killedwt")
	git(repo, "worktree", "add", "-q", "--detach", proj, "master")
	c, _, exited := harness.StartSession(t, h, proj, "touch started; sleep 600")
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	said, _ := h.Command(proj, nil, "git", "checkout", "vs").CombinedOutput()
	if !strings.Contains(string(said), "unable to create file .vscode/settings.json") {
		t.Fatalf("the host's checkout beside the killed session's stand-ins wrote .vscode/settings.json:\n%s", said)
	}
	out, _ := h.Command(proj, nil, "claudebox", "--list").CombinedOutput()
	if !strings.Contains(string(out), "claudebox: git tracks what a checkout could not write") || !strings.Contains(string(out), filepath.Join(proj, ".vscode", "settings.json")) {
		t.Errorf("the command that removed the killed session's stand-ins in a linked worktree does not name the file the checkout could not write:\n%s", out)
	}
}

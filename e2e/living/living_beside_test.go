package living

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestWriteUnderStandInFails: the real claude's Write tool creating
// .vscode/launch.json where the project has no .vscode gets an error at
// once (nothing can be written in a stand-in directory), instead of a
// success into a private directory the session then discards without a
// word; so does a shell's mkdir and redirection there.
func TestWriteUnderStandInFails(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "w")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-write-done",
		harness.ToolCall{Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, ".vscode", "launch.json"), "content": "{}\n"}},
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "mkdir -p .vscode/x; echo hi > .vscode/y; echo status=$?", "description": "write under a stand-in"}},
	)
	out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--permission-mode", "bypassPermissions", "-p", "write it")
	if !strings.Contains(out, "FAKE-REPLY-write-done") {
		t.Fatalf("claude -p printed %q", out)
	}
	results := api.ToolResults()
	// Measured with 2.1.330: "ERROR: EACCES: permission denied, open
	// '…/.vscode/launch.json.tmp.2.…'" (before: "File created successfully").
	if r := results["toolu_fake_0"]; !strings.HasPrefix(r, "ERROR") || !strings.Contains(r, "permission denied") {
		t.Errorf("Write under the missing .vscode: tool result %q, want permission denied", r)
	}
	if r := results["toolu_fake_1"]; !strings.Contains(r, "status=1") {
		t.Errorf("Bash writing under the missing .vscode: %q, want a failure", r)
	}
	if _, err := os.Lstat(filepath.Join(proj, ".vscode")); err == nil {
		t.Errorf("the host has a .vscode after the session")
	}
}

// TestKeepPermissionsRealClaude: the real claude, asked to run a Bash
// command in a project without .claude, saves the user's "don't ask
// again" into the private copy of .claude/settings.local.json (in the
// stand-in of the missing .claude, which takes only such saves); at exit
// claudebox names the copy with its rule; claudebox --keep-permissions -y
// leaves it waiting (git * runs any code), and the user's own yes to it
// adds it to the host's file, which then holds nothing else.
func TestKeepPermissionsRealClaude(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	// git commit asks (echo, read-only, would not); auto mode, the
	// default, would not ask at all.
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-asked",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "git -c user.name=c -c user.email=c@example.com commit -q --allow-empty -m asked", "description": "commit"}})
	const key = "sk-ant-test-interactive-key-0123456789"
	proj := filepath.Join(h.Home, "code", "ask")
	h.GitRepo(proj)
	h.Onboarded(key, proj)
	stderr := filepath.Join(h.Base, "stderr")
	tmux := h.Tmux(proj)
	launch := "env " + strings.Join(api.Env(key), " ") + " TERM=xterm-256color claudebox --permission-mode default 2>" + stderr + "; sleep 60"
	tmux("new-session", "-d", "-x", "150", "-y", "40", launch)
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") || strings.Contains(s, ">") }, "the prompt")
	// Measured with 2.1.330: "2. Yes, and don’t ask again for: git *".
	const question = "2. Yes, and don’t ask again for: git *"
	harness.Ask(t, tmux, "run it", func(s string) bool { return strings.Contains(s, question) }, "the permission question")
	harness.Choose(t, tmux, question, func(s string) bool { return !strings.Contains(s, question) }, "the answer taken")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "FAKE-REPLY-asked") }, "the reply")
	local := filepath.Join(proj, ".claude", "settings.local.json")
	var said []byte
	// claudebox's end says how to resume the session only where Claude
	// Code's own line on the terminal does not.
	harness.Slash(t, tmux, "/exit", func(string) bool {
		said, _ = os.ReadFile(stderr)
		return bytes.Contains(said, []byte("claudebox --keep-permissions)"))
	}, "claudebox's end to name the rule")
	if !bytes.Contains(said, []byte(local+" (1 permission rule: claudebox --keep-permissions)")) {
		t.Errorf("claudebox's end does not name the lost rule:\n%s", said)
	}
	if _, err := os.Lstat(filepath.Join(proj, ".claude")); err == nil {
		t.Fatal("the host has a .claude before --keep-permissions")
	}
	// Bash(git *) runs any code (git -c core.pager=… log): -y does not
	// keep it, and it waits for the user's own yes.
	out, err := h.Command(proj, nil, "claudebox", "--keep-permissions", "-y").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ask each: allow Bash(git *)") {
		t.Fatalf("--keep-permissions -y: %v\n%s", err, out)
	}
	if _, err := os.Lstat(local); err == nil {
		t.Fatal("--keep-permissions -y kept a rule that runs any code")
	}
	tmux("new-session", "-d", "-s", "keep", "-x", "150", "-y", "40", "claudebox --keep-permissions; sleep 60")
	keep := harness.TmuxTarget(tmux, "keep")
	harness.WaitScreen(t, keep, func(s string) bool { return strings.Contains(s, "Keep allow Bash(git *)? It may run any code") }, "the question for the rule")
	tmux("send-keys", "-t", "keep", "y", "Enter")
	harness.WaitScreen(t, keep, func(s string) bool { return strings.Contains(s, "added 1 permission rule to") }, "the rule added")
	got, _ := os.ReadFile(local)
	if want := "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(git *)\"\n    ]\n  }\n}\n"; string(got) != want {
		t.Errorf("the host's %s holds\n%s\nwant\n%s", local, got, want)
	}
}

// TestForeignTerminalLaunch: claudebox started, as the user, on a terminal
// root owns (a tmux root started, then setpriv, as after su or sudo -u)
// runs its session there: it cannot open the terminal anew, so it uses
// the descriptor it was given.
func TestForeignTerminalLaunch(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("needs root, to start a terminal another user owns")
	}
	harness.RequireTool(t, "tmux", "apt-get install tmux")
	proj := filepath.Join(h.Home, "code", "tty")
	h.GitRepo(proj)
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "test -t 0 && echo INSIDE-ON-A-TERMINAL")
	sock := filepath.Join(h.Base, "root-tmux.sock")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	line := "cd " + proj + " && env -i"
	for _, e := range c.Env {
		line += " " + e
	}
	for _, a := range c.Args {
		line += " '" + a + "'"
	}
	line += " 2>&1; echo exit=$?; sleep 60"
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-x", "120", "-y", "20", line).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	var screen []byte
	for deadline := time.Now().Add(60 * time.Second); !bytes.Contains(screen, []byte("exit=")); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
		screen, _ = exec.Command("tmux", "-S", sock, "capture-pane", "-p").Output()
	}
	if !bytes.Contains(screen, []byte("INSIDE-ON-A-TERMINAL")) || !bytes.Contains(screen, []byte("exit=0")) {
		t.Errorf("on root's terminal, the screen shows:\n%s", screen)
	}
}

// TestCheckNamesLivingProblems: --check names a branch whose checkout
// inside would leave a tracked protected file as it is, and the
// permission rules sessions saved inside that wait for --keep-permissions,
// each with its fix, instead of a ✓. A checkout of that branch inside
// still "succeeds", leaving the old .envrc, and SANDBOX.md tells Claude.
func TestCheckNamesLivingProblems(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "chk")
	h.GitRepo(proj)
	commit := func(msg string) {
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", msg)
	}
	h.Write(filepath.Join(proj, ".envrc"), "export A=1\n")
	h.Run(proj, nil, "git", "add", ".envrc")
	commit("envrc")
	h.Run(proj, nil, "git", "checkout", "-qb", "feature")
	h.Write(filepath.Join(proj, ".envrc"), "export A=2\n")
	commit("change envrc")
	h.Run(proj, nil, "git", "checkout", "-qb", "docs", "master")
	h.Write(filepath.Join(proj, "README"), "docs\n")
	commit("docs only")
	h.Run(proj, nil, "git", "checkout", "-q", "master")
	h.Inside(proj, nil, `printf '{"permissions":{"allow":["Bash(make:*)"]}}\n' > .claude/settings.local.json`)

	out := h.Run(proj, []string{"ANTHROPIC_API_KEY=sk-test"}, "claudebox", "--check")
	for _, want := range []string{
		"⚠ branches: a checkout of feature inside fails: .envrc is protected there",
		"fix: switch branches, merge and pull on the host while it differs",
		"⚠ permission rules: 1 saved inside by this project's sessions wait",
		"fix: claudebox --keep-permissions",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--check lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "checkout of docs") {
		t.Errorf("--check names a branch that changes no protected file:\n%s", out)
	}
	said := h.Inside(proj, nil, `grep -c 'run "git …" on the host' ~/.claude/SANDBOX.md`)
	if strings.TrimSpace(said) != "1" {
		t.Errorf("SANDBOX.md does not tell Claude about checkouts of protected files: %q", said)
	}
}

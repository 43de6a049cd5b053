package faults

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayFaultsKilledRealClaude: the supervisor killed as a user's
// session of the real Claude Code runs a command it was asked for (the
// other fault cases run a shell). Host-side proof: Claude Code and its
// command are gone, none holding the project; the file the command wrote
// is as it left it; the instance holds the conversation; the next launch
// in the project says in one line what it cleaned up, leaves no stand-in,
// and continues the conversation (--continue sends the killed session's
// prompt again).
func TestReplayFaultsKilledRealClaude(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "killed")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-killed-0123456789abcdefgh"
	h.Onboarded(key, proj)
	const prompt, sleep = "KILLED-SESSION-PROMPT", "60.713"
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-killed",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "echo mine > work; touch started; sleep " + sleep, "description": "work"}})
	var out harness.Output
	s := h.Command(proj, api.Env(key), "claudebox", "-p", "--permission-mode", "auto", prompt)
	s.Stdout, s.Stderr = &out, &out
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "Claude Code to run its command", func() bool { return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %v\n%s\n%s", <-exited, out.String(), h.SessionLogs())
	}
	s.Process.Signal(syscall.SIGKILL)
	<-exited
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	harness.WaitFor(t, "the sandbox to end", func() bool { return !instance.InUse(inst) && !harness.Running("sleep\x00"+sleep+"\x00") })
	noneHolding(t, proj)
	if b, _ := os.ReadFile(filepath.Join(proj, "work")); string(b) != "mine\n" {
		t.Errorf("the command's file: %q", b)
	}
	kept := false
	filepath.WalkDir(inst, func(path string, d fs.DirEntry, err error) error {
		if b, _ := os.ReadFile(path); err == nil && strings.HasSuffix(d.Name(), ".jsonl") && strings.Contains(string(b), prompt) {
			kept = true
		}
		return nil
	})
	if !kept {
		t.Error("the instance lost the killed session's conversation")
	}
	next := harness.StartFakeAPI(t, "FAKE-REPLY-after-kill")
	c := h.Command(proj, next.Env(key), "claudebox", "-p", "--continue", "go on")
	said, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(said), "FAKE-REPLY-after-kill") {
		t.Fatalf("the next launch: %v\n%s", err, said)
	}
	if n := strings.Count(string(said), "left by a session that was killed"); n != 1 {
		t.Errorf("the next launch said %d times what it cleaned up:\n%s", n, said)
	}
	if !next.Received(prompt) {
		t.Error("--continue did not carry on the killed session's conversation")
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived the next session", n)
		}
	}
}

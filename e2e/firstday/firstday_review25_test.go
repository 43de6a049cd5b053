package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayClaudeConfigDirNamed: a user whose claude reads its
// configuration where CLAUDE_CONFIG_DIR says (~/.config/claude) typed
// claudebox: its claude had none of their commands, settings or plugins,
// and the launch said only "variables not passed into the sandbox:
// CLAUDE_CONFIG_DIR", with --env CLAUDE_CONFIG_DIR as the way, which
// shows nothing (the directory is state, never shown). The launch says
// what is missing and the way that works: a ~/.claude that links there,
// which claudebox shows as it shows ~/.claude.
func TestFirstDayClaudeConfigDirNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "confdir")
	h.GitRepo(proj)
	conf := filepath.Join(h.Home, ".config", "claude")
	h.Write(filepath.Join(conf, "commands", "hi.md"), "---\ndescription: say hi\n---\nCONFIG-DIR-COMMAND-r25 say hi\n")
	const key = "sk-ant-test-key-confdir-0123456789abcde"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-confdir")
	run := func() string {
		var stderr strings.Builder
		cmd := h.Command(proj, append(api.Env(key), "CLAUDE_CONFIG_DIR="+conf), "claudebox", "-p", "/hi")
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox: %v\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	out := run()
	named := "claudebox: CLAUDE_CONFIG_DIR moves claude's configuration to " + conf + ", and claude inside reads ~/.claude"
	link := "ln -s " + conf + " ~/.claude"
	if !strings.Contains(out, named) || !strings.Contains(out, link) || strings.Contains(out, "--env CLAUDE_CONFIG_DIR") {
		t.Fatalf("the launch does not say where claude's configuration went:\n%s", out)
	}
	h.Run(proj, nil, "ln", "-s", conf, filepath.Join(h.Home, ".claude"))
	run()
	if !api.Received("CONFIG-DIR-COMMAND-r25") {
		t.Errorf("with the hint's link, the command of CLAUDE_CONFIG_DIR did not reach the API")
	}
}

// TestFirstDayClaudeDirMadeNamed: /memory's user memory and /agents'
// personal agent are saved in ~/.claude, which is the sandbox's own.
// Where the host had a CLAUDE.md, the end said the session's edit of its
// private copy was discarded; where it had none (a fresh setup), the
// edit, a new agent, went with the sandbox, unnamed. The end names each;
// a session that made none, Claude's own plugins/ aside, names nothing.
func TestFirstDayClaudeDirMadeNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "memory")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-memory-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-memory")
	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hi")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || strings.Contains(stderr.String(), "made in the sandbox's own ~/.claude") {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	out := h.InsideStderr(proj, "echo remember >> ~/.claude/CLAUDE.md; mkdir ~/.claude/agents; echo agent > ~/.claude/agents/reviewer.md")
	for _, made := range []string{"CLAUDE.md", "agents"} {
		if !strings.Contains(out, "  "+filepath.Join(h.Home, ".claude", made)+" (made in the sandbox's own ~/.claude, where the launch found none)") {
			t.Errorf("the end does not name ~/.claude/%s, lost:\n%s", made, out)
		}
	}
	if !strings.Contains(out, "hint: make the change on the host to keep it") {
		t.Errorf("the end does not say how to keep it:\n%s", out)
	}
}

package replay

// The replay suite for Codex's configuration copy: each launch writes it
// into the project's instance (Codex saves it by rename, so it cannot be a
// bound file), where every sandbox of the project can write; and the
// answers to Codex's trust question are read back from it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/proxy"
)

// TestReplayCodexConfigCopy: a session of the project replaces Codex's
// configuration copy in the instance with a symlink to a file of the
// host's (~/.bashrc), for the next codex session's launch, which writes
// the copy, to write through it. A shell session cannot (the agents' state
// is read-only in its view); a codex session's own ~/.codex/config/ can. Host-side proof: after that
// session, ~/.bashrc and ~/.codex/config.toml are byte-identical, and the
// copy is a regular file again.
func TestReplayCodexConfigCopy(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	victim := filepath.Join(h.Home, ".bashrc")
	h.Write(victim, "# the user's own\n")
	hostConfig := filepath.Join(h.Home, ".codex", "config.toml")
	h.Write(hostConfig, "model = \"gpt-test\"\n")
	before := harness.Snapshots([]string{victim, hostConfig})
	harness.WriteChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}

	// Every sandbox's view of the instance holds the agents' state
	// read-only, so a shell session cannot plant it there any more; a
	// codex session can, in its own ~/.codex/config/, and an older
	// claudebox's session could: the link is planted as either would.
	out := h.Run(proj, nil, "claudebox", "--shell", "-c", "ln -sf "+victim+" ~/.claude/projects/agents/codex/config/config.toml && echo planted || true")
	if strings.Contains(out, "planted") {
		t.Fatalf("a shell session wrote the agents' state: %s", out)
	}
	copyPath := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "agents", "codex", "config", "config.toml")
	os.Remove(copyPath)
	if err := os.Symlink(victim, copyPath); err != nil {
		t.Fatal(err)
	}
	if out := h.Run(proj, env, "claudebox", "--agent", "codex", "exec", "say pong"); !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	harness.CompareSnapshots(t, before)
	if fi, err := os.Lstat(copyPath); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the copy is not a regular file after the launch: %v", err)
	}
}

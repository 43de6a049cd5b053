package e2e

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
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	victim := filepath.Join(h.home, ".bashrc")
	h.write(victim, "# the user's own\n")
	hostConfig := filepath.Join(h.home, ".codex", "config.toml")
	h.write(hostConfig, "model = \"gpt-test\"\n")
	before := snapshots([]string{victim, hostConfig})
	writeChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := startFakeChatGPT(t, false, "", func() []sandboxView { return nil })
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token", noResolve}

	// Every sandbox's view of the instance holds the agents' state
	// read-only, so a shell session cannot plant it there any more; a
	// codex session can, in its own ~/.codex/config/, and an older
	// claudebox's session could: the link is planted as either would.
	out := h.run(proj, nil, "claudebox", "--shell", "-c", "ln -sf "+victim+" ~/.claude/projects/agents/codex/config/config.toml && echo planted || true")
	if strings.Contains(out, "planted") {
		t.Fatalf("a shell session wrote the agents' state: %s", out)
	}
	copyPath := filepath.Join(instance.Dir(filepath.Join(h.home, ".claudebox"), proj), "agents", "codex", "config", "config.toml")
	os.Remove(copyPath)
	if err := os.Symlink(victim, copyPath); err != nil {
		t.Fatal(err)
	}
	if out := h.run(proj, env, "claudebox", "--agent", "codex", "exec", "say pong"); !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	compareSnapshots(t, before)
	if fi, err := os.Lstat(copyPath); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the copy is not a regular file after the launch: %v", err)
	}
}

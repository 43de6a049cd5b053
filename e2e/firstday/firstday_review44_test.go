package firstday

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay44SecondSessionFullscreen: a second interactive session in
// a project where another is starting, as a user opens two terminals.
// Claude Code's fullscreen boot canary records each start in
// ~/.claude.json (the project's copy, which both sessions share) under
// its pid and hostname until it is healthy; a later start that finds an
// entry of its own host under its own pid takes it for a start of its own
// that died, and falls back to the classic renderer. Both sandboxes'
// claude are pid 2 and had the host's hostname: the second took the
// first's pending start for its own dead one. The first session here is
// a shell that records that entry as its Claude Code does while starting.
func TestFirstDay44SecondSessionFullscreen(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "fullscreen44")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-fullscreen44-0123456789ab"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-fullscreen44")
	version := strings.Fields(h.RunBoth(proj, "claude", "--version"))[0]
	plant := fmt.Sprintf(`import json, os, socket, time
p = os.path.expanduser("~/.claude.json")
d = json.load(open(p))
d["fullscreenBootPending"] = {"2": {"startedAt": int(time.time() * 1000), "version": %q, "host": socket.gethostname(), "platform": "linux"}}
open(p, "w").write(json.dumps(d))
`, version)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-s", "one", "-x", "200", "-y", "40",
		"claudebox --shell -c 'echo "+base64.StdEncoding.EncodeToString([]byte(plant))+" | base64 -d | python3 && echo planted-$((40+4)) && sleep 600'")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "one"), func(s string) bool { return strings.Contains(s, "planted-44") }, "the first session's start recorded")

	tmux("new-session", "-d", "-s", "two", "-x", "200", "-y", "40", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox")
	screen := harness.WaitScreen(t, harness.TmuxTarget(tmux, "two"), func(s string) bool { return strings.Contains(s, "❯") }, "the second session's prompt")
	if strings.Contains(screen, "classic renderer") {
		t.Errorf("the second session fell back to the classic renderer:\n%s", screen)
	}
	copies, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "projects", "*", "claude.json"))
	if len(copies) != 1 {
		t.Fatalf("want the project's one claude.json, found %q", copies)
	}
	b, err := os.ReadFile(copies[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "fullscreenBootStrikes") {
		t.Errorf("the second session counted the first's start as its own that died:\n%s", b)
	}
}

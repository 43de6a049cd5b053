package firstday

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay39PluginCatalogHost: /plugin, on a first day, asks
// storage.googleapis.com for Claude Code's catalog of plugins, which the
// filtered network refuses. The end then said "to allow one: claudebox
// --allow-host storage.googleapis.com", which opens all of Google Cloud
// Storage to the sandbox, for a catalog nothing else needs. It says what
// Claude Code asks there, and what allowing the host would open.
func TestFirstDay39PluginCatalogHost(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "plugins39")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-plugins39-0123456789abcd"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-plugins39")
	stderr := filepath.Join(h.Base, "stderr")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "150", "-y", "40", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox 2>"+stderr+"; echo CLAUDEBOX-ENDED >>"+stderr+"; sleep 60")
	// Enter is pressed once the list of commands offers /plugin, and
	// again only while that list stays (a second Enter on /plugin's
	// screen, slow to draw, would act on it).
	harness.Type(t, tmux, "/plugin")
	const offered = "Manage Claude Code plugins"
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, offered) }, "/plugin offered")
	harness.Press(t, tmux, func(s string) bool { return !strings.Contains(s, offered) }, "/plugin run", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Discover") }, "/plugin's tabs")
	// The catalog is asked for as the tab opens; the proxy's log says so.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(h.SessionLogs(), "storage.googleapis.com"); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("/plugin did not ask storage.googleapis.com; the session's log:\n%s", h.SessionLogs())
		}
	}
	harness.Press(t, tmux, func(s string) bool { return !strings.Contains(s, "Discover") }, "/plugin closed", "Escape")
	harness.Slash(t, tmux, "/exit", func(s string) bool { return !strings.Contains(s, "/exit") }, "/exit")
	var said []byte
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(string(said), "CLAUDEBOX-ENDED"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("claudebox did not end; it said:\n%s", said)
		}
		said, _ = os.ReadFile(stderr)
	}
	if strings.Contains(string(said), "--allow-host storage.googleapis.com (") || !strings.Contains(string(said), "hint: Claude Code asks storage.googleapis.com for /plugin's catalog of plugins") {
		t.Errorf("the end's word on storage.googleapis.com:\n%s", said)
	}
}

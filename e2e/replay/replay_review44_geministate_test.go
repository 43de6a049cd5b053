package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview44GeminiShadowRepoDropped: Gemini CLI's checkpoints are
// a git repository of its own (~/.gemini/history/<project>), which
// crossed whole from one session of a project to the next. A session that
// put a clean filter in its config (and `* filter=…` in its
// info/attributes) had the next session run the filter's command at the
// first edit it proposed, as its checkpoint's git add read the project
// (measured with 0.61.0, checkpointing on; its own hooks and fsmonitor it
// turns off, not filters). Each launch now keeps nothing of history/:
// Gemini makes the repository again.
func TestReplayReview44GeminiShadowRepoDropped(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gemini", ".env"), "GEMINI_API_KEY=AIza-real-gemini-key-0123456789\n")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true},"general":{"checkpointing":{"enabled":true}}}`+"\n")
	f := harness.StartAgentAPI(t, "X-Goog-Api-Key", func() []harness.SandboxView { return nil })
	env := []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, harness.NoResolve}
	if out := h.Run(proj, env, "claudebox", "--agent", "gemini", "--skip-trust", "-p", "say pong"); !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	history := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "agents", "gemini", "history")
	configs, _ := filepath.Glob(filepath.Join(history, "*", ".git", "config"))
	if len(configs) == 0 {
		t.Fatalf("the first session made no checkpoint repository in %s", history)
	}
	// What the session inside writes there, written into the instance.
	for _, config := range configs {
		h.Write(config, "[filter \"planted\"]\n\tclean = sh -c 'touch /tmp/PLANTED-FILTER; cat'\n")
		h.Write(filepath.Join(filepath.Dir(config), "info", "attributes"), "* filter=planted\n")
	}
	h.Chown()
	h.Run(proj, env, "claudebox", "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if again, _ := filepath.Glob(filepath.Join(history, "*", ".git", "config")); len(again) == 0 {
		t.Errorf("the next session made no checkpoint repository again in %s", history)
	}
	filepath.Walk(history, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "planted") {
				t.Errorf("the next session's checkpoint repository holds what the last one planted: %s", p)
			}
		}
		return nil
	})
}

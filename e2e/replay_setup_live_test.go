package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestReplaySetupGeminiExtensionChangedDuringSession: with --agent
// gemini, each extension's directory was shown whole and live, its .env
// hidden only where the launch found one: the settings the host's gemini
// writes into an extension during the session (gemini extensions config,
// a service's key in its .env), the URL an update records
// (.gemini-extension-install.json, token and all) and a clone the host
// makes there were readable inside. The attack: the host writes them
// while gemini runs; the sandbox's view of ~/.gemini is read through
// /proc. Proof: none of them holds the token; the extension's manifest
// is shown.
func TestReplaySetupGeminiExtensionChangedDuringSession(t *testing.T) {
	requireAgent(t, "gemini", "@google/gemini-cli")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	const token = "glpat-SETUPLIVE-EXTENSION-SECRET"
	ext := filepath.Join(h.home, ".gemini", "extensions", "jira")
	h.write(filepath.Join(h.home, ".gemini", ".env"), "GEMINI_API_KEY=AIza-real-gemini-key-setuplive\n")
	h.write(filepath.Join(h.home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true}}`+"\n")
	h.write(filepath.Join(ext, "gemini-extension.json"), `{"name":"jira","version":"1.0.0","settings":[{"name":"Jira token","description":"d","envVar":"JIRA_API_TOKEN"}]}`)
	h.write(filepath.Join(ext, ".gemini-extension-install.json"), `{"source":"https://gitlab.example.com/org/jira.git","type":"git"}`)
	h.write(filepath.Join(ext, "commands", "open.toml"), "prompt = \"open\"\n")
	var once sync.Once
	var planted error
	mark := testMark(t)
	look := lookInside(filepath.Join(h.home, ".gemini"), mark)
	f := startAgentAPI(t, "X-Goog-Api-Key", func() []sandboxView {
		// The sandbox is up: the host's gemini configures the extension,
		// records an update's source, and a clone appears beside it.
		once.Do(func() {
			for _, w := range []struct{ path, content string }{
				{filepath.Join(ext, ".env"), "JIRA_API_TOKEN=" + token + "\n"},
				{filepath.Join(ext, ".gemini-extension-install.json"), `{"source":"https://oauth2:` + token + `@gitlab.example.com/org/jira.git","type":"git"}`},
				{filepath.Join(ext, "vendor", ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/v.git\n"},
			} {
				if planted == nil {
					planted = os.MkdirAll(filepath.Dir(w.path), 0o755)
				}
				if planted == nil {
					planted = os.WriteFile(w.path, []byte(w.content), 0o644)
				}
			}
		})
		return look()
	})
	out := h.run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, noResolve}, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	if planted != nil {
		t.Fatal(planted)
	}
	manifest, command, read := false, false, map[string]bool{}
	for _, v := range f.Inside() {
		for path, content := range v.files {
			if strings.Contains(content, token) && !read[path] {
				read[path] = true
				t.Errorf("the sandbox reads what the host wrote into the extension during the session, in %s", path)
			}
			manifest = manifest || strings.HasSuffix(path, "/jira/gemini-extension.json")
			command = command || strings.HasSuffix(path, "/jira/commands/open.toml")
		}
	}
	if !manifest || !command {
		t.Errorf("the extension's manifest or command is not shown inside")
	}
}

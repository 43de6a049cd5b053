package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// TestGeminiForHost: Gemini runs with the login the host's gemini would
// use: the one its settings choose, else an API key, else the Google
// login's file (or the variable that carries a Google token). The Google
// variant points gemini at Code Assist, and leaves the row as it was.
func TestGeminiForHost(t *testing.T) {
	for _, c := range []struct {
		name             string
		settings, dotenv string
		creds            bool
		vars             map[string]string
		google           bool
	}{
		{name: "nothing"},
		{name: "login file only", creds: true, google: true},
		{name: "key and login file", dotenv: "GEMINI_API_KEY=k\n", creds: true},
		{name: "key variable and login file", vars: map[string]string{"GEMINI_API_KEY": "k"}, creds: true},
		{name: "settings choose Google", settings: `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, dotenv: "GEMINI_API_KEY=k\n", creds: true, google: true},
		{name: "settings choose the key", settings: `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`, creds: true},
		{name: "Google token variable", vars: map[string]string{"GOOGLE_CLOUD_ACCESS_TOKEN": "ya29.x"}, google: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".gemini")
			os.MkdirAll(dir, 0o700)
			if c.settings != "" {
				os.WriteFile(filepath.Join(dir, "settings.json"), []byte(c.settings), 0o600)
			}
			if c.dotenv != "" {
				os.WriteFile(filepath.Join(dir, ".env"), []byte(c.dotenv), 0o600)
			}
			if c.creds {
				os.WriteFile(filepath.Join(dir, "oauth_creds.json"), []byte(`{"refresh_token":"r"}`), 0o600)
			}
			lookup := func(n string) (string, bool) { v, ok := c.vars[n]; return v, ok }
			a := Gemini.ForHost(home, lookup)
			if got := a.Key == proxy.GoogleOAuth; got != c.google {
				t.Fatalf("Google login %v, want %v", got, c.google)
			}
			if !c.google {
				return
			}
			env, _ := a.Resolved(home, "http://127.0.0.1:3128")
			if !slices.Contains(env, "GOOGLE_GENAI_USE_GCA=true") || !slices.Contains(env, "CODE_ASSIST_ENDPOINT=http://127.0.0.1:3128") ||
				slices.ContainsFunc(env, func(e string) bool { return len(e) > 23 && e[:23] == "GOOGLE_GEMINI_BASE_URL=" }) {
				t.Errorf("env %q", env)
			}
			if a.LoginFile != "oauth_creds.json" || a.Overrides["security"].(map[string]any)["auth"].(map[string]any)["selectedType"] != "oauth-personal" {
				t.Errorf("row %+v", a)
			}
			if Gemini.Overrides["security"].(map[string]any)["auth"].(map[string]any)["selectedType"] != "gemini-api-key" || Gemini.Key != proxy.GeminiKey {
				t.Error("the Gemini row itself changed")
			}
		})
	}
}

// TestGeminiContextNames: the other instruction files its settings name
// are shown when they are plain Markdown names in ~/.gemini, never a path
// out of it or a file of its login.
func TestGeminiContextNames(t *testing.T) {
	for settings, want := range map[string]string{
		`{"context":{"fileName":"AGENTS.md"}}`:                                            "AGENTS.md",
		`{"context":{"fileName":["AGENTS.md","GEMINI.md","../x.md","a/b.md",".env.md"]}}`: "AGENTS.md",
		`{"context":{"fileName":["oauth_creds.json","CONTEXT.md"]}}`:                      "CONTEXT.md",
		`{}`:       "",
		`not json`: "",
	} {
		if got := strings.Join(geminiContextNames([]byte(settings)), ","); got != want {
			t.Errorf("%s: %q, want %q", settings, got, want)
		}
	}
}

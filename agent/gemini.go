package agent

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/proxy"
)

// geminiGoogleLogin is Gemini with the host's "Login with Google", when
// the host's gemini would use it: its settings choose it
// (security.auth.selectedType "oauth-personal"), or choose nothing and no
// API key is found while the login's file is there. Inside, gemini gets
// the phantom as GOOGLE_CLOUD_ACCESS_TOKEN with GOOGLE_GENAI_USE_GCA=true
// (measured with 0.61.0: it then reads no login file, holds no refresh
// token and never refreshes) and the Code Assist API at the proxy
// (CODE_ASSIST_ENDPOINT, which its client calls directly). The supervisor
// refreshes the real login on the host.
func geminiGoogleLogin(a Agent, home string, lookup func(string) (string, bool)) (Agent, bool) {
	dir := filepath.Join(home, a.ConfigDir)
	selected := geminiSelectedAuth(filepath.Join(dir, a.Settings))
	_, hasKey := a.FindKey(home, lookup)
	_, loginErr := readSmall(filepath.Join(dir, geminiLoginFile))
	token, hasToken := lookup("GOOGLE_CLOUD_ACCESS_TOKEN")
	if selected != "oauth-personal" && (selected != "" || hasKey || loginErr != nil && (!hasToken || token == "")) {
		return a, false
	}
	g := a
	g.Env = slices.DeleteFunc(slices.Clone(a.Env), func(e string) bool { return strings.HasPrefix(e, "GOOGLE_GEMINI_BASE_URL=") })
	g.Env = append(g.Env, "GOOGLE_GENAI_USE_GCA=true", "CODE_ASSIST_ENDPOINT="+apiURL)
	g.Overrides = maps.Clone(a.Overrides)
	g.Overrides["security"] = map[string]any{"auth": map[string]any{"selectedType": "oauth-personal"}}
	g.Key = proxy.GoogleOAuth
	g.KeyVariables = []string{"GOOGLE_CLOUD_ACCESS_TOKEN"}
	g.BaseURLVariable = "CODE_ASSIST_ENDPOINT"
	g.Upstream = "https://cloudcode-pa.googleapis.com"
	g.keyFile = nil
	g.LoginFile = geminiLoginFile
	g.login = nil
	return g, true
}

// geminiLoginFile holds Gemini CLI's Google login, in ~/.gemini.
const geminiLoginFile = "oauth_creds.json"

// geminiSelectedAuth is the login the host's Gemini settings choose
// (security.auth.selectedType), "" when they choose none or cannot be
// read.
func geminiSelectedAuth(path string) string {
	b, err := readSmall(path)
	if err != nil {
		return ""
	}
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	json.Unmarshal(b, &s)
	return s.Security.Auth.SelectedType
}

// geminiContextNames are the files its settings name in context.fileName
// (a name or a list), which Gemini CLI reads from ~/.gemini besides
// GEMINI.md (measured with 0.61.0: it keeps GEMINI.md among them): plain
// Markdown file names only, none of its login's.
func geminiContextNames(settings []byte) []string {
	var s struct {
		Context struct {
			FileName json.RawMessage `json:"fileName"`
		} `json:"context"`
	}
	json.Unmarshal(settings, &s)
	var names []string
	if json.Unmarshal(s.Context.FileName, &names) != nil {
		var one string
		json.Unmarshal(s.Context.FileName, &one)
		names = []string{one}
	}
	return slices.DeleteFunc(names, func(n string) bool {
		return n != filepath.Base(n) || !strings.HasSuffix(n, ".md") || n == "GEMINI.md" || strings.HasPrefix(n, ".")
	})
}

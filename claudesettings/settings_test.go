package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestCopyContentTurnsInnerSandboxOff(t *testing.T) {
	for _, tc := range []struct {
		name, src, in string
		want          string // sandbox.enabled in the copy; "" for the data unchanged
	}{
		{"user settings", "/home/a/.claude/settings.json", `{"sandbox":{"enabled":true,"network":{"allowedDomains":["x.org"]}},"model":"opus"}`, "false"},
		{"user local settings", "/home/a/.claude/settings.local.json", `{"sandbox": {"enabled": true}}`, "false"},
		{"project settings", "/p/.claude/settings.json", `{"sandbox":{"enabled":1}}`, "false"},
		{"last duplicate wins, as in Claude Code", "/p/.claude/settings.local.json", `{"sandbox":{"enabled":false,"enabled":true}}`, "false"},
		{"already off", "/p/.claude/settings.json", `{"sandbox":{"enabled":false}}`, ""},
		{"not set", "/p/.claude/settings.json", `{"sandbox":{"failIfUnavailable":true}}`, ""},
		{"no sandbox key", "/p/.claude/settings.json", `{"model":"opus"}`, ""},
		{"sandbox null", "/p/.claude/settings.json", `{"sandbox":null}`, ""},
		{"not JSON", "/p/.claude/settings.json", `{"sandbox":{"enabled":true}`, ""},
		{"empty", "/p/.claude/settings.json", ``, ""},
		{"not a settings file", "/p/.mcp.json", `{"sandbox":{"enabled":true}}`, ""},
		{"CLAUDE.md", "/home/a/.claude/CLAUDE.md", `{"sandbox":{"enabled":true}}`, ""},
		{"settings.json outside .claude", "/p/settings.json", `{"sandbox":{"enabled":true}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := CopyContent(tc.src, "/home/a", []byte(tc.in))
			if tc.want == "" {
				if string(out) != tc.in {
					t.Fatalf("CopyContent changed %q into %q", tc.in, out)
				}
				return
			}
			var got struct {
				Sandbox map[string]json.RawMessage
				Model   string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("the copy is not JSON: %v: %s", err, out)
			}
			if string(got.Sandbox["enabled"]) != tc.want {
				t.Fatalf("sandbox.enabled = %s, want %s, in %s", got.Sandbox["enabled"], tc.want, out)
			}
			// The rest of the user's settings is kept.
			var in, kept map[string]any
			json.Unmarshal([]byte(tc.in), &in)
			json.Unmarshal(out, &kept)
			delete(in["sandbox"].(map[string]any), "enabled")
			delete(kept["sandbox"].(map[string]any), "enabled")
			a, _ := json.Marshal(in)
			b, _ := json.Marshal(kept)
			if string(a) != string(b) {
				t.Errorf("the copy lost settings: %s, want %s", b, a)
			}
		})
	}
}

// A settings file's env would win over the sandbox's ANTHROPIC_BASE_URL
// and phantom (measured): the copies drop the API variables, keep the rest,
// and the host side reads the user's own.
func TestCopyContentDropsAPIEnv(t *testing.T) {
	in := `{"env":{"ANTHROPIC_BASE_URL":"https://gw","ANTHROPIC_API_KEY":"sk-real","CLAUDE_CODE_OAUTH_TOKEN":"t","ANTHROPIC_AUTH_TOKEN":"b","FOO":"1"},"model":"opus"}`
	// A project's shared copy keeps its other variables; your own (the
	// home's, and a project's local settings) keeps only the allowlist's.
	for src, want := range map[string]int{"/home/a/.claude/settings.json": 0, "/p/.claude/settings.json": 1, "/p/.claude/settings.local.json": 0} {
		var got struct {
			Env   map[string]string
			Model string
		}
		out, _ := CopyContent(src, "/home/a", []byte(in))
		if err := json.Unmarshal(out, &got); err != nil || len(got.Env) != want || got.Model != "opus" {
			t.Errorf("%s: copy %+v, %v", src, got, err)
		}
	}
	if out, _ := CopyContent("/p/.claude/settings.json", "/home/a", []byte(`{"env":{"FOO":"1"}}`)); string(out) != `{"env":{"FOO":"1"}}` {
		t.Errorf("a file without API variables changed: %s", out)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(in), 0o600)
	if got := APIEnv(home); !slices.Equal(got, []string{"ANTHROPIC_BASE_URL=https://gw", "ANTHROPIC_API_KEY=sk-real", "ANTHROPIC_AUTH_TOKEN=b", "CLAUDE_CODE_OAUTH_TOKEN=t"}) {
		t.Errorf("APIEnv = %q", got)
	}
}

// The copy of your own settings keeps only what is known harmless: the
// keys of Claude Code's schema that hold no credential, and in env the
// variables the environment's allowlist passes. It reads the file as
// Claude Code does (a byte order mark, UTF-16LE, a later duplicate key
// winning), so that no encoding keeps a value in; one it cannot read
// becomes an empty object. What it leaves out is named, never a value.
func TestCopyContentUserKeepsOnlyHarmless(t *testing.T) {
	const src = "/home/a/.claude/settings.json"
	utf16le := func(s string) string {
		b := []byte{0xff, 0xfe}
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, in, want string
		leftOut        []string
	}{
		{
			"secrets in env and helpers",
			`{"env":{"GITHUB_TOKEN":"s","AWS_BEARER_TOKEN_BEDROCK":"s","ANTHROPIC_CUSTOM_HEADERS":"X: s","ANTHROPIC_MODEL":"m","GOPROXY":"https://u:s@p"},` +
				`"apiKeyHelper":"s","awsAuthRefresh":"s","awsCredentialExport":"s","gcpAuthRefresh":"s","otelHeadersHelper":"s","proxyAuthHelper":"s",` +
				`"hooks":{"Stop":[]},"permissions":{"allow":["Bash(ls)"]},"enabledPlugins":{"p@m":true},"somethingNew":1}`,
			`{"enabledPlugins":{"p@m":true},"env":{"ANTHROPIC_MODEL":"m"},"hooks":{"Stop":[]},"permissions":{"allow":["Bash(ls)"]}}`,
			[]string{"apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "env.AWS_BEARER_TOKEN_BEDROCK", "env.GITHUB_TOKEN", "env.GOPROXY", "gcpAuthRefresh", "otelHeadersHelper", "proxyAuthHelper", "somethingNew"},
		},
		{
			"hooks holding a credential",
			`{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://hooks.example.com/T0/s","headers":{"Authorization":"Bearer s"}},{"type":"command","command":"make fmt"}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"mcp_tool","server":"x","tool":"y","input":{"token":"s"}}]}]}}`,
			`{"hooks":{"PreToolUse":[{"hooks":[],"matcher":"Bash"}],"Stop":[{"hooks":[{"command":"make fmt","type":"command"}]}]}}`,
			[]string{"hooks.PreToolUse (mcp_tool hook)", "hooks.Stop (http hook)"},
		},
		{"hooks of another shape", `{"hooks":{"Stop":"s"}}`, `{}`, []string{"hooks"}},
		{"byte order mark", "\ufeff" + `{"env":{"ANTHROPIC_API_KEY":"s","API_TIMEOUT_MS":"1"}}`, `{"env":{"API_TIMEOUT_MS":"1"}}`, nil},
		{"UTF-16LE", utf16le("\ufeff" + `{"env":{"ANTHROPIC_API_KEY":"s","API_TIMEOUT_MS":"1"}}`), `{"env":{"API_TIMEOUT_MS":"1"}}`, nil},
		{"later duplicate wins", `{"env":{"API_TIMEOUT_MS":"1"},"env":{"GITHUB_TOKEN":"s"}}`, `{"env":{}}`, []string{"env.GITHUB_TOKEN"}},
		{"a key's case is its own", `{"Env":{"GITHUB_TOKEN":"s"},"ENV":{"x":"s"}}`, `{}`, []string{"ENV", "Env"}},
		{"env not an object", `{"env":"GITHUB_TOKEN=s","model":"m"}`, `{"model":"m"}`, []string{"env"}},
		{"not JSON", `{"apiKeyHelper":"s",}`, `{}`, []string{unreadable}},
		{"an array", `["s"]`, `{}`, []string{unreadable}},
		{"two byte order marks", "\ufeff\ufeff{}", `{}`, []string{unreadable}},
		{"empty", ``, `{}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, leftOut := CopyContent(src, "/home/a", []byte(tc.in))
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("the copy is not JSON: %v: %s", err, out)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("copy %s, want %s", out, tc.want)
			}
			if !slices.Equal(leftOut, tc.leftOut) {
				t.Errorf("left out %q, want %q", leftOut, tc.leftOut)
			}
		})
	}
	// The host side reads the API variables through a byte order mark.
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("\ufeff"+`{"env":{"ANTHROPIC_API_KEY":"k"},"sandbox":{"network":{"allowedDomains":["a.org"]}}}`), 0o600)
	if got := APIEnv(home); !slices.Equal(got, []string{"ANTHROPIC_API_KEY=k"}) {
		t.Errorf("APIEnv = %q", got)
	}
	if allowed, _, _ := NetworkDomains(home); !slices.Equal(allowed, []string{"a.org"}) {
		t.Errorf("NetworkDomains = %q", allowed)
	}
}

package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
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
			out := CopyContent(tc.src, []byte(tc.in))
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
	for _, src := range []string{"/home/a/.claude/settings.json", "/p/.claude/settings.local.json"} {
		var got struct {
			Env   map[string]string
			Model string
		}
		if err := json.Unmarshal(CopyContent(src, []byte(in)), &got); err != nil || len(got.Env) != 1 || got.Env["FOO"] != "1" || got.Model != "opus" {
			t.Errorf("%s: copy %+v, %v", src, got, err)
		}
	}
	if out := CopyContent("/p/.claude/settings.json", []byte(`{"env":{"FOO":"1"}}`)); string(out) != `{"env":{"FOO":"1"}}` {
		t.Errorf("a file without API variables changed: %s", out)
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(in), 0o600)
	if got := APIEnv(home); !slices.Equal(got, []string{"ANTHROPIC_BASE_URL=https://gw", "ANTHROPIC_API_KEY=sk-real", "ANTHROPIC_AUTH_TOKEN=b", "CLAUDE_CODE_OAUTH_TOKEN=t"}) {
		t.Errorf("APIEnv = %q", got)
	}
}

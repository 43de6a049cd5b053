package mount

import (
	"encoding/json"
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

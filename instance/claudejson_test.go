package instance

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMergeClaudeJSON(t *testing.T) {
	trust := []string{"/code/app/sub", "/code/app", "/code", "/"}
	host := `{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark",
		"mcpServers":{"gh":{"env":{"TOKEN":"secret"}}},
		"projects":{"/code/app":{"hasTrustDialogAccepted":true,"history":["x"]},"/other":{"hasTrustDialogAccepted":true}}}`
	for _, c := range []struct {
		name, host, sandbox string
		want                string // "" when unchanged
	}{
		{"fresh copy: identity and this path's trust, no MCP servers or other projects", host, "",
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`},
		{"already says it all", host,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`, ""},
		{"the sandbox's own keys and projects stay; identity refreshed", host,
			`{"theme":"light","numStartups":7,"projects":{"/code/app":{"allowedTools":["Bash"]}}}`,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","numStartups":7,"projects":{"/code/app":{"allowedTools":["Bash"],"hasTrustDialogAccepted":true}}}`},
		{"a host file that does not parse contributes nothing", `{not json`, `{"numStartups":1}`, ""},
		{"a sandbox copy that does not parse starts afresh", `{}`, `[1,2`, `{}`},
		{"a sandbox copy that is null starts afresh", `{"theme":"dark"}`, `null`, `{"theme":"dark"}`},
		{"a sandbox projects value of the wrong type is replaced", host,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":"x"}`,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`},
		{"no trust on the host: none copied", `{"projects":{"/code/app":{"hasTrustDialogAccepted":false}}}`, `{}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, changed, err := MergeClaudeJSON([]byte(c.host), []byte(c.sandbox), trust)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if changed || string(out) != c.sandbox {
					t.Fatalf("changed = %v, out = %s; want the sandbox copy unchanged", changed, out)
				}
				return
			}
			if !changed {
				t.Fatalf("changed = false, out = %s", out)
			}
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("out does not parse: %v\n%s", err, out)
			}
			json.Unmarshal([]byte(c.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("out = %s\nwant %s", out, c.want)
			}
		})
	}
}

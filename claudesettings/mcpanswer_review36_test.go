package claudesettings

import "testing"

// TestMCPAnswerChanged: Claude Code's answer to a project's MCP servers,
// as its dialog saves it, is told from other changes of the settings and
// from the same answer written otherwise.
func TestMCPAnswerChanged(t *testing.T) {
	for _, c := range []struct {
		before, after string
		want          bool
	}{
		{`{}`, `{"enabledMcpjsonServers": ["local"]}`, true},
		{``, `{"disabledMcpjsonServers": ["local"]}`, true},
		{`{"enabledMcpjsonServers": ["a"]}`, `{"enabledMcpjsonServers": ["a"], "enableAllProjectMcpServers": true}`, true},
		{`{"enabledMcpjsonServers": ["a"]}`, `{"enabledMcpjsonServers":["a"],"permissions":{"allow":["Bash(ls)"]}}`, false},
		{`{"enabledMcpjsonServers": ["a"]}`, `not json`, false},
		{`{}`, `{"model": "opus"}`, false},
	} {
		if got := MCPAnswerChanged([]byte(c.before), []byte(c.after)); got != c.want {
			t.Errorf("%s -> %s: %v, want %v", c.before, c.after, got, c.want)
		}
	}
}

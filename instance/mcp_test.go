package instance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// HostMCPServers offers the user's servers and the nearest project
// entry's, the local one winning a name; a definition that is not an
// object, or whose name claude mcp add would refuse, is not offered.
func TestHostMCPServers(t *testing.T) {
	host := filepath.Join(t.TempDir(), ".claude.json")
	os.WriteFile(host, []byte(`{"mcpServers":{"u":{"command":"user"},"both":{"command":"user"},"bad name":{"command":"x"},"s":"str"},
"projects":{"/p":{"mcpServers":{"both":{"command":"local"},"l":{"command":"local"}}},"/p/sub":{"allowedTools":[]},"/":{"mcpServers":{"far":{}}}}}`), 0o600)
	got, err := HostMCPServers(host, []string{"/p/sub/dir", "/p/sub", "/p", "/"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"u": json.RawMessage(`{"command":"user"}`), "both": json.RawMessage(`{"command":"local"}`), "l": json.RawMessage(`{"command":"local"}`)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("offered %s, want %s", got, want)
	}
	trust := []string{"/p/sub/dir", "/p/sub", "/p", "/"}
	read, err := ReadHostClaudeJSON(host, t.TempDir(), trust)
	if names := read.MCPNames(trust); err != nil || !reflect.DeepEqual(names, []string{"both", "l", "u"}) {
		t.Errorf("offered names %q, %v", names, err)
	}
	if got, err := HostMCPServers(host+".absent", nil); err != nil || got != nil {
		t.Errorf("absent file: %v, %v", got, err)
	}
}

// The sandbox's user-scope servers are exactly the carried ones: a server
// no longer carried leaves, with its token.
func TestMergeClaudeJSONServers(t *testing.T) {
	c := carried{MCP: map[string]json.RawMessage{"a": json.RawMessage(`{"command":"x","env":{"T":"secret"}}`)}}
	out, changed, err := mergeClaudeJSON(c, []byte(`{"mcpServers":{"inside":{}},"numStartups":3}`), nil)
	if err != nil || !changed || string(out) != `{"mcpServers":{"a":{"command":"x","env":{"T":"secret"}}},"numStartups":3}`+"\n" {
		t.Fatalf("%s %v %v", out, changed, err)
	}
	out, changed, err = mergeClaudeJSON(carried{}, out, nil)
	if err != nil || !changed || string(out) != `{"numStartups":3}`+"\n" {
		t.Fatalf("no longer carried: %s %v %v", out, changed, err)
	}
}

// BenchmarkHostMCPServers is what a launch that carries MCP servers adds:
// the whole host file read and scanned. BenchmarkOfferedMCPNames is what
// every launch adds to name those left out, from the record.
func BenchmarkHostMCPServers(b *testing.B) {
	host := filepath.Join(b.TempDir(), ".claude.json")
	os.WriteFile(host, hostClaudeJSON(25_000_000), 0o600)
	for b.Loop() {
		if _, err := HostMCPServers(host, []string{"/home/u/proj", "/home/u", "/"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOfferedMCPNames(b *testing.B) {
	base := b.TempDir()
	host, state, inst := filepath.Join(base, ".claude.json"), filepath.Join(base, "state"), filepath.Join(base, "inst")
	os.WriteFile(host, hostClaudeJSON(25_000_000), 0o600)
	os.MkdirAll(inst, 0o700)
	trust := []string{"/home/u/proj", "/home/u", "/"}
	if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, trust, KeyAlias{}, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		read, err := ReadHostClaudeJSON(host, state, trust)
		if err != nil {
			b.Fatal(err)
		}
		read.MCPNames(trust)
	}
}

package instance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// MCPServers offers the user's servers and the nearest project entry's,
// the local one winning a name; a definition that is not an object, or
// whose name claude mcp add would refuse, is not offered. So it does
// whether the launch read the host file or its record.
func TestHostMCPServers(t *testing.T) {
	host, state := filepath.Join(t.TempDir(), ".claude.json"), t.TempDir()
	os.WriteFile(host, []byte(`{"mcpServers":{"u":{"command":"user"},"both":{"command":"user"},"bad name":{"command":"x"},"s":"str"},
"projects":{"/p":{"mcpServers":{"both":{"command":"local"},"l":{"command":"local"}}},"/p/sub":{"allowedTools":[]},"/":{"mcpServers":{"far":{}}}}}`), 0o600)
	trust := []string{"/p/sub/dir", "/p/sub", "/p", "/"}
	want := map[string]json.RawMessage{"u": json.RawMessage(`{"command":"user"}`), "both": json.RawMessage(`{"command":"local"}`), "l": json.RawMessage(`{"command":"local"}`)}
	for _, from := range []string{"the file", "the record"} {
		read, err := ReadHostClaudeJSON(host, state, trust)
		if err != nil {
			t.Fatal(err)
		}
		if names := read.MCPNames(trust); !reflect.DeepEqual(names, []string{"both", "l", "u"}) {
			t.Errorf("from %s, offered names %q", from, names)
		}
		if got, err := read.MCPServers(trust); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("from %s, offered %s (%v), want %s", from, got, err, want)
		}
		if err := SyncClaudeJSON(read, t.TempDir(), trust, KeyAlias{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	absent, err := ReadHostClaudeJSON(host+".absent", t.TempDir(), nil)
	if got, gerr := absent.MCPServers(nil); err != nil || gerr != nil || got != nil {
		t.Errorf("absent file: %v, %v %v", got, err, gerr)
	}
}

// TestMCPServersReadOnce: a launch that carries MCP servers takes their
// definitions from the one read of the host's ~/.claude.json that gave it
// their names (the host's claude rewrites the file at every start, so
// beside it that read is the file's, every time); a second read cost
// another walk of the whole file, 1.8 MB in BenchmarkUserSetupPrint's
// home, on the launch's path, and could offer what the names did not say.
func TestMCPServersReadOnce(t *testing.T) {
	host := filepath.Join(t.TempDir(), ".claude.json")
	os.WriteFile(host, []byte(`{"mcpServers":{"notes":{"command":"first"}}}`), 0o600)
	trust := []string{"/p", "/"}
	read, err := ReadHostClaudeJSON(host, t.TempDir(), trust)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(host, []byte(`{"mcpServers":{"notes":{"command":"second"}}}`), 0o600)
	got, err := read.MCPServers(trust)
	if want := `{"command":"first"}`; err != nil || string(got["notes"]) != want {
		t.Errorf("offered %s (%v), want the definition read with the names, %s", got, err, want)
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
		if _, err := (HostClaudeJSON{path: host}).MCPServers([]string{"/home/u/proj", "/home/u", "/"}); err != nil {
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

package instance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		{
			"fresh copy: identity and this path's trust, no MCP servers or other projects", host, "",
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`,
		},
		{
			"already says it all", host,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`, "",
		},
		{
			"the sandbox's own keys and projects stay; identity refreshed", host,
			`{"theme":"light","numStartups":7,"projects":{"/code/app":{"allowedTools":["Bash"]}}}`,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","numStartups":7,"projects":{"/code/app":{"allowedTools":["Bash"],"hasTrustDialogAccepted":true}}}`,
		},
		{"a host file that does not parse contributes nothing", `{not json`, `{"numStartups":1}`, ""},
		{"a sandbox copy that does not parse starts afresh", `{}`, `[1,2`, `{}`},
		{"a sandbox copy that is null starts afresh", `{"theme":"dark"}`, `null`, `{"theme":"dark"}`},
		{
			"a sandbox projects value of the wrong type is replaced", host,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":"x"}`,
			`{"hasCompletedOnboarding":true,"oauthAccount":{"email":"a@b"},"theme":"dark","projects":{"/code/app":{"hasTrustDialogAccepted":true}}}`,
		},
		{"no trust on the host: none copied", `{"projects":{"/code/app":{"hasTrustDialogAccepted":false}}}`, `{}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys, trusted := carriedKeys([]byte(c.host), trust)
			out, changed, err := mergeClaudeJSON(carried{Keys: keys, Trusted: trusted}, []byte(c.sandbox), trust)
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

// hostClaudeJSON makes a ~/.claude.json of about size bytes, a heavy
// user's: many projects, each with a prompt history, half of them trusted,
// and /home/u/proj trusted last.
func hostClaudeJSON(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"numStartups": 412, "theme": "dark", "hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.330", "userID": "abc123", "oauthAccount": {"accountUuid": "u", "emailAddress": "a@example.com"}, "mcpServers": {"x": {"command": "x", "env": {"TOKEN": "secret"}}}, "projects": {`)
	for i := 0; b.Len() < size-200; i++ {
		fmt.Fprintf(&b, `"/home/u/p%d": {"allowedTools": [], "history": [{"display": "%s", "pastedContents": {}}], "hasTrustDialogAccepted": %v, "lastCost": 0.25},`, i, strings.Repeat(`fix the tests \"now\" {[`, 20), i%2 == 0)
	}
	b.WriteString(`"/home/u/pro\u006a": {"hasTrustDialogAccepted": true}}}`)
	return []byte(b.String())
}

// TestCarriedKeys: the scanner that skips what is not carried picks the
// same keys and trusted paths as a full parse.
func TestCarriedKeys(t *testing.T) {
	host := hostClaudeJSON(20_000)
	var paths []string
	for i := range 100 {
		paths = append(paths, fmt.Sprintf("/home/u/p%d", i))
	}
	paths = append(paths, "/home/u/proj", "/elsewhere")
	keys, trustedMap := carriedKeys(host, paths)
	var full struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(host, &full); err != nil || json.Unmarshal(host, &all) != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if trustedMap[p] != full.Projects[p].HasTrustDialogAccepted {
			t.Errorf("%s: trusted %v, want %v", p, trustedMap[p], full.Projects[p].HasTrustDialogAccepted)
		}
	}
	if !trustedMap["/home/u/proj"] {
		t.Error("/home/u/proj, written with an escape, not trusted")
	}
	for _, k := range identityKeys {
		if _, ok := all[k]; ok && !jsonEqual(keys[k], all[k]) {
			t.Errorf("%s: %s, want %s", k, keys[k], all[k])
		}
	}
	if _, ok := keys["mcpServers"]; ok {
		t.Error("mcpServers carried")
	}
	for _, bad := range []string{`{"theme": "dark"`, `[1]`, `{"theme": "dark", "projects": {"/a": {"hasTrustDialogAccepted": true}`, `{"a": "\`} {
		carriedKeys([]byte(bad), []string{"/a"}) // must return, whatever it finds
	}
}

// TestCarriedKeysProjectsMalformed: projects are walked where they stand,
// and one that turns out not to be an object to its end (a file cut or
// garbled) carries no project's trust, approvals or servers, not those of
// the entries before the fault; what follows it at the top still counts
// where its brackets close.
func TestCarriedKeysProjectsMalformed(t *testing.T) {
	for _, host := range []string{
		`{"projects": {"/a": {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true, "mcpServers": {"s": {"command": "x"}}}, "/b" {}}, "theme": "dark"}`,
		`{"projects": {"/a": {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true, "mcpServers": {"s": {"command": "x"}}} "/b": {}}, "theme": "dark"}`,
	} {
		s := scanClaudeJSON([]byte(host), []string{"/a", "/b"})
		if s.trusted["/a"] || s.imports["/a"] || s.local["/a"] != nil {
			t.Errorf("%s: /a carried from a projects object that does not parse: %v %v %v", host, s.trusted, s.imports, s.local)
		}
		if string(s.keys["theme"]) != `"dark"` {
			t.Errorf("%s: theme %s, want the key after projects", host, s.keys["theme"])
		}
	}
}

// TestSyncClaudeJSONReadsHostOnlyWhenChanged: while the host file is the
// one recorded, its keys come from the record (edited here to tell), not
// from the file; once it changes, from the file. The sandbox copy gets them
// either way, even after the sandbox deleted them.
func TestSyncClaudeJSONReadsHostOnlyWhenChanged(t *testing.T) {
	base := t.TempDir()
	host, state, inst := filepath.Join(base, ".claude.json"), filepath.Join(base, "state"), filepath.Join(base, "inst")
	os.MkdirAll(inst, 0o700)
	write := func(theme string) {
		if err := os.WriteFile(host, []byte(`{"theme": "`+theme+`", "projects": {"/w": {"hasTrustDialogAccepted": true}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	theme := func() string {
		b, _ := os.ReadFile(filepath.Join(inst, ClaudeJSONFile))
		var s struct{ Theme string }
		json.Unmarshal(b, &s)
		return s.Theme
	}
	sync := func() {
		if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, []string{"/w", "/"}, KeyAlias{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	write("dark")
	sync()
	if theme() != "dark" {
		t.Fatalf("theme %q after the first launch", theme())
	}
	record, _ := os.ReadFile(filepath.Join(state, carriedFile))
	os.WriteFile(filepath.Join(state, carriedFile), []byte(strings.Replace(string(record), `"dark"`, `"recorded"`, 1)), 0o600)
	os.Remove(filepath.Join(inst, ClaudeJSONFile))
	sync()
	if theme() != "recorded" {
		t.Fatalf("theme %q: the unchanged host file was read again", theme())
	}
	write("light")
	sync()
	if theme() != "light" {
		t.Fatalf("theme %q after the host file changed", theme())
	}
	b, _ := os.ReadFile(filepath.Join(inst, ClaudeJSONFile))
	if !strings.Contains(string(b), `"/w"`) {
		t.Errorf("trust not carried: %s", b)
	}
}

func BenchmarkSyncClaudeJSON(b *testing.B) {
	for _, size := range []int{100, 2_500_000, 25_000_000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			base := b.TempDir()
			host, state, inst := filepath.Join(base, ".claude.json"), filepath.Join(base, "state"), filepath.Join(base, "inst")
			os.WriteFile(host, hostClaudeJSON(size), 0o600)
			os.MkdirAll(inst, 0o700)
			trust := []string{"/home/u/proj/sub", "/home/u/proj", "/home/u", "/home", "/"}
			if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, trust, KeyAlias{}, nil); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, trust, KeyAlias{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSyncClaudeJSONChanged is the launch after the host file changed:
// it is read, and what is carried picked out of it.
func BenchmarkSyncClaudeJSONChanged(b *testing.B) {
	for _, size := range []int{100, 2_500_000, 25_000_000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			base := b.TempDir()
			host, state, inst := filepath.Join(base, ".claude.json"), filepath.Join(base, "state"), filepath.Join(base, "inst")
			os.WriteFile(host, hostClaudeJSON(size), 0o600)
			os.MkdirAll(inst, 0o700)
			for b.Loop() {
				os.Remove(filepath.Join(state, carriedFile))
				if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, []string{"/home/u/proj", "/"}, KeyAlias{}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A phantom key is approved in the sandbox's copy exactly when the real
// key is approved on the host, by the last 20 characters as Claude Code
// records them; no other key's characters enter; the host's file is not
// changed.
func TestSyncClaudeJSONKeyAlias(t *testing.T) {
	const real, phantom = "sk-ant-api03-REAL-0123456789abcdefghij", "sk-ant-api03-ffff-claudebox-phantom00"
	for name, c := range map[string]struct {
		responses string
		approved  bool
	}{
		"approved":     {`{"approved":["0123456789abcdefghij"],"rejected":[]}`, true},
		"not approved": {`{"approved":["someone-elses-key-xx"],"rejected":["0123456789abcdefghij"]}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			host := filepath.Join(dir, "host.json")
			content := `{"hasCompletedOnboarding":true,"customApiKeyResponses":` + c.responses + `}`
			os.WriteFile(host, []byte(content), 0o600)
			inst := filepath.Join(dir, "inst")
			os.Mkdir(inst, 0o700)
			if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: filepath.Join(dir, "state")}, inst, []string{"/"}, KeyAlias{Real: real, Phantom: phantom}, nil); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(inst, ClaudeJSONFile))
			if got := strings.Contains(string(b), `"approved":["`+phantom[len(phantom)-20:]); got != c.approved {
				t.Errorf("phantom approved %v, want %v:\n%s", got, c.approved, b)
			}
			for _, other := range []string{"0123456789abcdefghij", "someone-elses-key-xx"} {
				if strings.Contains(string(b), other) {
					t.Errorf("the sandbox's copy holds %s, a real key's last characters:\n%s", other, b)
				}
			}
			if h, _ := os.ReadFile(host); string(h) != content {
				t.Errorf("the host's file changed: %s", h)
			}
		})
	}
}

// TestSyncClaudeJSONGrownBySandbox: the sandbox writes its claude.json,
// which each launch decodes and writes again: 16 MiB of short keys held
// every launch 30 s and 320 MiB. One over claudeJSONLimit is started
// afresh, unread.
func TestSyncClaudeJSONGrownBySandbox(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "host.json")
	os.WriteFile(host, []byte(`{"hasCompletedOnboarding":true}`), 0o600)
	inst := filepath.Join(dir, "inst")
	os.Mkdir(inst, 0o700)
	var grown strings.Builder
	grown.WriteString(`{"planted":0`)
	for i := 0; grown.Len() < 6<<20; i++ {
		fmt.Fprintf(&grown, `,"%x":[]`, i)
	}
	grown.WriteString("}")
	os.WriteFile(filepath.Join(inst, ClaudeJSONFile), []byte(grown.String()), 0o600)
	if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: filepath.Join(dir, "state")}, inst, []string{"/"}, KeyAlias{}, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(inst, ClaudeJSONFile))
	if strings.Contains(string(b), "planted") || len(b) > 4096 {
		t.Errorf("a claude.json of 6 MiB the sandbox grew was read and kept (%d bytes now)", len(b))
	}
	if !strings.Contains(string(b), `"hasCompletedOnboarding":true`) {
		t.Errorf("the copy started afresh lacks the carried keys:\n%s", b)
	}
}

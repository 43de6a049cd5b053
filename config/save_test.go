package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/instance"
)

// TestSaveAllowHosts: --save adds to the top-level allow-hosts of the
// user's config.toml, normalised and once, keeping comments, other keys
// and tables byte for byte; with none there, a line goes at the top; a
// file it cannot edit in place is left untouched, with an error.
func TestSaveAllowHosts(t *testing.T) {
	cases := []struct{ name, before, after string }{
		{"none", "", "allow-hosts = [\"example.com\"]\n"},
		{
			"no key", "# mine\nnetwork = \"filtered\"\n[project.\"/p\"]\nallow-hosts = [\"x.org\"]\n",
			"allow-hosts = [\"example.com\"]\n# mine\nnetwork = \"filtered\"\n[project.\"/p\"]\nallow-hosts = [\"x.org\"]\n",
		},
		{
			"key", "# mine\nallow-hosts = [ # a comment\n  \"x.org\",\n]\nwith-ssh = true\n",
			"# mine\nallow-hosts = [\"example.com\",  # a comment\n  \"x.org\",\n]\nwith-ssh = true\n",
		},
		{"empty", "allow-hosts = []\n", "allow-hosts = [\"example.com\", ]\n"},
		{"already", "allow-hosts = [\"example.com\"]\n", "allow-hosts = [\"example.com\"]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", "")
			path := UserConfigPath(home)
			if c.before != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(c.before), 0o640)
			}
			if _, err := SaveAllowHosts(home, []string{"EXAMPLE.com."}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != c.after {
				t.Errorf("got:\n%s\nwant:\n%s", b, c.after)
			}
			if fi, err := os.Stat(path); c.before != "" && (err != nil || fi.Mode().Perm() != 0o640) {
				t.Errorf("mode: %v %v", fi.Mode(), err)
			}
		})
	}
	t.Run("cannot edit", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", "")
		path := UserConfigPath(home)
		os.MkdirAll(filepath.Dir(path), 0o755)
		before := "\"allow-hosts\" = [\"x.org\"]\n"
		os.WriteFile(path, []byte(before), 0o644)
		if _, err := SaveAllowHosts(home, []string{"example.com"}); err == nil || !strings.Contains(err.Error(), "without rewriting") {
			t.Errorf("err = %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != before {
			t.Errorf("the file changed:\n%s", b)
		}
	})
	t.Run("bad entry", func(t *testing.T) {
		if _, err := SaveAllowHosts(t.TempDir(), []string{"*.10.0.0"}); err == nil {
			t.Error("a bad entry was saved")
		}
	})
}

// TestClaudeNetworkDomains: the domain lists of Claude Code's own sandbox
// in the user's ~/.claude/settings.json start the allow list (an entry
// this network cannot read is left out) and add to the deny list; the
// project's .claude/settings.json is not read for them, and needs no
// approval because it adds nothing; a denied entry that cannot be read is
// an error naming the file.
func TestClaudeNetworkDomains(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	settings := filepath.Join(home, ".claude", "settings.json")
	os.WriteFile(settings, []byte(`{"sandbox":{"network":{"allowedDomains":["mine.example","*.docs.example","bad host"],"deniedDomains":["github.com"]}}}`), 0o644)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"sandbox":{"network":{"allowedDomains":["theirs.example"]}}}`), 0o644)
	project := instance.Project{Root: proj, Checkout: proj}
	l, err := Load(home, project, Settings{}, proj, bind.StateDirs(home, nil))
	if err != nil {
		t.Fatal(err)
	}
	var allow, deny []string
	for _, r := range l.Hosts.Allow {
		allow = append(allow, r.String())
	}
	for _, r := range l.Hosts.Deny {
		deny = append(deny, r.String())
	}
	if !slices.Contains(allow, "mine.example") || !slices.Contains(allow, "*.docs.example") || slices.Contains(allow, "theirs.example") || !slices.Equal(deny, []string{"github.com"}) {
		t.Errorf("allow %v, deny %v", allow, deny)
	}
	if len(l.Additions(environment.Env{})) != 0 {
		t.Errorf("the user's own lists wait for approval: %v", l.Additions(environment.Env{}))
	}
	os.WriteFile(settings, []byte(`{"sandbox":{"network":{"deniedDomains":["*.10.0.0"]}}}`), 0o644)
	if _, err := Load(home, project, Settings{}, proj, bind.StateDirs(home, nil)); err == nil || !strings.Contains(err.Error(), settings) {
		t.Errorf("an unreadable denied entry: %v", err)
	}
}

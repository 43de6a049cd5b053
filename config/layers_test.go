package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
)

// readLayers reads the files as they are on disk: the user's config (a
// link followed), the repository's (a link refused, its target never
// quoted), the user's table for this project, and the bash-era env files,
// in that order of precedence; a stand-in a session left is no file.
func TestReadLayers(t *testing.T) {
	type want struct {
		layers []string // from, own, legacy, what it says
		err    string
		hint   string
	}
	for _, c := range []struct {
		name  string
		files map[string]string // relative to home; "->x" makes a link to x, "000" a stand-in
		want  want
	}{
		{"no files", nil, want{layers: []string{"U own"}}},
		{"user and repository", map[string]string{
			".config/claudebox/config.toml": "ro-bind = [\"~/data\"]\nwith-ssh = true\n",
			"proj/.claudebox.toml":          "bind = [\"fixtures\"]\nno-network = true\nenv = [\"REGION=eu\"]\n",
		}, want{layers: []string{"U own ro[~/data] ssh=true", "R bind[fixtures] env[REGION=eu] net=true"}}},
		{"the user's table for the project comes last", map[string]string{
			".config/claudebox/config.toml": "with-ssh = true\n[project.\"~/proj\"]\nwith-ssh = false\n[project.\"/elsewhere\"]\nno-network = true\n",
			"proj/.claudebox.toml":          "with-ssh = true\n",
		}, want{layers: []string{"U own ssh=true", "R ssh=true", `U [project."~/proj"] own ssh=false`}}},
		{"a table names the project through a link", map[string]string{
			"link":                          "->proj",
			".config/claudebox/config.toml": "[project.\"~/link\"]\nmove-aside = false\n",
		}, want{layers: []string{"U own", `U [project."~/link"] own move-aside=false`}}},
		{"a table for a relative path", map[string]string{
			".config/claudebox/config.toml": "[project.\"code/app\"]\nwith-ssh = true\n",
		}, want{err: `config.toml: [project."code/app"]: not an absolute path`, hint: `[project."~/code/app"]`}},
		{"the user's file may be a link", map[string]string{
			"dotfiles/claudebox.toml":       "no-network = true\n",
			".config/claudebox/config.toml": "->" + "../../dotfiles/claudebox.toml",
		}, want{layers: []string{"U own net=true"}}},
		{"the repository's may not", map[string]string{
			"secret":               "TOKEN = \"hunter2\"\n",
			"proj/.claudebox.toml": "->../secret",
		}, want{err: "proj/.claudebox.toml is a symlink", hint: "replace the link"}},
		{"a stand-in is no file", map[string]string{"proj/.claudebox.toml": "000"}, want{layers: []string{"U own"}}},
		{
			"an unknown key",
			map[string]string{"proj/.claudebox.toml": "with-ssh = true\nssh = true\n"},
			want{err: "proj/.claudebox.toml:2: unknown key ssh", hint: "the keys are bind, ro-bind"},
		},
		{
			"an unknown key in a project table",
			map[string]string{".config/claudebox/config.toml": "[project.\"/x\"]\nbinds = []\n"},
			want{err: "config.toml:2: unknown key project./x.binds", hint: "the keys are"},
		},
		{
			"an unknown key is quoted escaped",
			map[string]string{"proj/.claudebox.toml": "\"a\\u001b[2Kb\" = 1\n"},
			want{err: `proj/.claudebox.toml:1: unknown key a\x1b[2Kb`, hint: "the keys are"},
		},
		{
			"a wrong type",
			map[string]string{"proj/.claudebox.toml": "\nwith-ssh = \"yes\"\n"},
			want{err: "proj/.claudebox.toml:2: with-ssh must be true or false", hint: "Configuration section"},
		},
		{
			"a string for a list",
			map[string]string{"proj/.claudebox.toml": "bind = \"/srv\"\n"},
			want{err: "proj/.claudebox.toml:1: bind must be a list of strings", hint: "Configuration section"},
		},
		{
			"not TOML",
			map[string]string{".config/claudebox/config.toml": "with-ssh = \n"},
			want{err: "config.toml:1: ", hint: "Configuration section"},
		},
		{"the bash-era env files", map[string]string{
			".claudebox/env":       "A=1\n",
			"proj/.claudebox.env":  "# comment\nB\n",
			"proj/.claudebox.toml": "env = [\"C\"]\n",
		}, want{layers: []string{"H/.claudebox/env legacy[A=1]", "U own", "P/.claudebox.env legacy[B=]", "R env[C]"}}},
		{"an empty env file is no layer", map[string]string{"proj/.claudebox.env": "# nothing\n"}, want{layers: []string{"U own"}}},
		{
			"a repository's env file may not be a link",
			map[string]string{"secret": "A=1\n", "proj/.claudebox.env": "->../secret"},
			want{err: "proj/.claudebox.env is a symlink", hint: "replace the link"},
		},
		{
			"the user's env file may",
			map[string]string{"dotfiles/env": "A=1\n", ".claudebox/env": "->../dotfiles/env"},
			want{layers: []string{"H/.claudebox/env legacy[A=1]", "U own"}},
		},
		{
			"a malformed env line",
			map[string]string{"proj/.claudebox.env": "A=1\nnot a name\n"},
			want{err: `proj/.claudebox.env:2: "not a name" is not NAME or NAME=VALUE`, hint: "NAME, or NAME=VALUE"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", "")
			proj := filepath.Join(home, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			for rel, content := range c.files {
				path := filepath.Join(home, rel)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				switch {
				case strings.HasPrefix(content, "->"):
					err = os.Symlink(strings.TrimPrefix(content, "->"), path)
				case content == "000":
					err = os.WriteFile(path, nil, 0)
				default:
					err = os.WriteFile(path, []byte(content), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			layers, err := readLayers(home, instance.Project{Root: proj, Checkout: proj})
			if c.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.want.err) || !strings.Contains(hint.Of(err), c.want.hint) {
					t.Fatalf("err = %v (hint %q), want %q (hint %q)", err, hint.Of(err), c.want.err, c.want.hint)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the link's target is quoted: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range layers {
				got = append(got, describe(l, home))
				if l.from != "" && l.base != "" && l.base != proj {
					t.Errorf("%s: base %s, want the project", l.from, l.base)
				}
			}
			if !reflect.DeepEqual(got, c.want.layers) {
				t.Errorf("layers\n%q\nwant\n%q", got, c.want.layers)
			}
		})
	}
}

// describe is a layer in short: U is the user's config.toml, R the
// repository's .claudebox.toml, H and P home and the project.
func describe(l layer, home string) string {
	from := strings.NewReplacer(
		UserConfigPath(home), "U",
		filepath.Join(home, "proj", guard.ProjectConfigFile), "R",
		filepath.Join(home, "proj"), "P",
		home, "H",
	).Replace(l.from)
	s := []string{from}
	if l.own {
		s = append(s, "own")
	}
	if l.legacy != nil {
		s = append(s, "legacy["+entries(l.legacy.Entries)+"]")
	}
	for _, list := range []struct {
		key  string
		vals []string
	}{{"ro", l.RoBind}, {"bind", l.Bind}, {"env", l.Env}} {
		if len(list.vals) > 0 {
			s = append(s, list.key+"["+strings.Join(list.vals, " ")+"]")
		}
	}
	for _, b := range []struct {
		key string
		v   *bool
	}{{"ssh", l.WithSSH}, {"net", l.NoNetwork}, {"move-aside", l.MoveAside}} {
		if b.v != nil {
			s = append(s, b.key+"="+map[bool]string{true: "true", false: "false"}[*b.v])
		}
	}
	return strings.Join(s, " ")
}

// UserConfigPath honours an absolute $XDG_CONFIG_HOME only.
func TestUserConfigPath(t *testing.T) {
	for _, c := range []struct{ xdg, want string }{
		{"", "/h/.config/claudebox/config.toml"},
		{"/xdg", "/xdg/claudebox/config.toml"},
		{"rel", "/h/.config/claudebox/config.toml"},
	} {
		t.Setenv("XDG_CONFIG_HOME", c.xdg)
		if got := UserConfigPath("/h"); got != c.want {
			t.Errorf("XDG_CONFIG_HOME=%q: %s, want %s", c.xdg, got, c.want)
		}
	}
}

// Load: the command line has the last word, a bind that shows claudebox's
// state is refused with its hint whichever file asked for it, and the
// bash-era files read are listed for their notice.
func TestLoad(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	proj := filepath.Join(home, "proj")
	for _, d := range []string{proj, filepath.Join(home, ".claudebox"), filepath.Join(home, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".claudebox", "env"), []byte("A=1\n"), 0o644)
	os.WriteFile(filepath.Join(proj, guard.ProjectConfigFile), []byte("with-ssh = true\nro-bind = [\"~/data\"]\n"), 0o644)
	project := instance.Project{Root: proj, Checkout: proj}
	state := bind.StateDirs(home, nil)
	no := false
	l, err := Load(home, project, Settings{WithSSH: &no}, proj, state)
	if err != nil {
		t.Fatal(err)
	}
	if l.WithSSH || len(l.Binds) != 1 || l.Binds[0].Src != filepath.Join(home, "data") {
		t.Errorf("Load = ssh %v binds %+v", l.WithSSH, l.Binds)
	}
	if len(l.Legacy) != 1 || l.Legacy[0].Path != filepath.Join(home, ".claudebox", "env") {
		t.Errorf("Legacy = %+v", l.Legacy)
	}
	_, err = Load(home, project, Settings{RoBind: []string{"~/.claudebox"}}, proj, state)
	if err == nil || !strings.Contains(err.Error(), "--ro-bind "+filepath.Join(home, ".claudebox")+": it holds Claude Code's or claudebox's state") || hint.Of(err) != "bind the directory you need instead" {
		t.Errorf("a bind of the state: %v (hint %q)", err, hint.Of(err))
	}
}

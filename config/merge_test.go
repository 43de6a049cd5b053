package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/environment"
)

// merge: lists add up, a later layer replaces a bind at the same
// destination and a variable's value, the last with-ssh or no-network
// decides, and only what a repository's file has the last word on waits
// for approval.
func TestMerge(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	cwd := filepath.Join(proj, "sub")
	for _, d := range []string{filepath.Join(home, "data"), filepath.Join(proj, "fixtures"), filepath.Join(cwd, "fixtures")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	yes, no := true, false
	user := func(s Settings) layer { return layer{Settings: s, from: "config.toml", own: true, base: proj} }
	repo := func(s Settings) layer { return layer{Settings: s, from: ".claudebox.toml", base: proj} }
	flags := func(s Settings) layer { return layer{Settings: s, own: true} }
	type want struct {
		binds     []string // Flag (from)
		envFiles  []string // path: NAME=VALUE …
		envFlags  []string
		withSSH   bool
		noNetwork bool
		approval  []string // show
		skipped   []string
		err       string
	}
	for _, c := range []struct {
		name   string
		layers []layer
		want   want
	}{
		{"nothing", nil, want{}},
		{
			"the user's own need no approval",
			[]layer{user(Settings{RoBind: []string{"~/data"}, WithSSH: &yes, Env: []string{"A=1"}})},
			want{binds: []string{"--ro-bind " + home + "/data (config.toml)"}, envFiles: []string{"config.toml: A=1"}, withSSH: true},
		},
		{
			"a repository's wait, relative to the project",
			[]layer{repo(Settings{Bind: []string{"fixtures:/fx"}, WithSSH: &yes})},
			want{
				binds: []string{"--bind " + proj + "/fixtures:/fx (.claudebox.toml)"}, withSSH: true,
				approval: []string{"--bind " + proj + "/fixtures:/fx (from .claudebox.toml)", "--with-ssh (from .claudebox.toml)"},
			},
		},
		{
			"the command line is relative to the working directory",
			[]layer{flags(Settings{RoBind: []string{"fixtures"}})},
			want{binds: []string{"--ro-bind " + cwd + "/fixtures ()"}},
		},
		{
			"a later layer replaces a bind at the same destination",
			[]layer{
				user(Settings{RoBind: []string{"~/data:/d"}}), repo(Settings{Bind: []string{"~/data:/d"}}),
			},
			want{binds: []string{"--bind " + home + "/data:/d (.claudebox.toml)"}, approval: []string{"--bind " + home + "/data:/d (from .claudebox.toml)"}},
		},
		{
			"what the user also asks for needs no approval",
			[]layer{
				repo(Settings{RoBind: []string{"~/data:/d"}, WithSSH: &yes}), user(Settings{RoBind: []string{"~/data:/d"}, WithSSH: &yes}),
			},
			want{binds: []string{"--ro-bind " + home + "/data:/d (config.toml)"}, withSSH: true},
		},
		{
			"the last with-ssh and no-network decide",
			[]layer{
				repo(Settings{WithSSH: &yes, NoNetwork: &yes}), flags(Settings{WithSSH: &no, NoNetwork: &no}),
			},
			want{},
		},
		{
			"a repository's network over the user's no-network waits",
			[]layer{
				user(Settings{NoNetwork: &yes}), repo(Settings{NoNetwork: &no}),
			},
			want{approval: []string{"no-network = false (from .claudebox.toml)"}},
		},
		{
			"the user's own last word on the network needs none",
			[]layer{
				user(Settings{NoNetwork: &yes}), repo(Settings{NoNetwork: &no}), flags(Settings{NoNetwork: &no}),
			},
			want{},
		},
		{"a repository's no-network alone needs none", []layer{repo(Settings{NoNetwork: &yes})}, want{noNetwork: true}},
		{
			"a repository's network = \"host\" waits",
			[]layer{repo(Settings{Network: ptr(NetworkHost)})},
			want{approval: []string{`network = "host" (from .claudebox.toml)`}},
		},
		{"a repository's narrower network needs none", []layer{user(Settings{Network: ptr(NetworkHost)}), repo(Settings{Network: ptr(NetworkNone)})}, want{noNetwork: true}},
		{
			"a repository's hosts wait, its denials do not",
			[]layer{repo(Settings{AllowHosts: []string{"Example.COM.", "*.dev.test:8443"}, DenyHosts: []string{"github.com"}})},
			want{approval: []string{"allow-hosts example.com (from .claudebox.toml)", "allow-hosts *.dev.test:8443 (from .claudebox.toml)"}},
		},
		{"the user's hosts need none", []layer{user(Settings{AllowHosts: []string{"example.com"}})}, want{}},
		{
			"a malformed allow-hosts entry",
			[]layer{user(Settings{AllowHosts: []string{"github.com", "user@example.com"}})},
			want{err: `config.toml: allow-hosts: "user@example.com": not a host name (a character no host name holds: '@')`},
		},
		{
			"a malformed deny-hosts entry",
			[]layer{flags(Settings{DenyHosts: []string{"*.10.0.0"}})},
			want{err: `the command line: deny-hosts: "*.10.0.0": a wildcard covers names, not addresses`},
		},
		{
			"an unknown network",
			[]layer{repo(Settings{Network: ptr("open")})},
			want{err: `.claudebox.toml: network: "open" is not a network`},
		},
		{"--env stays the command line's", []layer{flags(Settings{Env: []string{"X", "Y=2"}})}, want{envFlags: []string{"X", "Y=2"}}},
		{
			"a malformed env entry",
			[]layer{repo(Settings{Env: []string{"1BAD=x"}})},
			want{err: `.claudebox.toml: env: "1BAD=x" is not NAME or NAME=VALUE`},
		},
		{
			"a malformed env entry is quoted short and escaped",
			[]layer{repo(Settings{Env: []string{"\x1b[2K" + strings.Repeat("x", 100)}})},
			want{err: `.claudebox.toml: env: "\x1b[2K` + strings.Repeat("x", 44) + `…" is not NAME or NAME=VALUE`},
		},
		{
			"a bind error names its file",
			[]layer{repo(Settings{RoBind: []string{":/x"}})},
			want{err: ".claudebox.toml: --ro-bind :/x: "},
		},
		{
			"a file's bind of a missing path is skipped, with a note",
			[]layer{user(Settings{Bind: []string{"~/missing"}})},
			want{skipped: []string{"--bind ~/missing (from config.toml): " + home + "/missing does not exist"}},
		},
		{
			"the command line's bind of a missing path is an error",
			[]layer{flags(Settings{Bind: []string{"~/missing"}})},
			want{err: "--bind ~/missing: "},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := merge(c.layers, home, cwd)
			if c.want.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.want.err) {
					t.Fatalf("err = %v, want %q…", err, c.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := want{envFlags: got.EnvFlags, withSSH: got.WithSSH, noNetwork: got.Network == NetworkNone, skipped: got.Skipped}
			for _, b := range got.Binds {
				g.binds = append(g.binds, b.Flag()+" ("+b.From+")")
			}
			for _, f := range got.EnvFiles {
				g.envFiles = append(g.envFiles, f.Path+": "+entries(f.Entries))
			}
			for _, a := range got.additions {
				g.approval = append(g.approval, a.Show)
			}
			if !reflect.DeepEqual(g, c.want) {
				t.Errorf("got  %+v\nwant %+v", g, c.want)
			}
		})
	}
}

func entries(es []environment.Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Name+"="+e.Value)
	}
	return strings.Join(s, " ")
}

func ptr[T any](v T) *T { return &v }

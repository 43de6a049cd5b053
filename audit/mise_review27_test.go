package audit

import (
	"slices"
	"testing"
)

func TestMiseReads(t *testing.T) {
	r := miseReads("mise.toml", `[env]
_.source = "./scripts/env.sh" # the team's
_.path = [
  "./bin",
  "{{config_root}}/tools",
]
_.file = ['.env.local']
BASH_ENV = "scripts/bashenv.sh"
_.python.venv = { path = ".venv", create = true }

[tools]
node = "path:./vendor/node"

[hooks]
enter = "source ./scripts/enter.sh"
`)
	for _, want := range []string{"scripts/env.sh", ".env.local", "scripts/enter.sh"} {
		if !slices.Contains(r.runs, want) {
			t.Errorf("runs %q lack %s", r.runs, want)
		}
	}
	for _, want := range []string{"bin", "tools", ".venv/bin", "vendor/node/bin"} {
		if !slices.Contains(r.dirs, want) {
			t.Errorf("dirs %q lack %s", r.dirs, want)
		}
	}
	if !slices.Contains(r.names, "scripts/bashenv.sh") || r.unspelled {
		t.Errorf("names %q, unspelled %v", r.names, r.unspelled)
	}
	for _, src := range []string{"[env]\n_.source = \"{{env.HOME}}/x.sh\"\n", "[env]\n_.path = \"$TOOLS/bin\"\n", "[env]\n_.myplugin = { x = 1 }\n", "[env._]\nsource = \"*.sh\"\n"} {
		if r := miseReads("mise.toml", src); !r.unspelled {
			t.Errorf("%q: not unspelled (%+v)", src, r)
		}
	}
	if r := miseReads(".tool-versions", "node 20.1.0\nruby path:./rb # local\n"); !slices.Equal(r.dirs, []string{"rb/bin"}) {
		t.Errorf(".tool-versions: dirs %q", r.dirs)
	}
	if r := miseReads("mise.toml", "[env]\nAPP_ENV = \"dev\"\n[tools]\nnode = \"20\"\n"); r.unspelled || len(r.runs)+len(r.dirs) != 0 {
		t.Errorf("a plain configuration: %+v", r)
	}
}

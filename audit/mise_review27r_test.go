package audit

import (
	"slices"
	"testing"
)

// TestMiseReadsEverySpelling: TOML spells one key many ways, and mise
// reads each as [env]'s _.path (a dotted key at the top, a quoted header,
// spaces about its dots, an inline table), as it reads [vars]' directives
// and the top's env_path, env_file and dotenv as [env]'s: each is judged
// as [env]'s own spelling is, or, where the audit cannot read it, taken
// for unspelled.
func TestMiseReadsEverySpelling(t *testing.T) {
	for _, src := range []string{
		"env._.path = [\"./bin\"]\n",
		"[\"env\"]\n_.path = [\"./bin\"]\n",
		"[ env ]\n_ . path = \"./bin\"\n",
		"[env]\n\"_\".\"path\" = \"./bin\"\n",
		"[tools]\nnode = \"20\"\n[env]\n_.path = \"./bin\"\n",
		"'env'._.path = \"./bin\"\n",
	} {
		if r := miseReads("mise.toml", src); !slices.Contains(r.dirs, "bin") {
			t.Errorf("%q: dirs %q lack bin", src, r.dirs)
		}
	}
	for _, src := range []string{
		"env = { _ = { path = \"./bin\" } }\n",
		"[env]\n_ = { path = [\"./bin\"] }\n",
		"env._ = { source = \"./x.sh\" }\n",
		"env = { APP = \"1\", \"_\" . path = \"./bin\" }\n",
	} {
		if r := miseReads("mise.toml", src); !slices.Contains(r.dirs, "bin") && !slices.Contains(r.runs, "x.sh") && !r.unspelled {
			t.Errorf("%q: neither read nor unspelled (%+v)", src, r)
		}
	}
	for _, src := range []string{"env_path = [\"./bin\"]\n", "[vars]\n_.path = \"./bin\"\n"} {
		if r := miseReads("mise.toml", src); !slices.Contains(r.dirs, "bin") {
			t.Errorf("%q: dirs %q lack bin", src, r.dirs)
		}
	}
	for _, src := range []string{"env_file = \"x.sh\"\n", "dotenv = \"x.sh\"\n", "[vars]\n_.source = \"./x.sh\"\n", "vars._.file = \"x.sh\"\n", "[settings]\nenv_file = \"x.sh\"\n"} {
		if r := miseReads("mise.toml", src); !slices.Contains(r.runs, "x.sh") {
			t.Errorf("%q: runs %q lack x.sh", src, r.runs)
		}
	}
	if r := miseReads("mise.toml", "hooks.enter = \"source ./scripts/enter.sh\"\n"); !slices.Contains(r.runs, "scripts/enter.sh") {
		t.Errorf("a dotted hook: runs %q", r.runs)
	}
	if r := miseReads("mise.toml", "[env]\nAPP_ENV = \"dev\"\n[tools]\nnode = \"20\"\n"); r.unspelled || len(r.runs)+len(r.dirs) != 0 {
		t.Errorf("a plain configuration: %+v", r)
	}
}

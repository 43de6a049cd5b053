package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShellTopLevel: what a direnvrc runs as direnv loads it is its text
// outside the functions it defines, in each shell's way to define one,
// a parameter's braces and quoted ones aside.
func TestShellTopLevel(t *testing.T) {
	src := "layout_go() {\n  PATH_add bin\n}\nfunction use_tools {\n  if true; then { PATH_add x; }; fi\n}\nuse_y(){ source_env y; }\n" +
		"source_env_if_exists \"${CONF:-config}/local\" # { not a block\nexport A='{'\nPATH_add tools\n[ -f a ] && { dotenv .env.team; }\n"
	top := shellTopLevel(src)
	for _, want := range []string{"source_env_if_exists \"${CONF:-config}/local\"", "export A='{'", "PATH_add tools"} {
		if !strings.Contains(top, want) {
			t.Errorf("top level lacks %q:\n%s", want, top)
		}
	}
	for _, not := range []string{"PATH_add bin", "PATH_add x", "source_env y", "dotenv .env.team"} {
		if strings.Contains(top, not) {
			t.Errorf("top level holds %q:\n%s", not, top)
		}
	}
}

// TestEnvrcSourcesHomeAndAbsolute: a source by the project's absolute
// path, or by $HOME/, is the file below the root it names; one outside
// the project is no name of it, nor one the audit cannot spell.
func TestEnvrcSourcesHomeAndAbsolute(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := filepath.Join(home, "proj")
	must(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
	envrc := "source_env " + filepath.Join(root, "scripts", "abs.sh") + "\nsource_env_if_exists \"$HOME/proj/scripts/home.sh\"\nsource_env ~/.config/shared.sh\nPATH_add ${HOME}/proj/tools\n"
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte(envrc), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, f := range []string{"scripts/abs.sh", "scripts/home.sh", "tools/git"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, f), []byte("touch x\n"), 0o644))
	}
	r := Scan(root, since, nil, start, nil)
	if got, want := foundBelow(t, root, r), []string{"scripts/abs.sh", "scripts/home.sh", "tools/git"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	if len(r.IncludesUnspelled) != 0 {
		t.Errorf("unspelled: %q", r.IncludesUnspelled)
	}
}

// TestNixPathsJoined: a path joined from the directory and a string, and
// what builtins.path and lib.fileset take, are read as code; data is not.
func TestNixPathsJoined(t *testing.T) {
	src := `let
  hook = import (./. + "/nix/hook.nix");
  other = import (self + "/nix/other.nix");
  third = import "${self}/nix/third.nix";
  sub = import (./nix + "/sub.nix");
  script = builtins.path { path = ./scripts/enter.sh; name = "enter"; };
  files = lib.fileset.toSource { root = ./.; fileset = lib.fileset.unions [ ./a.sh ./b.sh ]; };
  lock = ./Cargo.lock;
  notes = ./docs/notes.path;
in { }
`
	got := nixPaths(src)
	for _, want := range []string{"nix/hook.nix", "nix/other.nix", "nix/third.nix", "nix/sub.nix", "scripts/enter.sh", "a.sh", "b.sh"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not among %q", want, got)
		}
	}
	for _, not := range []string{"Cargo.lock", "docs/notes.path", "."} {
		if slices.Contains(got, not) {
			t.Errorf("%s among %q", not, got)
		}
	}
}

// TestEnvrcUnspelledSourceLiteral: what an .envrc sources by a word
// with an expansion is looked up by its literal part, from the .envrc's
// directory and those above it, and what a pattern matches: a tracked
// file there the session changed is found; one no word names is not.
func TestEnvrcUnspelledSourceLiteral(t *testing.T) {
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "pkg"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "pkg", ".envrc"), []byte("source_env \"$(git rev-parse --show-toplevel)/scripts/env.sh\"\nfor f in env.d/*.sh; do source_env \"$f\"; done\nsource_env \"${CONF}\"/local.conf\n"), 0o644))
	files := []string{"scripts/env.sh", "pkg/env.d/a.sh", "pkg/env.d/b.txt", "pkg/local.conf", "scripts/other.sh"}
	for _, f := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, f), []byte("export A=1\n"), 0o644))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, f := range files {
		must(t, os.WriteFile(filepath.Join(root, f), []byte("touch x\n"), 0o644))
	}
	got := foundBelow(t, root, Scan(root, since, nil, start, nil))
	if want := []string{"pkg/env.d/a.sh", "pkg/local.conf", "scripts/env.sh"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

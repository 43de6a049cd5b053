package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// foundBelow lists what a scan of root found, relative to it, sorted.
func foundBelow(t *testing.T, root string, r Report) []string {
	t.Helper()
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	return got
}

// TestEnvrcSourcedAnyDepth: what an .envrc sources is read at any depth,
// from each directory a name may be read from (source_env runs a file in
// its own), a name spelled by $PWD/ too: the file each sources that the
// session changed, what each puts on PATH, and what each names.
func TestEnvrcSourcedAnyDepth(t *testing.T) {
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("source_env scripts/env.sh\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "scripts", "env.sh"), []byte("source_env path.sh\nsource_env_if_exists \"$PWD/local.sh\"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "scripts", "path.sh"), []byte("PATH_add ../bin\n"), 0o644))
	write(t, filepath.Join(root, "scripts", "other.sh"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"bin/git", "scripts/path.sh", "scripts/local.sh", "scripts/other.sh", "src/main.go"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte("PATH_add ../bin\n"), 0o644))
	}
	got := foundBelow(t, root, Scan(root, since, nil, start, nil))
	if want := []string{"bin/git", "scripts/local.sh", "scripts/path.sh"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestFlakeImportsJudged: with use flake, what the flake imports, and
// what they import or read as code, at any depth, is judged as the flake
// is (a changed nix/shell.nix, its shellHook's hook.sh, a module of the
// directory it imports), and the PATH a shellHook sets; a file it takes
// as data is not (git tracks them all).
func TestFlakeImportsJudged(t *testing.T) {
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := t.TempDir()
	files := map[string]string{
		".envrc":        "use flake\n",
		"flake.nix":     "{ outputs = _: { devShells.x86_64-linux.default = import ./nix/shell.nix; }; }\n",
		"nix/shell.nix": "{ imports = [ ../modules ]; lockFile = ../Cargo.lock; shellHook = builtins.readFile ./hook.sh + ''\n  export PATH=\"$PWD/tools:$PATH\"\n''; }\n",
		"nix/hook.sh":   "echo hi\n",
		"modules/a.nix": "{ }\n",
		"Cargo.lock":    "x\n",
		"nix/notes.txt": "x\n",
	}
	for p, content := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte(content), 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"nix/shell.nix", "nix/hook.sh", "modules/a.nix", "Cargo.lock", "nix/notes.txt", "tools/ls"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte(files[p]+"changed\n"), 0o644))
	}
	got := foundBelow(t, root, Scan(root, since, nil, start, nil))
	if want := []string{"modules/a.nix", "nix/hook.sh", "nix/shell.nix", "tools/ls"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestEnvrcUsesUnspelled: a use direnv's stdlib does not know, a layout
// or use the user's direnvrc defines, and a layout in .direnv where
// direnv_layout_dir is the user's, put on PATH what no word spells; a
// use in prose is none.
func TestEnvrcUsesUnspelled(t *testing.T) {
	user := map[string]bool{"layout_go": true, "use_node": true}
	moved := map[string]bool{"direnv_layout_dir": true}
	for _, c := range []struct {
		envrc string
		user  map[string]bool
		want  bool
	}{
		{"use asdf\n", nil, true},
		{"if has nix; then use nix; fi\n", nil, false},
		{"use flake . --impure\nlayout go\nlayout node\n", nil, false},
		{"echo use this # use tools\n", nil, false},
		{"layout go\n", user, true},
		{"use node 20\n", user, true},
		{"layout node\n", user, false},
		{"layout python3\n", moved, true},
		{"layout node\n", moved, false},
	} {
		if got := envrcUsesUnspelled(c.envrc, c.user); got != c.want {
			t.Errorf("envrcUsesUnspelled(%q, %v) = %v, want %v", c.envrc, c.user, got, c.want)
		}
	}
}

// TestDirenvrcDefines: the layout_ and use_ functions, and
// direnv_layout_dir, of the user's direnvrc and direnv's lib, in each
// shell's way to define one.
func TestDirenvrcDefines(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DIRENV_CONFIG", dir)
	must(t, os.WriteFile(filepath.Join(dir, "direnvrc"), []byte("layout_go() {\n  PATH_add bin\n}\nfunction use_tools {\n  :\n}\nuse_x(){ :; }\nhelper() { :; }\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "lib", "layout.sh"), []byte("direnv_layout_dir () {\n  echo /tmp\n}\n"), 0o644))
	got := readDirenvrc().defines
	for _, name := range []string{"layout_go", "use_tools", "use_x", "direnv_layout_dir"} {
		if !got[name] {
			t.Errorf("%s not among %v", name, got)
		}
	}
	if got["helper"] || len(got) != 4 {
		t.Errorf("defines %v", got)
	}
}

// TestEnvrcUnspelledSourcePrograms: what an .envrc sources by a name the
// audit cannot spell may put any directory on PATH: every program below
// the .envrc the session made or changed is found, a file nobody can
// execute is not.
func TestEnvrcUnspelledSourcePrograms(t *testing.T) {
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("source_env_if_exists \"$CONF_DIR/local\"\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "bin", "git"), []byte("#!/bin/sh\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "bin", "notes"), []byte("x\n"), 0o644))
	r := Scan(root, since, nil, start, nil)
	if got := foundBelow(t, root, r); !slices.Contains(got, "bin/git") || slices.Contains(got, "bin/notes") {
		t.Errorf("found %q, want bin/git and not bin/notes", got)
	}
	if !slices.Contains(r.IncludesUnspelled, filepath.Join(root, ".envrc")) {
		t.Errorf("the .envrc is not among those whose includes are unspelled: %q", r.IncludesUnspelled)
	}
}

// TestEnvrcPathDirsLoadPrefixAndVim: load_prefix puts its prefix's bin,
// sbin, lib and include on search paths; use vim names the file the
// user's vimrc sources.
func TestEnvrcPathDirsLoadPrefixAndVim(t *testing.T) {
	root := t.TempDir()
	for envrc, want := range map[string][]string{
		"load_prefix \"$PWD/tools\"\n": {"tools/bin", "tools/sbin", "tools/lib", "tools/include"},
		"use vim\n":                    {".vimrc.local"},
		"use vim conf/vimrc # mine\n":  {"conf/vimrc"},
	} {
		if dirs, unspelled := envrcPathDirs(envrc, root); !slices.Equal(dirs, want) || unspelled {
			t.Errorf("envrcPathDirs(%q): %q, unspelled %v; want %q", envrc, dirs, unspelled, want)
		}
	}
	if _, unspelled := envrcPathDirs("load_prefix \"$TOOLS\"\n", root); !unspelled {
		t.Error("load_prefix of a variable: taken for spelled")
	}
}

// TestEnvrcSourcedBounded: a chain of sources past what the audit reads
// is said not examined, and every program below the .envrc is judged as
// for a name it cannot spell.
func TestEnvrcSourcedBounded(t *testing.T) {
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("source_env d0/env.sh\n"), 0o644))
	dir := root
	for i := range maxEnvrcBases + 2 {
		dir = filepath.Join(dir, "d"+string(rune('0'+i)))
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "env.sh"), []byte("source_env d"+string(rune('1'+i))+"/env.sh\n"), 0o644))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "bin", "git"), []byte("#!/bin/sh\n"), 0o755))
	r := Scan(root, since, nil, start, nil)
	if got := foundBelow(t, root, r); !slices.Contains(got, "bin/git") {
		t.Errorf("found %q, want bin/git among them", got)
	}
	if len(r.NotExamined) == 0 {
		t.Error("the chain past the bound is not said not examined")
	}
}

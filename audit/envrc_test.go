package audit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEnvrcNames: every word of an .envrc that may name a file is looked
// up, what direnv's and the shell's commands source or load and what a
// program it runs reads (an .envrc is shell: no list of commands covers
// it); a sourcing command's name with an expansion, a pattern or a quote
// left open is not spelled; eval runs what its words make.
func TestEnvrcNames(t *testing.T) {
	for envrc, want := range map[string][]string{
		"source_env_if_exists config/local\n":                {"config/local"},
		"dotenv_if_exists\n":                                 {".env"},
		"export A=1; . ./x.env # source_env y\n":             {"x.env"},
		"dotenv 'secrets/dev.vars'\n":                        {"secrets/dev.vars"},
		"bash config/local && sh ./run\n":                    {"config/local", "run"},
		"python3 cfg\nawk -f conf/x.awk\nexec ./bin/start\n": {"cfg", "conf/x.awk", "bin/start"},
		"tool --config=etc/tool.conf < in.txt\n":             {"etc/tool.conf", "in.txt"},
	} {
		names, unspelled, whole := envrcNames(envrc)
		for _, name := range want {
			if !slices.Contains(names, name) {
				t.Errorf("%q: %q not among its names %q", envrc, name, names)
			}
		}
		if unspelled || !whole {
			t.Errorf("%q: unspelled %v, whole %v", envrc, unspelled, whole)
		}
	}
	for _, envrc := range []string{"eval \"$(cat config/local)\"\n", "source_env_if_exists $CONF_DIR/local\n", "for f in env/*; do source $f; done\n", "source_env \"my file\"\n"} {
		if _, unspelled, _ := envrcNames(envrc); !unspelled {
			t.Errorf("%q: taken for spelled", envrc)
		}
	}
	var many strings.Builder
	for i := range maxEnvrcNames + 1 {
		fmt.Fprintf(&many, "echo w%d\n", i)
	}
	if names, _, whole := envrcNames(many.String()); whole || len(names) != maxEnvrcNames {
		t.Errorf("%d words past the bound: %d names, whole %v", maxEnvrcNames+1, len(names), whole)
	}
}

// TestEnvrcPathDirs: what an .envrc puts on PATH (PATH_add, path_add, a
// PATH it sets) the host's shell runs by a command's name: each file the
// session made or changed there is found, tracked or not; a directory by
// a path the audit cannot spell makes the .envrc one whose includes are
// unspelled.
func TestEnvrcPathDirs(t *testing.T) {
	root := t.TempDir()
	dirs, unspelled := envrcPathDirs("PATH_add bin scripts # and\npath_add PYTHONPATH \"$PWD/lib\"\nexport PATH=\"$PWD/tools:"+root+"/abs:/usr/bin:$PATH\"\nlayout node\n", root)
	if want := []string{"bin", "scripts", "lib", "tools", "abs", "node_modules/.bin"}; !slices.Equal(dirs, want) || unspelled {
		t.Errorf("envrcPathDirs: %q, %v; want %q", dirs, unspelled, want)
	}
	if _, unspelled := envrcPathDirs("PATH_add \"$(git rev-parse --show-toplevel)/bin\"\n", root); !unspelled {
		t.Error("a directory by a command's output is not unspelled")
	}
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("PATH_add bin\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "web", "tools"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "web", ".envrc"), []byte("PATH_add tools\n"), 0o644))
	write(t, filepath.Join(root, "bin", "kept"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"bin/git", "web/tools/ls", "other/git"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"bin/git", "web/tools/ls"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestEnvrcRuns: what an .envrc runs by a name it spells, the files it
// sources and those its use lines evaluate, is found where the session
// changed it, git tracking it or not (the test's tree is no repository:
// judgeNamed passes nothing for being tracked, judgeRun never asks).
func TestEnvrcRuns(t *testing.T) {
	got := envrcRuns("source_env scripts/env.sh # and\ndotenv\nuse flake ./nix#dev\nuse nix\nsh -c 'x'\neval \"$(cat x)\"\nwatch_file package.json\nuse guix hello -m ops/tools.scm --file=env.scm # x.scm\n")
	if want := []string{"scripts/env.sh", ".env", "nix/flake.nix", "nix/flake.lock", "shell.nix", "default.nix", "guix.scm", "manifest.scm", "channels.scm", "hello", "ops/tools.scm", "env.scm"}; !slices.Equal(got, want) {
		t.Errorf("envrcRuns: %q, want %q", got, want)
	}
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "web"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "web", ".envrc"), []byte("use flake\nsource_env env.sh\n"), 0o644))
	for _, p := range []string{"web/flake.nix", "web/env.sh", "web/package.json"} {
		write(t, filepath.Join(root, p))
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
	for _, p := range []string{"web/flake.nix", "web/env.sh", "web/package.json"} {
		must(t, os.WriteFile(filepath.Join(root, p), []byte("changed"), 0o644))
	}
	r := Scan(root, since, nil, start, nil)
	var found []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		found = append(found, rel)
	}
	slices.Sort(found)
	if want := []string{"web/env.sh", "web/flake.nix"}; !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
}

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/claudebox/claudebox/instance"
)

var update = flag.Bool("u", false, "update testscript golden files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"claudebox": func() { os.Exit(run(os.Args[1:])) },
		"bwrap":     func() { os.Exit(fakeBwrap()) },
		"claude":    func() { os.Exit(0) },
	})
}

// fakeBwrap stands in for bwrap in testscript: it records its argv, one
// argument per line, and its environment in $HOME/bwrap.argv and
// $HOME/bwrap.env, then exits 0. Like bwrap, it fails when a bind source
// does not exist.
func fakeBwrap() int {
	args := os.Args[1:]
	for i := 0; i+2 < len(args) && args[i] != "--"; i++ {
		if args[i] == "--bind" || args[i] == "--ro-bind" {
			if _, err := os.Stat(args[i+1]); err != nil {
				fmt.Fprintf(os.Stderr, "bwrap: Can't find source path %s: No such file or directory\n", args[i+1])
				return 1
			}
		}
	}
	home := os.Getenv("HOME")
	argv := strings.Join(os.Args[1:], "\n") + "\n"
	env := strings.Join(os.Environ(), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(home, "bwrap.argv"), []byte(argv), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake bwrap:", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(home, "bwrap.env"), []byte(env), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake bwrap:", err)
		return 1
	}
	return 0
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			return os.MkdirAll(home, 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// bin-path NAME: set $BIN_NAME to the path of program NAME, so a
			// script can run it with a PATH that no longer finds it.
			"bin-path": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: bin-path NAME")
				}
				for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
					if p := filepath.Join(dir, args[0]); fileExists(p) {
						ts.Setenv("BIN_"+args[0], p)
						return
					}
				}
				ts.Fatalf("%s not found on PATH", args[0])
			},
			// instance-dir PATH: print the instance directory of project root PATH.
			"instance-dir": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: instance-dir PATH")
				}
				root, err := filepath.EvalSymlinks(ts.MkAbs(args[0]))
				ts.Check(err)
				ts.Setenv("INSTANCE", instance.Dir(filepath.Join(ts.Getenv("HOME"), ".claudebox"), root))
				ts.Setenv("ROOT", root)
			},
		},
	})
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

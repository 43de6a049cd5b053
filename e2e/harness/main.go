// Package harness is what claudebox's real-sandbox tests share: a fake
// host for each test (a home, projects, the unprivileged user, claudebox
// built once on its PATH), fake APIs for the agents, and the helper
// programs a test runs inside the sandbox.
package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// Helpers are the programs a test puts inside the sandbox: the test binary
// copied under one of these names runs it instead of the tests. A test
// package adds its own in an init function.
var Helpers = map[string]func() int{
	// euid prints the effective uid it runs with: installed setuid root,
	// it shows whether the sandbox lets a setuid binary elevate.
	"euid": func() int { fmt.Println(os.Geteuid()); return 0 },
	// guardattack: a hostile sandbox's program that gets hold of a file
	// the host will rename over a guarded path (see HeldAttack).
	"guardattack": func() int { return guardAttack(os.Args[1:]) },
	// renamerace: a hostile sandbox's program that renames a file over a
	// guarded path until it can (see renameRace).
	"renamerace": func() int { return renameRace(os.Args[1:]) },
	// maxrss CMD ARGS...: runs the command and ends its stderr with
	// "maxrss KIB", the command's peak memory with its children's. A
	// child of the test process itself would report at least the test
	// process's own peak (Go starts a child in its parent's memory, and
	// exec keeps that memory's peak), which a long run makes gigabytes.
	"maxrss": func() int {
		c := exec.Command(os.Args[1], os.Args[2:]...)
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		err := c.Run()
		if c.ProcessState == nil {
			fmt.Fprintln(os.Stderr, "maxrss:", err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "maxrss", c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		return c.ProcessState.ExitCode()
	},
}

// Built is claudebox, built once for the whole test package (see
// claudeboxBinary).
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
	env  []string // the environment the package started with
}

// Main is a real-sandbox test package's TestMain: the test binary runs as
// one of Helpers when copied under its name, and runs its tests otherwise.
func Main(m *testing.M) {
	if helper, ok := Helpers[filepath.Base(os.Args[0])]; ok {
		os.Exit(helper())
	}
	built.env = os.Environ()
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// claudeboxBinary is claudebox built from the module's root, as users get
// it; the first real-sandbox test builds it, so that -short and -list
// build nothing. It is built with the environment the package started
// with: a test that set HOME would otherwise build into a cold cache.
func claudeboxBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "claudebox-e2e-build-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "claudebox")
		c := exec.Command("go", "build", "-o", built.path, "github.com/claudebox/claudebox")
		c.Env = append(built.env, "CGO_ENABLED=0")
		if out, err := c.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

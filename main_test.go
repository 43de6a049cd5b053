package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

var update = flag.Bool("u", false, "update testscript golden files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"claudebox": func() {
			// Scripts fake the machine's filesystems for --gc and --list.
			if f := os.Getenv("TEST_MOUNTINFO"); f != "" {
				mountinfoFile = f
			}
			if f := os.Getenv("TEST_FSTAB"); f != "" {
				fstabFile = f
			}
			if d := os.Getenv("TEST_PROC_SYS"); d != "" {
				procSys = d
			}
			os.Exit(run(os.Args[1:]))
		},
		// holdlock DIR: hold the instance DIR's session lock, as a running
		// session does, until killed; DIR/held says it is taken.
		"holdlock": func() {
			f, err := instance.OpenLock(os.Args[1])
			if err == nil {
				err = instance.LockShared(f)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(os.Args[1], "held"), nil, 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "holdlock:", err)
				os.Exit(1)
			}
			select {}
		},
		"bwrap": func() { os.Exit(fakeBwrap()) },
		"claude": func() {
			if os.Args[len(os.Args)-1] == "--version" {
				fmt.Println("9.9.9 (Claude Code)")
			}
			os.Exit(0)
		},
	})
}

// fakeBwrap stands in for bwrap in testscript: it records its argv, one
// argument per line, and its environment in $HOME/bwrap.argv and
// $HOME/bwrap.env, and what it reads from the seccomp descriptor and from
// each data mount's in $HOME/bwrap.seccomp and $HOME/bwrap.data1, 2, … (in
// argv order), then exits 0. Like bwrap, it fails when a bind source does not exist. It
// also fails where real bwrap would create a mount point on the host: a
// missing target outside $HOME (a tmpfs inside) and the sandbox's own /proc,
// /dev and /tmp.
//
// Scripts shape it through files in $HOME (the only variable a launch
// passes that a script controls): bwrap.help replaces its --help text,
// bwrap.fail makes it fail with that message, and bwrap.exec makes it run
// the command after recording, as --check's trial needs.
func fakeBwrap() int {
	args := os.Args[1:]
	home := os.Getenv("HOME")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "bwrap: "+format+"\n", a...)
		return 1
	}
	switch {
	case len(args) == 1 && args[0] == "--version":
		fmt.Println("bubblewrap 0.8.0")
		return 0
	case len(args) == 1 && args[0] == "--help":
		if b, err := os.ReadFile(filepath.Join(home, "bwrap.help")); err == nil {
			os.Stdout.Write(b)
			return 0
		}
		for _, f := range []string{"--unshare-cgroup-try", "--die-with-parent", "--seccomp FD", "--bind-data FD DEST", "--ro-bind-data FD DEST", "--ro-bind-try SRC DEST", "--userns FD", "--info-fd FD", "--block-fd FD", "--perms OCTAL"} {
			fmt.Println("    " + f + " ")
		}
		return 0
	}
	if b, err := os.ReadFile(filepath.Join(home, "bwrap.fail")); err == nil {
		return fail("%s", strings.TrimSpace(string(b)))
	}
	data := 0
	var mounts []fakeMount
	for i := 0; i+1 < len(args) && args[i] != "--"; i++ {
		op, dest := args[i], ""
		switch op {
		case "--bind", "--ro-bind":
			if _, err := os.Stat(args[i+1]); err != nil {
				return fail("Can't find source path %s: No such file or directory", args[i+1])
			}
			dest = args[i+2]
		case "--seccomp", "--bind-data", "--ro-bind-data":
			n, _ := strconv.Atoi(args[i+1])
			content, err := io.ReadAll(os.NewFile(uintptr(n), "fd"))
			if err != nil {
				return fail("Can't read fd %d: %v", n, err)
			}
			name := "bwrap.seccomp"
			if op != "--seccomp" {
				dest = args[i+2]
				data++
				name = "bwrap.data" + strconv.Itoa(data)
				// Also by the name of its destination: bwrap.data.SANDBOX.md.
				os.WriteFile(filepath.Join(home, "bwrap.data."+filepath.Base(dest)), content, 0o644)
			}
			os.WriteFile(filepath.Join(home, name), content, 0o644)
		case "--tmpfs":
			dest = args[i+1]
		}
		if dest == "" {
			continue
		}
		// The deepest mount so far that holds dest decides where bwrap
		// would create a missing one: on the host only inside a host
		// directory bound at its own path.
		if _, err := os.Lstat(dest); err != nil {
			if holder, ok := deepest(mounts, dest); ok && holder.host {
				return fail("would create the mount point %s on the host", dest)
			}
		}
		fi, err := os.Stat(dest)
		isHostDir := (op == "--bind" || op == "--ro-bind") && args[i+1] == dest && err == nil && fi.IsDir()
		mounts = append(mounts, fakeMount{dest, isHostDir})
	}
	argv := strings.Join(os.Args[1:], "\n") + "\n"
	env := os.Getenv("LAUNCH_ENVIRON") // as it came, recorded by coverBwrapDir's wrapper
	if env == "" {
		env = strings.Join(os.Environ(), "\n") + "\n"
	}
	if err := os.WriteFile(filepath.Join(home, "bwrap.argv"), []byte(argv), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake bwrap:", err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(home, "bwrap.env"), []byte(env), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake bwrap:", err)
		return 1
	}
	if paths.Exists(filepath.Join(home, "bwrap.exec")) {
		for i, a := range args {
			if a == "--" {
				cmd := exec.Command(args[i+1], args[i+2:]...)
				// No network namespace here: the filtered network's relay
				// listens on a port of the host's loopback instead, and
				// the command is told so.
				if args[i+1] == "/run/claudebox/claudebox" {
					addr, err := fakeRelay(fakeBindSource(args, "/run/claudebox/proxy.sock"))
					if err != nil {
						return fail("fake relay: %v", err)
					}
					inner := args[i+1:]
					inner = inner[slices.Index(inner, "--")+1:]
					cmd = exec.Command(inner[0], inner[1:]...)
					for _, kv := range os.Environ() {
						cmd.Env = append(cmd.Env, strings.ReplaceAll(kv, "127.0.0.1:3128", addr))
					}
				}
				cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
				if cmd.Run() != nil {
					return 1
				}
				break
			}
		}
	}
	return 0
}

// fakeBindSource is the host path args bind at dest.
func fakeBindSource(args []string, dest string) string {
	for i := 0; i+2 < len(args); i++ {
		if (args[i] == "--bind" || args[i] == "--ro-bind") && args[i+2] == dest {
			return args[i+1]
		}
	}
	return ""
}

// fakeRelay forwards each connection to a port of its own on 127.0.0.1 to
// socket, as the relay inside forwards 127.0.0.1:3128; it returns the
// port's address.
func fakeRelay(socket string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				p, err := net.Dial("unix", socket)
				if err != nil {
					return
				}
				defer p.Close()
				go io.Copy(p, c)
				io.Copy(c, p)
			}()
		}
	}()
	return ln.Addr().String(), nil
}

// coverBwrapDir returns a directory holding a bwrap that runs the fake
// bwrap with this test's GOCOVERDIR. A launch gives bwrap a stripped
// environment, and the fake is this test binary: built with -cover and
// started without GOCOVERDIR, it would print a warning before any of its
// code runs. The fake passes the variable on to what it runs (claude). The
// shell reorders the environment and adds PWD, so the wrapper hands the
// fake the launch's environment as it came, in LAUNCH_ENVIRON.
func coverBwrapDir(t *testing.T) string {
	fake, err := exec.LookPath("bwrap") // testscript's bin directory comes first
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	script := "#!/bin/sh\n" +
		"export LAUNCH_ENVIRON=\"$(tr '\\0' '\\n' </proc/$$/environ)\n\"\n" +
		"export GOCOVERDIR=" + quote(os.Getenv("GOCOVERDIR")) + "\n" +
		"exec " + quote(fake) + ` "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeMount is a mount the fake bwrap has seen: host says it shows a host
// directory at its own path.
type fakeMount struct {
	dest string
	host bool
}

// deepest returns the last, deepest mount holding path.
func deepest(mounts []fakeMount, path string) (fakeMount, bool) {
	var best fakeMount
	found := false
	for _, m := range mounts {
		if m.dest != path && paths.Within(path, m.dest) && (!found || len(m.dest) >= len(best.dest)) {
			best, found = m, true
		}
	}
	return best, found
}

func TestScripts(t *testing.T) {
	// Only a -cover build needs the wrapper: without it, a launch runs the
	// fake itself, a shell and a tr fewer each time.
	var wrapperDir string
	if testing.CoverMode() != "" {
		wrapperDir = coverBwrapDir(t)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			// A launch needs a credential for its proxy.
			env.Setenv("ANTHROPIC_API_KEY", "sk-ant-api03-script-key")
			if wrapperDir != "" {
				env.Setenv("PATH", wrapperDir+string(filepath.ListSeparator)+env.Getenv("PATH"))
			}
			return os.MkdirAll(home, 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// bin-path NAME: set $BIN_NAME to the path of program NAME, so a
			// script can run it with a PATH that no longer finds it.
			"bin-path": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: bin-path NAME")
				}
				for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
					if p := filepath.Join(dir, args[0]); paths.Exists(p) {
						ts.Setenv("BIN_"+args[0], p)
						return
					}
				}
				ts.Fatalf("%s not found on PATH", args[0])
			},
			// wait-reaped DIR: wait until no placeholder is left
			// under DIR, as the background cleanup after a session leaves it.
			"wait-reaped": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: wait-reaped DIR")
				}
				var left []string
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					left = nil
					filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
						if instance.IsPlaceholder(p) {
							left = append(left, p)
						}
						return nil
					})
					if len(left) == 0 {
						return
					}
				}
				ts.Fatalf("placeholders left: %q", left)
			},
			// make-instance ROOT [SESSIONS]: make the instance of ROOT (which
			// need not exist) as a launch would, with SESSIONS transcripts of
			// Claude Code under ROOT's project directory; set $INSTANCE.
			"make-instance": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) < 1 || len(args) > 2 {
					ts.Fatalf("usage: make-instance ROOT [SESSIONS]")
				}
				dir := instance.Dir(filepath.Join(ts.Getenv("HOME"), ".claudebox"), args[0])
				ts.Check(os.MkdirAll(dir, 0o700))
				ts.Check(os.WriteFile(filepath.Join(dir, instance.RootFile), []byte(args[0]+"\n"), 0o600))
				n := 0
				if len(args) == 2 {
					n, _ = strconv.Atoi(args[1])
				}
				sessions := filepath.Join(dir, gc.ClaudeProjectDir(args[0]))
				for i := range n {
					ts.Check(os.MkdirAll(sessions, 0o700))
					line := fmt.Sprintf(`{"type":"user","cwd":%q,"sessionId":"s%d"}`+"\n", args[0], i)
					name := fmt.Sprintf("%s-%d.jsonl", instance.Hash(args[0])[:8], i)
					ts.Check(os.WriteFile(filepath.Join(sessions, name), []byte(line), 0o600))
				}
				ts.Setenv("INSTANCE", dir)
			},
			// wait-unlocked DIR: wait until no process holds the instance
			// DIR's session lock.
			"wait-unlocked": func(ts *testscript.TestScript, neg bool, args []string) {
				f, err := instance.OpenLock(ts.MkAbs(args[0]))
				ts.Check(err)
				defer f.Close()
				ts.Check(instance.LockIdle(f))
			},
			// add-session INSTANCE CWD: add a transcript of a session run in
			// CWD to the instance directory INSTANCE.
			"add-session": func(ts *testscript.TestScript, neg bool, args []string) {
				dir := filepath.Join(ts.MkAbs(args[0]), gc.ClaudeProjectDir(args[1]))
				ts.Check(os.MkdirAll(dir, 0o700))
				line := fmt.Sprintf(`{"type":"user","cwd":%q}`+"\n", args[1])
				ts.Check(os.WriteFile(filepath.Join(dir, "added.jsonl"), []byte(line), 0o600))
			},
			// claude-dir PATH: set $CLAUDE_DIR to the name Claude Code gives
			// the sessions directory of working directory PATH.
			"claude-dir": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Setenv("CLAUDE_DIR", gc.ClaudeProjectDir(args[0]))
			},
			// mksock PATH: make a unix socket at PATH, as an SSH agent does.
			"mksock": func(ts *testscript.TestScript, neg bool, args []string) {
				l, err := net.Listen("unix", ts.MkAbs(args[0]))
				ts.Check(err)
				l.(*net.UnixListener).SetUnlinkOnClose(false)
				l.Close()
			},
			// wait-file PATH: wait until PATH exists.
			"wait-file": func(ts *testscript.TestScript, neg bool, args []string) {
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if paths.Exists(ts.MkAbs(args[0])) {
						return
					}
				}
				ts.Fatalf("%s did not appear", args[0])
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

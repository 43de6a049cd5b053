package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/paths"
	"golang.org/x/sys/unix"
)

// TestGuardsSurviveTheHost: while a session runs, the host replaces each
// kind of guarded path the way its own tools do (git config and git remote
// add rewrite .git/config by rename, an editor saves .envrc by writing a
// temporary file and renaming it over, a directory is moved away or
// recreated), then the sandbox tries to write it. The write never lands:
// the guard is back, or the session was ended. The host's git keeps
// working during the session, and its git status and git commit run
// nothing the sandbox planted.
func TestGuardsSurviveTheHost(t *testing.T) {
	h := newE2EHost(t)
	repo := filepath.Join(h.home, "code", "repo")
	h.gitRepo(repo)
	marker := filepath.Join(h.base, "marker")
	h.write(filepath.Join(repo, ".envrc"), "export A=1\n")
	h.write(filepath.Join(repo, ".vscode", "tasks.json"), "{}\n")
	os.RemoveAll(filepath.Join(repo, ".git", "hooks"))
	h.write(filepath.Join(repo, ".git", "hooks", "README"), "hooks\n")
	git := func(args ...string) string {
		return h.run(repo, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	git("add", ".envrc", ".vscode")
	git("commit", "-q", "-m", "settings")

	for _, c := range []struct {
		name  string
		host  string // what the host does while the session runs
		guard string // the guarded path the host's action replaces
		// ends: the watcher ends the session (a directory replaced or
		// removed) rather than guarding the new file and going on.
		ends   bool
		attack string // what the sandbox then tries
		// replaced is the file the session's end names as replaced by the
		// host, for the user to review.
		replaced string
	}{
		{
			"git config", `git config x.y z && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m during`, ".git/config", false,
			`printf '[core]\n\tfsmonitor = "touch ` + marker + `"\n' >> .git/config`, ".git/config",
		},
		{
			"git remote add", `git remote add origin https://example.invalid/r.git`, ".git/config", false,
			`printf '[alias]\n\tx = !touch ` + marker + `\n[core]\n\tfsmonitor = "touch ` + marker + `"\n' >> .git/config`, "",
		},
		{
			"editor save of .envrc", `printf 'export A=2\n' > .envrc.tmp && mv .envrc.tmp .envrc`, ".envrc", false,
			`echo 'touch ` + marker + `' >> .envrc`, ".envrc",
		},
		{
			"a new .git/hooks moved into place", `rm -rf .git/hooks.old && mkdir ../newhooks && mv .git/hooks .git/hooks.old && mv ../newhooks .git/hooks`, ".git/hooks", true,
			`printf '#!/bin/sh\ntouch ` + marker + `\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, "",
		},
		{
			".vscode recreated", `cp -r .vscode .vscode.new && rm -rf .vscode && mv .vscode.new .vscode`, ".vscode", true,
			`echo '{"tasks":[{"command":"touch ` + marker + `"}]}' > .vscode/tasks.json`, "",
		},
		{
			".vscode moved away", `mv .vscode .vscode.old`, ".vscode", true,
			`mkdir -p .vscode && echo '{"tasks":[{"command":"touch ` + marker + `"}]}' > .vscode/tasks.json`, "",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range []string{"started", "go"} {
				os.Remove(filepath.Join(repo, f))
			}
			os.Remove(marker)
			// The attack waits for the guard to stand again (or the session
			// to end): a sandbox that writes in the window between the
			// host's rename and the watcher's new mount is the race the
			// docs/security.md names as not closed, and timing it here made the test
			// fail under load.
			script := `touch started; while ! test -e go; do sleep 0.01; done; ` +
				`for i in $(seq 500); do mountpoint -q ` + c.guard + ` && break; sleep 0.01; done; (` + c.attack + `) 2>/dev/null && echo WROTE; exit 0`
			out, exited := startShell(t, h, repo, script)
			h.run(repo, nil, "sh", "-c", c.host)
			h.write(filepath.Join(repo, "go"), "")
			err := <-exited
			t.Logf("session: %v\n%s", err, out.String())
			if strings.Contains(out.String(), "WROTE") {
				t.Errorf("after %s on the host, the sandbox wrote it", c.name)
			}
			if c.replaced != "" && (!strings.Contains(out.String(), "the host replaced protected files") || !strings.Contains(out.String(), filepath.Join(repo, c.replaced)+"\n")) {
				t.Errorf("the session's end does not name %s as replaced", c.replaced)
			}
			if (err != nil) != c.ends || c.ends && !strings.Contains(out.String(), "claudebox: session ended: ") {
				t.Errorf("the session ended: %v; want it to end with a reason: %v", err, c.ends)
			}
			git("status", "--short")
			git("commit", "-q", "--allow-empty", "-m", "after")
			if paths.Exists(marker) {
				t.Fatalf("after %s, the host's git ran what the sandbox planted", c.name)
			}
		})
	}
	for _, f := range []string{filepath.Join(repo, ".git", "config"), filepath.Join(repo, ".envrc"), filepath.Join(repo, ".vscode", "tasks.json")} {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), marker) {
			t.Errorf("%s holds the sandbox's write:\n%s", f, b)
		}
	}
	if paths.Exists(filepath.Join(repo, ".git", "hooks", "pre-commit")) {
		t.Error("the sandbox planted .git/hooks/pre-commit")
	}
}

// BenchmarkGuardRestored measures the window the host's rename opens: from
// the return of the rename over .envrc to the sandbox's mount table
// showing a guard on it again, read by the host from the sandbox's
// /proc/<pid>/mountinfo.
func BenchmarkGuardRestored(b *testing.B) {
	h := newE2EHost(b)
	repo := filepath.Join(h.home, "code", "repo")
	envrc := filepath.Join(repo, ".envrc")
	h.write(envrc, "export A=1\n")
	s := h.command(repo, nil, "claudebox", "--shell", "-c", "touch started; exec sleep 600")
	var out strings.Builder
	s.Stdout, s.Stderr = &out, &out
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	var mountinfo string
	for deadline := time.Now().Add(10 * time.Second); mountinfo == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the session did not start")
		}
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if c, _ := os.ReadFile(p); string(c) == "sleep\x00600\x00" {
				mountinfo = filepath.Join(filepath.Dir(p), "mountinfo")
			}
		}
	}
	guarded := func() bool {
		m, _ := os.ReadFile(mountinfo)
		return strings.Contains(string(m), " "+envrc+" ")
	}
	tmp := envrc + ".tmp"
	var window time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(tmp, []byte("export A=2\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		// The user's own file, as an editor saves it: the watcher holds
		// only the user's files against writers.
		if h.uid >= 0 {
			os.Lchown(tmp, h.uid, h.gid)
		}
		if err := os.Rename(tmp, envrc); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for !guarded() {
			if time.Since(start) > 5*time.Second {
				b.Fatalf("the guard did not come back after %d renames: %s", i, out.String())
			}
		}
		window += time.Since(start)
	}
	b.ReportMetric(float64(window.Nanoseconds())/float64(b.N), "ns/window")
}

// guardAttack is a hostile sandbox's program: guardattack HOW NEW LINE. It
// waits for the host to create NEW, a lock or temporary file the host will
// rename over a guarded path (git creates it exclusively, so it can only be
// caught once it exists), and gets hold of it: HOW is "fd" (a descriptor
// open for appending), "mmap" (a shared writable mapping, its descriptor
// closed), "link" (a second name, NEW-link), "mprotect" (a shared mapping
// made read-only until it writes), "socket" (a descriptor sent over a Unix
// socket and closed, received only to write), "reopen" (like socket, but
// an O_PATH descriptor, reopened for writing through /proc/self/fd) or "thread" (a descriptor in
// a thread's own descriptor table, which /proc/PID/fd does not list). It
// touches "armed" in its
// working directory once it holds the file; once a file named "go" exists,
// it writes LINE into the file and prints WROTE.
func guardAttack(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: guardattack fd|mmap|link|mprotect|socket|reopen|thread NEW LINE")
		return 2
	}
	how, newPath, line := args[0], args[1], args[2]
	if how != "thread" {
		return holdAndWrite(how, newPath, line)
	}
	// The main thread (the one /proc/PID/fd lists) stays as it is; the
	// attack runs on another thread with a descriptor table of its own.
	// The runtime's poller, which every thread uses, is made before, in the
	// table they share.
	runtime.LockOSThread()
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
	status := make(chan int)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_FILES); err != nil {
			fmt.Fprintln(os.Stderr, "guardattack:", err)
			status <- 1
			return
		}
		status <- holdAndWrite(how, newPath, line)
	}()
	return <-status
}

// holdAndWrite is guardattack's attack.
func holdAndWrite(how, newPath, line string) int {
	var fd int
	var mapped []byte
	var err error
	var sock [2]int
	if how == "socket" || how == "reopen" {
		if sock, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
			fmt.Fprintln(os.Stderr, "guardattack:", err)
			return 1
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		switch how {
		case "fd":
			fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		case "mmap":
			if fd, err = unix.Open(newPath, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
				mapped, err = unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
				unix.Close(fd)
			}
		case "link":
			err = unix.Link(newPath, newPath+"-link")
		case "mprotect":
			if fd, err = unix.Open(newPath, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
				mapped, err = unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_SHARED)
				unix.Close(fd)
			}
		case "socket":
			if fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0); err == nil {
				err = unix.Sendmsg(sock[0], []byte{0}, unix.UnixRights(fd), nil, 0)
				unix.Close(fd)
			}
		case "reopen":
			if fd, err = unix.Open(newPath, unix.O_PATH|unix.O_CLOEXEC, 0); err == nil {
				err = unix.Sendmsg(sock[0], []byte{0}, unix.UnixRights(fd), nil, 0)
				unix.Close(fd)
			}
		case "thread":
			fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "guardattack: never caught", newPath, err)
			return 1
		}
	}
	os.WriteFile("armed", nil, 0o644)
	for !paths.Exists("go") {
		time.Sleep(5 * time.Millisecond)
	}
	payload := "\n" + line + "\n"
	switch how {
	case "socket", "reopen":
		oob := make([]byte, unix.CmsgSpace(4))
		var n int
		if _, n, _, _, err = unix.Recvmsg(sock[1], make([]byte, 1), oob, 0); err != nil {
			break
		}
		var msgs []unix.SocketControlMessage
		if msgs, err = unix.ParseSocketControlMessage(oob[:n]); err != nil || len(msgs) != 1 {
			err = fmt.Errorf("no descriptor came: %v", err)
			break
		}
		var fds []int
		if fds, err = unix.ParseUnixRights(&msgs[0]); err != nil {
			break
		}
		if how == "reopen" {
			if fds[0], err = unix.Open(fmt.Sprintf("/proc/self/fd/%d", fds[0]), unix.O_WRONLY|unix.O_APPEND, 0); err != nil {
				break
			}
		}
		_, err = unix.Write(fds[0], []byte(payload))
	case "fd", "thread":
		_, err = unix.Write(fd, []byte(payload))
	case "link":
		var f *os.File
		if f, err = os.OpenFile(newPath+"-link", os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString(payload)
			f.Close()
		}
	case "mprotect":
		if err = unix.Mprotect(mapped, unix.PROT_READ|unix.PROT_WRITE); err != nil {
			break
		}
		fallthrough
	case "mmap":
		// A mapping writes only within the file's size: the payload
		// replaces its start, a comment the rest.
		size := bytes.IndexByte(mapped, 0)
		if size < len(payload)+2 {
			err = fmt.Errorf("%d bytes do not fit the payload", size)
			break
		}
		copy(mapped, payload+"#"+strings.Repeat(" ", size-len(payload)-2)+"\n")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "guardattack: write:", err)
		return 1
	}
	fmt.Println("WROTE")
	return 0
}

// TestGuardsHeldBySandbox: a hostile sandbox catches the file the host's
// git config writes (.git/config.lock, in .git, which the sandbox writes)
// and keeps a way to write it after the host renames it over .git/config:
// a descriptor, a shared writable mapping, or a second name. The host
// takes git's steps one by one, so the sandbox is sure to catch the lock
// before the rename. The watcher ends the session before the sandbox
// writes, the file the host obeys stays as the host wrote it, and the
// host's git status runs nothing the sandbox planted; a second name left
// behind keeps the next session from starting.
func TestGuardsHeldBySandbox(t *testing.T) {
	for _, c := range []struct{ how, reason string }{
		{"fd", "holds %q open for writing past its guard"},
		{"mmap", "holds %q open for writing past its guard"},
		{"link", "%q has another name the sandbox could write it through"},
	} {
		t.Run(c.how, func(t *testing.T) {
			a := heldLock(t, c.how)
			if reason := fmt.Sprintf(c.reason, a.config); a.err == nil || !strings.Contains(a.out, reason) {
				t.Errorf("the session did not end with %q", reason)
			}
			if c.how != "link" {
				return
			}
			// The second name outlives the session.
			h, repo, config, written := a.h, a.repo, a.config, a.written
			next := h.command(repo, nil, "claudebox", "--shell", "-c", `echo '`+a.payload+`' >> .git/config.lock-link && echo WROTE`)
			b, err := next.CombinedOutput()
			t.Logf("next session: %v\n%s", err, b)
			if now, _ := os.ReadFile(config); string(now) != string(written) {
				t.Errorf("the next session wrote .git/config through the second name:\n%s", now)
			}
			h.run(repo, nil, "git", "status", "--short")
			if paths.Exists(a.marker) {
				t.Errorf("after the next session, the host's git status ran what the sandbox planted")
			}
		})
	}
}

// startShell starts claudebox --shell -c script in repo and returns once
// the script has touched "started" (or the session ended): its output, and
// the session's end.
func startShell(t *testing.T, h *e2eHost, repo, script string) (*strings.Builder, chan error) {
	t.Helper()
	s := h.command(repo, nil, "claudebox", "--shell", "-c", script)
	out := &strings.Builder{}
	s.Stdout, s.Stderr = out, out
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	waitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(repo, "started")) || len(exited) > 0 })
	return out, exited
}

// TestGuardsShowWhatChangedRuns: the host's git config sets a pager and an
// fsmonitor while a session runs; the session's end shows each beside its
// old value, and not a setting that runs nothing.
func TestGuardsShowWhatChangedRuns(t *testing.T) {
	h := newE2EHost(t)
	repo := filepath.Join(h.home, "code", "repo")
	h.gitRepo(repo)
	h.run(repo, nil, "git", "config", "core.pager", "less")
	out, exited := startShell(t, h, repo, `touch started; while ! test -e go; do sleep 0.01; done`)
	h.run(repo, nil, "git", "config", "core.pager", "more")
	h.run(repo, nil, "git", "config", "core.fsmonitor", "false")
	h.run(repo, nil, "git", "config", "x.y", "z")
	h.write(filepath.Join(repo, "go"), "")
	err := <-exited
	t.Logf("session: %v\n%s", err, out.String())
	for _, want := range []string{
		filepath.Join(repo, ".git", "config") + ` changed while the session ran`,
		`core.pager = "more"   (before: "less")`,
		`core.fsmonitor = "false"   (before: unset)`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the session's end does not show %q", want)
		}
	}
	if strings.Contains(out.String(), "x.y") {
		t.Error("the session's end shows a setting that runs nothing")
	}
}

// heldAttack is what heldLock did and saw.
type heldAttack struct {
	h                             *e2eHost
	repo, config, marker, payload string
	written                       []byte
	out                           string
	err                           error
}

// heldLock runs the host's git config (its steps one by one, so the
// sandbox is sure to catch the lock) against guardattack HOW, lets the
// sandbox write once the session has run on for a while, and checks the
// host side: .git/config is what the host wrote, and the host's git status
// runs nothing the sandbox planted.
func heldLock(t *testing.T, how string) heldAttack {
	h := newE2EHost(t)
	a := heldAttack{h: h, repo: filepath.Join(h.home, "code", "repo"), marker: filepath.Join(h.base, "marker")}
	h.gitRepo(a.repo)
	self, _ := os.Executable()
	h.copyFile(self, filepath.Join(a.repo, "guardattack"), 0o755)
	h.chown()
	a.config = filepath.Join(a.repo, ".git", "config")
	a.payload = `[core] fsmonitor = "touch ` + a.marker + `"`
	out, exited := startShell(t, h, a.repo, `touch started; exec ./guardattack `+how+` .git/config.lock '`+a.payload+`'`)
	// git config: create config.lock exclusively, write it, rename it over config.
	h.run(a.repo, nil, "sh", "-c", `set -C; cat .git/config > .git/config.lock && printf '[x]\n\ty = 1\n' >> .git/config.lock`)
	a.written, _ = os.ReadFile(a.config + ".lock")
	waitFor(t, "the sandbox to catch the lock", func() bool { return paths.Exists(filepath.Join(a.repo, "armed")) || len(exited) > 0 })
	h.run(a.repo, nil, "mv", ".git/config.lock", ".git/config")
	select {
	case a.err = <-exited:
	case <-time.After(2 * time.Second):
		h.write(filepath.Join(a.repo, "go"), "")
		a.err = <-exited
	}
	a.out = out.String()
	t.Logf("session: %v\n%s", a.err, a.out)
	if now, _ := os.ReadFile(a.config); string(now) != string(a.written) {
		t.Errorf(".git/config is not what the host wrote:\n%s", now)
	}
	h.run(a.repo, nil, "git", "status", "--short")
	if paths.Exists(a.marker) {
		t.Errorf("the host's git status ran what the sandbox planted")
	}
	return a
}

package living

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestSuperviseLockOutOfReach: the sandbox cannot end its own protection.
// It inherits no descriptor of the session lock (so flock -u and fchmod
// have nothing to work on) and none the invoking shell left open; while it
// runs, the host sees the project in use and its placeholders in place,
// whatever the sandbox did; when it ends, the placeholders are gone at once.
func TestSuperviseLockOutOfReach(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".ssh", "id_ed25519"), "SECRET-KEY\n")
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	envrc := filepath.Join(proj, ".envrc")

	script := `
		check() { if (eval "$2") >/dev/null 2>&1; then echo "ok $1"; else echo "FAIL $1"; fi; }
		check inherited-fd-closed '! cat /proc/self/fd/7'
		check no-lock-fd 'for p in /proc/[0-9]*; do for fd in $p/fd/*; do case "$(readlink $fd)" in *.lock|*session.lock|*/.claudebox/*) exit 1;; esac; done; done; true'
		check only-stdio-and-own-userns 'n=0; for fd in /proc/$$/fd/*; do case ${fd##*/} in 0|1|2) ;; *) test "$(readlink $fd)" = "$(readlink /proc/self/ns/user)" || exit 1; n=$((n+1));; esac; done; test $n = 1'
		for n in $(ls /proc/$$/fd); do timeout 1 flock -u "$n"; chmod 000 "/proc/$$/fd/$n"; done 2>/dev/null
		touch attacked
		while ! test -e done; do sleep 0.05; done
	`
	c := h.Command(proj, nil, "sh", "-c", `exec 7<"$HOME/.ssh/id_ed25519"; exec claudebox --shell -c "$1"`, "sh", script)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "the sandbox to attack", func() bool { return paths.Exists(filepath.Join(proj, "attacked")) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %v\n%s", <-exited, out.String())
	}
	if !instance.InUse(inst) {
		t.Error("after the attack the host no longer sees a session running")
	}
	if !instance.IsPlaceholder(envrc) {
		t.Error("the placeholder of .envrc is gone while the session runs")
	}
	h.Write(filepath.Join(proj, "done"), "")
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "FAIL") || !strings.Contains(out.String(), "ok only-stdio-and-own-userns") {
		t.Fatalf("inside the sandbox:\n%s", out.String())
	}
	if paths.Exists(envrc) {
		t.Error("the placeholder of .envrc outlived the session")
	}
	if instance.InUse(inst) {
		t.Error("the project is still in use after its only session ended")
	}
}

// TestSuperviseKilled: a supervisor killed outright takes its sandbox with
// it, and what it left on the host lasts only until the next claudebox
// command: here --gc, and a launch.
func TestSuperviseKilled(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	envrc := filepath.Join(proj, ".envrc")
	for _, next := range [][]string{{"--gc"}, {"--shell", "-c", "true"}} {
		c := h.Command(proj, nil, "claudebox", "--shell", "-c", "touch started; exec sleep 60.0417")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) })
		os.Remove(filepath.Join(proj, "started"))
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		if !instance.IsPlaceholder(envrc) {
			t.Fatal("the test needs the killed supervisor to leave a placeholder")
		}
		inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
		harness.WaitFor(t, "the sandbox to die with its supervisor", func() bool { return !instance.InUse(inst) && !harness.Running("sleep\x0060.0417\x00") })
		h.Run(proj, nil, "claudebox", next...)
		if paths.Exists(envrc) {
			t.Errorf("claudebox %s left the killed session's placeholder", strings.Join(next, " "))
		}
	}
}

// TestSuperviseForwardsSignals: a signal sent to claudebox alone ends the
// session, which exits as a shell reports it, and cleans up after itself.
func TestSuperviseForwardsSignals(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "touch started; exec sleep 61")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) })
	c.Process.Signal(syscall.SIGTERM)
	err := c.Wait()
	if c.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("exit after SIGTERM: %v, want status %d", err, 128+int(syscall.SIGTERM))
	}
	if harness.Running("sleep\x0061\x00") {
		t.Error("the sandbox outlived its session")
	}
	if paths.Exists(filepath.Join(proj, ".envrc")) {
		t.Error("the placeholder of .envrc outlived the session")
	}
}

// TestSuperviseExitAudit: what a session leaves in the project that the
// host would run or obey, where no guard could stand (a .claude deeper
// than the launch looks, a nested repository's hooks, a dev container), is
// moved aside when the session ends, named with the command that puts it
// back; what was there unchanged stays; the host's commit in the nested
// repository runs nothing the sandbox wrote.
func TestSuperviseExitAudit(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	// Deeper than the launch looks for repositories to guard.
	sub := filepath.Join(proj, "a", "b", "c", "sub")
	h.Write(filepath.Join(sub, "README"), "sub\n")
	h.GitRepo(sub)
	kept := filepath.Join(proj, "a", "b", "web", ".claude", "commands", "old.md")
	h.Write(kept, "mine\n")
	marker := filepath.Join(h.Base, "MARKER")

	planted := []string{
		filepath.Join(proj, "a", "b", "web", ".claude", "settings.json"),
		filepath.Join(sub, ".git", "hooks", "pre-commit"),
		filepath.Join(proj, ".devcontainer", "devcontainer.json"),
		filepath.Join(proj, "hidden"), // what a directory without permissions holds cannot be audited
	}
	// The session writes once its start's snapshot is taken: without it
	// the end cannot tell what the session made from what it changed, and
	// takes a source it wrote (src.go) for one the host runs.
	script := `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		mkdir -p a/b/web/.claude .devcontainer
		printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch ` + marker + `"}]}]}}' > a/b/web/.claude/settings.json
		printf '#!/bin/sh\ntouch ` + marker + `\n' > a/b/c/sub/.git/hooks/pre-commit && chmod +x a/b/c/sub/.git/hooks/pre-commit
		printf '{"initializeCommand":"touch ` + marker + `"}' > .devcontainer/devcontainer.json
		echo new > src.go
		mkdir -p hidden/.claude && echo '{}' > hidden/.claude/settings.json && chmod 000 hidden
	`
	_, out, exited := harness.StartSession(t, h, proj, script)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	stderr := out
	for _, p := range planted {
		if paths.Exists(p) {
			t.Errorf("%s is still in the project after the session", p)
		}
		if !strings.Contains(stderr.String(), "to put it back: mv -n "+filepath.Join(h.Home, ".claudebox", "moved-aside")) ||
			!strings.Contains(stderr.String(), " "+p+"\n") {
			t.Errorf("stderr does not name %s with the way back:\n%s", p, stderr.String())
		}
	}
	if !paths.Exists(kept) || !paths.Exists(filepath.Join(proj, "src.go")) {
		t.Error("the audit moved what it had no business with")
	}
	// The host replaced nothing during the session; the stand-ins the launch
	// made for missing git files are not the host's replacements.
	if strings.Contains(stderr.String(), "the host replaced") {
		t.Errorf("a session the host left alone names replaced files:\n%s", stderr.String())
	}
	h.Write(filepath.Join(sub, "x"), "x\n")
	h.Run(sub, nil, "git", "add", "x")
	h.Run(sub, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "x")
	if paths.Exists(marker) {
		t.Error("the host's commit ran the hook the sandbox planted")
	}

	// Report only: named, left in place.
	stderr.Reset()
	c := h.Command(proj, nil, "claudebox", "--move-aside=false", "--shell", "-c", "mkdir -p web/.vscode && echo '{}' > web/.vscode/tasks.json")
	c.Stderr = stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	tasks := filepath.Join(proj, "web", ".vscode", "tasks.json")
	if !paths.Exists(tasks) || !strings.Contains(stderr.String(), " "+tasks+"\n") || !strings.Contains(stderr.String(), "left in place") {
		t.Errorf("--move-aside=false: want %s named and left in place:\n%s", tasks, stderr.String())
	}
}

package living

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
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
	h := harness.NewHost(t)
	repo := filepath.Join(h.Home, "code", "repo")
	h.GitRepo(repo)
	marker := filepath.Join(h.Base, "marker")
	h.Write(filepath.Join(repo, ".envrc"), "export A=1\n")
	h.Write(filepath.Join(repo, ".vscode", "tasks.json"), "{}\n")
	os.RemoveAll(filepath.Join(repo, ".git", "hooks"))
	h.Write(filepath.Join(repo, ".git", "hooks", "README"), "hooks\n")
	git := func(args ...string) string {
		return h.Run(repo, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
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
			_, out, exited := harness.StartSession(t, h, repo, script)
			h.Run(repo, nil, "sh", "-c", c.host)
			h.Write(filepath.Join(repo, "go"), "")
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
	h := harness.NewHost(b)
	repo := filepath.Join(h.Home, "code", "repo")
	envrc := filepath.Join(repo, ".envrc")
	h.Write(envrc, "export A=1\n")
	s := h.Command(repo, nil, "claudebox", "--shell", "-c", "touch started; exec sleep 600")
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
		if h.UID >= 0 {
			os.Lchown(tmp, h.UID, h.GID)
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

// TestGuardsHeldBySandbox: a hostile sandbox catches the file the host's
// git config writes (.git/config.lock, in .git, which the sandbox writes)
// and keeps a way to write it after the host renames it over .git/config:
// a descriptor, a shared writable mapping, or a second name. The host
// takes git's steps one by one, so the sandbox is sure to catch the lock
// before the rename. The watcher ends the session before the sandbox
// writes, the file the host obeys stays as the host wrote it, and the
// host's git status runs nothing the sandbox planted. A second name the
// sandbox cannot make (seccomp answers link with EXDEV); one left behind
// (by a claudebox before that rule) would keep the next session from
// starting.
func TestGuardsHeldBySandbox(t *testing.T) {
	for _, c := range []struct{ how, reason string }{
		{"fd", "holds %q open for writing past its guard"},
		{"mmap", "holds %q open for writing past its guard"},
		{"link", "guardattack: no second name: invalid cross-device link"},
	} {
		t.Run(c.how, func(t *testing.T) {
			a := harness.HeldLock(t, c.how)
			reason := c.reason
			if strings.Contains(reason, "%q") {
				reason = fmt.Sprintf(reason, a.Config)
			}
			if a.Err == nil || !strings.Contains(a.Out, reason) {
				t.Errorf("the session did not end with %q", reason)
			}
			if c.how != "link" || !paths.Exists(a.Config+".lock-link") {
				return
			}
			// The second name outlives the session.
			h, repo, config, written := a.H, a.Repo, a.Config, a.Written
			next := h.Command(repo, nil, "claudebox", "--shell", "-c", `echo '`+a.Payload+`' >> .git/config.lock-link && echo WROTE`)
			b, err := next.CombinedOutput()
			t.Logf("next session: %v\n%s", err, b)
			if now, _ := os.ReadFile(config); string(now) != string(written) {
				t.Errorf("the next session wrote .git/config through the second name:\n%s", now)
			}
			h.Run(repo, nil, "git", "status", "--short")
			if paths.Exists(a.Marker) {
				t.Errorf("after the next session, the host's git status ran what the sandbox planted")
			}
		})
	}
}

// TestGuardsShowWhatChangedRuns: the host's git config sets a pager and an
// fsmonitor while a session runs; the session's end shows each beside its
// old value, and not a setting that runs nothing.
func TestGuardsShowWhatChangedRuns(t *testing.T) {
	h := harness.NewHost(t)
	repo := filepath.Join(h.Home, "code", "repo")
	h.GitRepo(repo)
	h.Run(repo, nil, "git", "config", "core.pager", "less")
	_, out, exited := harness.StartSession(t, h, repo, `touch started; while ! test -e go; do sleep 0.01; done`)
	h.Run(repo, nil, "git", "config", "core.pager", "more")
	h.Run(repo, nil, "git", "config", "core.fsmonitor", "false")
	h.Run(repo, nil, "git", "config", "x.y", "z")
	h.Write(filepath.Join(repo, "go"), "")
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

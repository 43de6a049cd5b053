package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayLivingPlantedWorktreeEntry: the agent plants entries in
// .git/worktrees that git never made: a dangling symlink, a symlink to a
// directory of the project holding a config.worktree whose fsmonitor runs,
// and a directory whose gitdir names a checkout that does not exist. The
// attack's aim is the launches after: that each refuses (the user is
// locked out of claudebox with a hint about replacing links with copies),
// or that a host git obeys the planted config.
// Host-side proof: the next launch starts, the host's git status in the
// project runs nothing, and git itself lists no planted worktree.
func TestReplayLivingPlantedWorktreeEntry(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	marker := filepath.Join(h.base, "marker")
	h.inside(proj, nil, `set -e
		ln -s /nonexistent .git/worktrees/dangling 2>/dev/null || { mkdir -p .git/worktrees; ln -s /nonexistent .git/worktrees/dangling; }
		mkdir -p planted
		printf '[core]\n\tfsmonitor = "touch `+marker+`; false"\n' > planted/config.worktree
		echo ../.. > planted/commondir
		echo /nonexistent/.git > planted/gitdir
		ln -s ../../planted .git/worktrees/linked
		mkdir .git/worktrees/bogus
		echo /nonexistent/checkout/.git > .git/worktrees/bogus/gitdir
		echo ../.. > .git/worktrees/bogus/commondir
		echo ref: refs/heads/master > .git/worktrees/bogus/HEAD
	`)
	var stderr bytes.Buffer
	c := h.command(proj, nil, "claudebox", "--shell", "-c", "echo started")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("the next launch: %v: %s\n%s", err, out, stderr.String())
	}
	h.run(proj, nil, "git", "status")
	h.run(proj, nil, "git", "worktree", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the host's git ran the planted fsmonitor")
	}
}

// TestReplayLivingHostRemovesPlaceholder: during a session, the host's
// git clean -fd (or git stash -u, which runs it) removes the stand-ins of
// missing protected paths (.vscode, .envrc, .idea: untracked empty
// directories). The attack: the sandbox then creates the removed paths on
// the host (.envrc, .vscode/tasks.json), which direnv and VS Code would run.
// A directory made again would be reachable through a descriptor the
// sandbox takes before its guard stands, so the session ends, saying why.
// Host-side proof: nothing the sandbox planted is on the host after it.
func TestReplayLivingHostRemovesPlaceholder(t *testing.T) {
	for _, clean := range [][]string{{"clean", "-fdq"}, {"stash", "-u", "-q"}} {
		t.Run(clean[0], func(t *testing.T) {
			h := newE2EHost(t)
			proj := filepath.Join(h.home, "code", "p")
			h.gitRepo(proj)
			h.write(filepath.Join(proj, "untracked.txt"), "x\n")
			attack := `
				try() { if (eval "$1") 2>/dev/null; then echo "WROTE $1"; fi; }
				touch started
				until test -e removed; do
					try 'echo evil > .envrc'
					try 'mkdir -p .vscode && echo "{}" > .vscode/tasks.json'
					sleep 0.01
				done
				echo alive`
			_, out, exited := startSession(t, h, proj, attack)
			os.Remove(filepath.Join(proj, "started"))
			if !instance.IsPlaceholder(filepath.Join(proj, ".vscode")) {
				t.Fatal("no stand-in for .vscode on the host")
			}
			// The session ends at the first stand-in directory git removes,
			// and its end removes the other placeholders while git is still
			// at them: git then warns that one it was removing is gone.
			gitClean := h.command(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, clean...)...)
			if out, err := gitClean.CombinedOutput(); err != nil {
				for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					if !strings.HasPrefix(line, "warning: failed to remove ") || !strings.HasSuffix(line, ": No such file or directory") {
						t.Fatalf("git %v: %v\n%s", clean, err, out)
					}
				}
			}
			if paths.Exists(filepath.Join(proj, "untracked.txt")) {
				t.Fatalf("git %v left untracked.txt", clean)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(5 * time.Second):
				h.write(filepath.Join(proj, "removed"), "")
				err = <-exited
			}
			if err == nil || !strings.Contains(out.String(), "the host removed the stand-in directory") {
				t.Errorf("the session did not end saying why: %v\n%s", err, out)
			}
			for _, name := range []string{".envrc", ".vscode", ".idea"} {
				if paths.Exists(filepath.Join(proj, name)) {
					t.Errorf("%s is on the host after the session", name)
				}
			}
		})
	}
}

// TestReplayLivingRaceRemovedPlaceholder: the sandbox spins creating
// .envrc and .vscode/tasks.json while the host's git clean -fd removes
// their stand-ins, to land its file before the watcher stands one again.
// Host-side proof, whoever wins: after the session nothing the sandbox
// wrote is at either path (what it landed is moved aside by the exit
// audit, which looks at a placeholder's path that is no longer a
// stand-in; a directory it made ends the session).
func TestReplayLivingRaceRemovedPlaceholder(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "p")
	h.gitRepo(proj)
	attack := `
		touch started
		until test -e removed; do
			{ echo evil > .envrc; mkdir -p .vscode && echo '{}' > .vscode/tasks.json; } 2>/dev/null
		done
		echo alive`
	_, out, exited := startSession(t, h, proj, attack)
	os.Remove(filepath.Join(proj, "started"))
	h.run(proj, nil, "git", "clean", "-fdq")
	// A stand-in again, or the sandbox's file, guarded as a file the host
	// made during the session would be.
	waitFor(t, "both paths to be guarded again", func() bool {
		return paths.Exists(filepath.Join(proj, ".vscode")) && paths.Exists(filepath.Join(proj, ".envrc")) || len(exited) > 0
	})
	h.write(filepath.Join(proj, "removed"), "")
	err := <-exited
	t.Logf("session: %v\n%s", err, out)
	for _, name := range []string{".envrc", ".vscode/tasks.json"} {
		if b, err := os.ReadFile(filepath.Join(proj, name)); err == nil {
			t.Errorf("%s on the host after the session: %q", name, b)
		}
	}
}

// TestReplayLivingSandboxWinsRemovedPlaceholder: as the race above, made
// certain: the watcher is stopped while the host's git clean -fd removes
// the stand-ins and the sandbox creates .envrc and .vscode/tasks.json in
// their place. Host-side proof: the watcher, let go, ends the session
// (nothing stands in for the paths), and after it neither file is on the
// host: the exit audit moved both aside, though they are guarded paths.
func TestReplayLivingSandboxWinsRemovedPlaceholder(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "p")
	h.gitRepo(proj)
	attack := `
		touch started
		until test -e removed; do sleep 0.02; done
		echo evil > .envrc && mkdir .vscode && echo '{}' > .vscode/tasks.json && touch landed
		sleep 10`
	c, out, exited := startSession(t, h, proj, attack)
	watcher := watcherOf(t, c.Process.Pid)
	if err := syscall.Kill(watcher, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h.run(proj, nil, "git", "clean", "-fdq")
	h.write(filepath.Join(proj, "removed"), "")
	waitFor(t, "the sandbox to land its files", func() bool { return paths.Exists(filepath.Join(proj, "landed")) || len(exited) > 0 })
	syscall.Kill(watcher, syscall.SIGCONT)
	err := <-exited
	if err == nil || !strings.Contains(out.String(), "session ended") {
		t.Errorf("the session went on with the sandbox's files at guarded paths: %v\n%s", err, out)
	}
	for _, name := range []string{".envrc", ".vscode/tasks.json"} {
		if b, err := os.ReadFile(filepath.Join(proj, name)); err == nil {
			t.Errorf("%s on the host after the session: %q\n%s", name, b, out)
		}
	}
}

// watcherOf finds the guard watcher among the children of supervisor.
func watcherOf(t *testing.T, supervisor int) int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", supervisor))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), "--watch-guards") {
				return pid
			}
		}
	}
	t.Fatal("no guard watcher")
	return 0
}

package replay

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

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayLivingPlantedWorktreeEntry: the agent plants entries in
// .git/worktrees that git never made: a dangling symlink, a symlink to a
// directory of the project holding a config.worktree whose fsmonitor runs,
// and a directory whose gitdir names a checkout that does not exist. The
// attack's aim is the launches after: that each refuses (the user is
// locked out of claudebox with a hint about replacing links with copies),
// or that a host git obeys the planted config. (.git/worktrees is now
// read-only inside: they are planted as an earlier sandbox left them.)
// Host-side proof: the next launch starts, the host's git status in the
// project runs nothing, and git itself lists no planted worktree.
func TestReplayLivingPlantedWorktreeEntry(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "marker")
	h.Run(proj, nil, "sh", "-c", `set -e
		mkdir -p .git/worktrees; ln -s /nonexistent .git/worktrees/dangling
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
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "echo started")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("the next launch: %v: %s\n%s", err, out, stderr.String())
	}
	h.Run(proj, nil, "git", "status")
	h.Run(proj, nil, "git", "worktree", "list")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the host's git ran the planted fsmonitor")
	}
}

// TestReplayLivingHostRemovesPlaceholder: during a session, the host's
// git clean -fd, git clean -fdx or git stash -u (which runs git clean)
// removes the stand-ins of missing protected directories (.vscode, .idea:
// untracked empty directories). That used to end the session ("the host
// removed the stand-in directory"). The attack: the sandbox keeps trying
// to create the removed paths on the host (.envrc, .vscode/tasks.json),
// which direnv and VS Code would run.
// Host-side proof: git says nothing but what it says without a session,
// the stand-ins are made again (or what the sandbox made first in the
// moment between is guarded in their place), the session goes on to its
// end (Claude Code's save into the missing .claude's private copy still
// works), and nothing the sandbox tried is on the host after it.
func TestReplayLivingHostRemovesPlaceholder(t *testing.T) {
	for _, clean := range [][]string{{"clean", "-fdq"}, {"clean", "-fdxq"}, {"stash", "-u", "-q"}} {
		t.Run(strings.Join(clean, " "), func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "p")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, "untracked.txt"), "x\n")
			attack := `
				try() { if (eval "$1") 2>/dev/null; then echo "WROTE $1"; fi; }
				touch started
				until test -e removed; do
					try 'echo evil > .envrc'
					try 'mkdir -p .vscode && echo "{}" > .vscode/tasks.json'
					sleep 0.01
				done
				try 'touch .claude/new'
				echo '{}' > .claude/settings.local.json && echo saved
				echo alive`
			_, out, exited := harness.StartSession(t, h, proj, attack)
			os.Remove(filepath.Join(proj, "started"))
			vscode := filepath.Join(proj, ".vscode")
			if !instance.IsPlaceholder(vscode) {
				t.Fatal("no stand-in for .vscode on the host")
			}
			gitClean := h.Command(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, clean...)...)
			if out, err := gitClean.CombinedOutput(); err != nil || len(out) > 0 {
				t.Fatalf("git %v: %v\n%s", clean, err, out)
			}
			if paths.Exists(filepath.Join(proj, "untracked.txt")) {
				t.Fatalf("git %v left untracked.txt", clean)
			}
			// git has removed it: what is there now is a stand-in made
			// again, or what the sandbox made first, guarded in its place.
			harness.WaitFor(t, ".vscode to be guarded again", func() bool { return paths.Exists(vscode) || len(exited) > 0 })
			time.Sleep(200 * time.Millisecond)
			h.Write(filepath.Join(proj, "removed"), "")
			// Claude Code's saves still go to the private copy in .claude's.
			if err := <-exited; err != nil || !strings.Contains(out.String(), "saved\nalive") || strings.Contains(out.String(), "WROTE touch") {
				t.Errorf("the session: %v\n%s", err, out)
			}
			for _, name := range []string{".envrc", ".vscode/tasks.json", ".idea", ".claude"} {
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
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	attack := `
		touch started
		until test -e removed; do
			{ echo evil > .envrc; mkdir -p .vscode && echo '{}' > .vscode/tasks.json; } 2>/dev/null
		done
		echo alive`
	_, out, exited := harness.StartSession(t, h, proj, attack)
	os.Remove(filepath.Join(proj, "started"))
	h.Run(proj, nil, "git", "clean", "-fdq")
	// A stand-in again, or the sandbox's file, guarded as a file the host
	// made during the session would be.
	harness.WaitFor(t, "both paths to be guarded again", func() bool {
		return paths.Exists(filepath.Join(proj, ".vscode")) && paths.Exists(filepath.Join(proj, ".envrc")) || len(exited) > 0
	})
	h.Write(filepath.Join(proj, "removed"), "")
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
// the stand-in of .vscode and the sandbox creates .vscode/tasks.json in
// its place (.envrc's stand-in, a socket, git clean passes over). Anyone
// could have made it (the host, another project's sandbox), so the
// session goes on. Host-side proof: the watcher, let go, guards what is
// there: the sandbox can no longer write it; and after the session
// nothing the sandbox wrote is on the host: the exit audit moved it aside.
func TestReplayLivingSandboxWinsRemovedPlaceholder(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	attack := `
		touch started
		until test -e removed; do sleep 0.02; done
		{ echo evil > .envrc; } 2>/dev/null && echo "WROTE .envrc"
		mkdir .vscode && echo '{}' > .vscode/tasks.json && touch landed
		until test -e resumed; do sleep 0.02; done
		for i in $(seq 500); do mountpoint -q .vscode && break; sleep 0.01; done
		{ echo '{"evil":1}' > .vscode/tasks.json; } 2>/dev/null && echo "WROTE again"
		{ echo '{}' > .vscode/launch.json; } 2>/dev/null && echo "WROTE launch"
		echo alive`
	c, out, exited := harness.StartSession(t, h, proj, attack)
	watcher := watcherOf(t, c.Process.Pid)
	if err := syscall.Kill(watcher, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h.Run(proj, nil, "git", "clean", "-fdq")
	h.Write(filepath.Join(proj, "removed"), "")
	harness.WaitFor(t, "the sandbox to land its files", func() bool { return paths.Exists(filepath.Join(proj, "landed")) || len(exited) > 0 })
	syscall.Kill(watcher, syscall.SIGCONT)
	h.Write(filepath.Join(proj, "resumed"), "")
	err := <-exited
	t.Logf("session: %v\n%s", err, out)
	if err != nil || !strings.Contains(out.String(), "alive") {
		t.Errorf("the session did not go on to its end: %v", err)
	}
	if strings.Contains(out.String(), "WROTE") {
		t.Errorf("the sandbox wrote past the guard")
	}
	for _, name := range []string{".envrc", ".vscode/tasks.json", ".vscode/launch.json"} {
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

// TestReplayLivingOverlappingRemovesStandIn: a session in ~/code/b, a
// repository without a .claude, stands in for it; a session of ~/code,
// started before it (so it does not guard b/.claude), has its agent
// remove that stand-in, again and again, until it can make a .claude of
// its own there, with hooks. That used to end the inner session.
// Host-side proof: the inner session goes on to its end, its agent can
// create nothing in b/.claude (the stand-in made again, or what the outer
// agent made, guarded read-only), and after both sessions no
// .claude/settings.json is left in b.
func TestReplayLivingOverlappingRemovesStandIn(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	b := filepath.Join(code, "b")
	h.Write(filepath.Join(code, "README"), "code\n")
	h.GitRepo(b)
	outerScript := `touch started
		until test -e go; do sleep 0.02; done
		for i in $(seq 2000); do
			rmdir b/.claude 2>/dev/null
			if mkdir b/.claude 2>/dev/null; then echo '{"hooks":{}}' > b/.claude/settings.json && echo planted; break; fi
		done
		touch b/planted
		until test -e done; do sleep 0.02; done`
	_, outerOut, outerExited := harness.StartSession(t, h, code, outerScript)
	innerScript := `touch started
		until test -e planted; do sleep 0.02; done
		for i in $(seq 500); do mountpoint -q .claude && break; sleep 0.01; done
		mkdir .claude/commands 2>/dev/null && echo WROTE
		echo alive`
	_, innerOut, innerExited := harness.StartSession(t, h, b, innerScript)
	h.Write(filepath.Join(code, "go"), "")
	innerErr := <-innerExited
	h.Write(filepath.Join(code, "done"), "")
	outerErr := <-outerExited
	t.Logf("outer: %v\n%s\ninner: %v\n%s", outerErr, outerOut, innerErr, innerOut)
	// Either the outer agent's .claude stands where the stand-in was, or
	// the inner watcher made the stand-in again each time first.
	t.Logf("the outer agent made its .claude in the stand-in's place: %v", strings.Contains(outerOut.String(), "planted"))
	if innerErr != nil || !strings.Contains(innerOut.String(), "alive") || strings.Contains(innerOut.String(), "WROTE") {
		t.Errorf("the inner session did not go on with its guard: %v", innerErr)
	}
	if paths.Exists(filepath.Join(b, ".claude", "settings.json")) {
		t.Error("b/.claude/settings.json is on the host after both sessions")
	}
}

// inotifyHog is a hostile sandbox's program in python3: it takes inotify
// instances until the kernel refuses one, says how many it holds, and
// keeps them until a file named "done" exists.
const inotifyHog = `
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
held = []
while True:
    fd = libc.inotify_init1(0)
    if fd < 0:
        break
    held.append(fd)
print("held", len(held), "errno", ctypes.get_errno(), flush=True)
open("started", "w").close()
while not os.path.exists("done"):
    time.sleep(0.05)
`

// TestReplayLivingInotifyExhaustion: the kernel counts inotify instances
// per user (fs.inotify.max_user_instances, 128 by default), and every
// launch's guard watcher needs one: a sandbox that took them all made
// another project's launch fail ("cannot watch the guards"). Host-side
// proof: while a sandbox holds all it can, another project's session
// starts and runs, and the user's own programs still get instances.
func TestReplayLivingInotifyExhaustion(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "python3", "apt-get install python3")
	a, b := filepath.Join(h.Home, "code", "a"), filepath.Join(h.Home, "code", "b")
	h.GitRepo(a)
	h.GitRepo(b)
	h.Write(filepath.Join(a, "hog.py"), inotifyHog)
	_, out, exited := harness.StartSession(t, h, a, "python3 hog.py")
	t.Logf("the hog: %s", out)
	if got := h.Run(b, nil, "claudebox", "--shell", "-c", "echo second"); got != "second\n" {
		t.Errorf("the second project's session: %q", got)
	}
	if got := h.Run(b, nil, "python3", "-c", "import ctypes; print(ctypes.CDLL(None).inotify_init1(0) >= 0)"); got != "True\n" {
		t.Errorf("the host's own program got no inotify instance: %q", got)
	}
	h.Write(filepath.Join(a, "done"), "")
	if err := <-exited; err != nil {
		t.Errorf("the hog's session: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "held ") {
		t.Errorf("the hog did not run: %s", out)
	}
}

package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayPlaceholdersOverlappingProjects: a session in ~/code and one in
// ~/code/x (a repository inside the ~/code project; each its own project,
// instance and lock) both guard x/.git/commondir and config.worktree, which
// do not exist, so both stand on the placeholders the first of them made
// on the host. The attack: one session ends while the other spins renaming
// prepared files into the missing guarded paths of x (a commondir pointing
// at a look-alike repository, a config.worktree whose core.fsmonitor runs).
// If the session that ends removes the placeholders, the survivor's guards
// (mounts on them) are detached, a rename lands and survives both cleanups
// and both exit audits (a guarded path); the host's git in x then runs the
// fsmonitor. And the survivor's watcher, seeing a guarded path removed,
// ends it.
// Host-side proof, in either order of ending, and when the session that
// ends is killed (kill -9) and --gc and the next launch clean up after it:
// the survivor keeps running (and its rename never lands), the placeholder
// stands until the last of the two ends and is gone after it, and the
// host's git status in x runs nothing.
func TestReplayPlaceholdersOverlappingProjects(t *testing.T) {
	for _, c := range []struct {
		survivor string
		killed   bool
	}{{"outer", false}, {"inner", false}, {"outer", true}} {
		survivor := c.survivor
		name := survivor + " survives"
		if c.killed {
			name += " a killed session"
		}
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			code := filepath.Join(h.Home, "code")
			x := filepath.Join(code, "x")
			h.Write(filepath.Join(code, "README"), "code\n")
			h.GitRepo(x)
			commondir := filepath.Join(x, ".git", "commondir")
			marker := filepath.Join(h.Base, "marker")
			// A sparse checkout's setting: git reads config.worktree.
			h.Run(x, nil, "git", "config", "extensions.worktreeConfig", "true")
			racer, other, prefix := code, x, "x/"
			if survivor == "inner" {
				racer, other, prefix = x, code, ""
			}
			// The racer's look-alike repository, and what it renames into
			// each missing guarded path it can: a commondir pointing at that
			// repository, a config.worktree whose fsmonitor runs.
			evil := filepath.Join(racer, "evil")
			for _, d := range []string{"objects", "refs"} {
				h.Write(filepath.Join(evil, d, ".keep"), "")
			}
			payload := fmt.Sprintf("[core]\n\tfsmonitor = touch %s\n", marker)
			h.Write(filepath.Join(evil, "HEAD"), "ref: refs/heads/main\n")
			h.Write(filepath.Join(evil, "config"), payload)
			targets := map[string]string{
				".git/commondir":          evil + "\n",
				".git/config.worktree":    payload,
				".git/info/attributes":    "* filter=x\n",
				".pre-commit-config.yaml": "repos: []\n",
			}
			var args []string
			for name, content := range targets {
				h.Write(filepath.Join(x, name+".new"), content)
				args = append(args, prefix+name)
			}
			self, _ := os.Executable()
			h.CopyFile(self, filepath.Join(racer, "renamerace"), 0o755)
			h.Chown()

			_, raceOut, raceExited := harness.StartSession(t, h, racer, `touch started; ./renamerace `+strings.Join(args, " "))
			otherCmd, otherOut, otherExited := harness.StartSession(t, h, other, `touch started; while ! test -e done; do sleep 0.05; done`)
			if len(raceExited) > 0 || len(otherExited) > 0 {
				t.Fatalf("a session ended early:\n%s\n%s", raceOut, otherOut)
			}
			if !instance.IsPlaceholder(commondir) {
				t.Fatal("the test needs a placeholder at x/.git/commondir")
			}
			if c.killed {
				otherCmd.Process.Signal(syscall.SIGKILL)
				<-otherExited
				harness.WaitFor(t, "the killed session's sandbox to end", func() bool { return !instance.InUse(instance.Dir(filepath.Join(h.Home, ".claudebox"), other)) })
				h.Run(other, nil, "claudebox", "--gc")
				h.Run(other, nil, "claudebox", "--shell", "-c", "true")
			} else {
				h.Write(filepath.Join(other, "done"), "")
				if err := <-otherExited; err != nil {
					t.Fatalf("the other session: %v\n%s", err, otherOut)
				}
			}
			// The racer spins for a second after the other session ended.
			time.Sleep(1500 * time.Millisecond)
			select {
			case err := <-raceExited:
				t.Errorf("the other session's end ended this one: %v\n%s", err, raceOut)
			default:
				if !instance.IsPlaceholder(commondir) {
					t.Errorf("the placeholder was removed while a session guarding it runs")
				}
				h.Write(filepath.Join(racer, "done"), "")
				if err := <-raceExited; err != nil {
					t.Errorf("the surviving session: %v\n%s", err, raceOut)
				}
			}
			t.Logf("the racing session:\n%s", raceOut)
			if strings.Contains(raceOut.String(), "RACED") {
				t.Errorf("the sandbox renamed its files over guarded paths")
			}
			if paths.Exists(commondir) {
				b, _ := os.ReadFile(commondir)
				t.Errorf("x/.git/commondir outlived both sessions: %q", b)
			}
			h.Run(x, nil, "git", "status", "--short")
			if paths.Exists(marker) {
				t.Errorf("the host's git status in x ran what the sandbox planted")
			}
		})
	}
}

// hostTools are what a developer runs on the project while a session runs,
// as shell commands: each one's exit status, output and errors are
// compared with a run without a session.
var hostTools = []struct{ name, script string }{
	{"git status", "git status --porcelain"},
	{"git add -A", "git add -A && git status --porcelain"},
	{"grep -r", "grep -r hello ."},
	{"find", "find . | LC_ALL=C sort"},
	{"tar -c", "tar -cf - . | tar -tf - | LC_ALL=C sort"},
	{"cp -r", "rm -rf ../copy && cp -r . ../copy && cd ../copy && find . | LC_ALL=C sort"},
	{"rsync -a", "if command -v rsync >/dev/null; then rm -rf ../copy && rsync -a . ../copy && cd ../copy && find . | LC_ALL=C sort; fi"},
}

// TestReplayPlaceholdersHostTools: the host's tools used to trip on the
// placeholders (mode 000): git status warned, grep -r, find, tar and cp -r
// failed. Host-side proof: during a session each tool exits as it does
// without one, says nothing more on stderr, and prints the same, but for
// find and the listings of tar and the copies, which name each placeholder
// (something must exist on the host for a mount point); and the sandbox
// still cannot create a protected path, write into its stand-in or change
// its mode: on the host the stand-ins stay as they were made, and are gone
// after the session.
func TestReplayPlaceholdersHostTools(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "src", "a.txt"), "hello\n")
	h.Write(filepath.Join(proj, ".claude", "commands", "c.md"), "hello\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "more")
	type result struct{ out, err, status string }
	runTools := func() map[string]result {
		r := map[string]result{}
		for _, tool := range hostTools {
			var out, errOut strings.Builder
			c := h.Command(proj, nil, "sh", "-c", tool.script)
			c.Stdout, c.Stderr = &out, &errOut
			status := "0"
			if err := c.Run(); err != nil {
				status = err.Error()
			}
			r[tool.name] = result{out.String(), errOut.String(), status}
		}
		return r
	}
	before := runTools()

	// The stand-in directories are private empty directories inside, where
	// writes land in memory and are lost; the rest refuse.
	attack := `
		try() { if (eval "$1") 2>/dev/null; then echo "WROTE $1"; fi; }
		try 'echo evil > .envrc'
		try 'mv .vscode .vscode.moved'
		try 'rmdir .idea'
		try 'echo evil > .git/hooks/pre-commit'
		try 'echo evil > .git/commondir'
		try 'echo evil > .git/config.worktree'
		echo '{}' > .vscode/tasks.json; mkdir .idea/x; chmod 777 .vscode .idea; echo evil > .envrc/x
		touch started
		while ! test -e done; do sleep 0.05; done`
	_, out, exited := harness.StartSession(t, h, proj, attack)
	os.Remove(filepath.Join(proj, "started"))
	type standIn struct {
		path string
		mode os.FileMode
	}
	var standIns []standIn
	filepath.Walk(proj, func(p string, fi os.FileInfo, err error) error {
		if err == nil && instance.IsStandIn(p, fi) {
			standIns = append(standIns, standIn{p, fi.Mode()})
		}
		return nil
	})
	// The sandbox changed none of them on the host.
	for _, name := range []string{".vscode", ".idea", ".envrc", ".git/commondir", ".git/config.worktree", ".claude/settings.json"} {
		if !instance.IsPlaceholder(filepath.Join(proj, name)) {
			t.Errorf("%s on the host is no longer the stand-in claudebox made", name)
		}
	}
	for _, s := range standIns {
		if s.mode.IsDir() {
			if entries, err := os.ReadDir(s.path); err != nil || len(entries) > 0 {
				t.Errorf("the stand-in %s on the host holds %v (%v)", s.path, entries, err)
			}
		}
	}
	during := runTools()
	h.Write(filepath.Join(proj, "done"), "")
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	if strings.Contains(out.String(), "WROTE") {
		t.Errorf("the sandbox wrote past a stand-in:\n%s", out)
	}
	// The launch makes git's folder of linked worktrees where missing, and
	// keeps it (read-only inside: the host's git gc follows a link made
	// there), as git's first git worktree add would, with a locked entry
	// git lists not (git worktree prune would remove the folder empty)
	// while a session runs.
	named := map[string]bool{"./.git/worktrees": true, "./.git/worktrees/.claudebox": true, "./.git/worktrees/.claudebox/locked": true}
	var ignored strings.Builder
	for _, s := range standIns {
		if paths.Exists(s.path) {
			t.Errorf("%s outlived the session", s.path)
		}
		rel, _ := filepath.Rel(proj, s.path)
		named["./"+rel] = true
		if s.mode&os.ModeSocket != 0 {
			ignored.WriteString("tar: ./" + rel + ": socket ignored\n")
		}
	}
	for _, tool := range hostTools {
		b, d := before[tool.name], during[tool.name]
		t.Logf("%s during a session: status %s, stderr %q, lines added: %q", tool.name, d.status, d.err, added(b.out, d.out))
		wantErr := b.err
		if tool.name == "tar -c" {
			// tar names the sockets standing in for files, and skips them.
			wantErr = sortLines(ignored.String()) + b.err
			d.err = sortLines(d.err)
		}
		if d.status != b.status || d.err != wantErr {
			t.Errorf("%s: status %s, stderr %q; without a session: %s, %q", tool.name, d.status, d.err, b.status, b.err)
		}
		for _, line := range added(b.out, d.out) {
			if !named[strings.TrimSuffix(line, "/")] || !strings.HasPrefix(tool.name, "find") && !strings.HasPrefix(tool.name, "tar") && !strings.HasPrefix(tool.name, "cp") && !strings.HasPrefix(tool.name, "rsync") {
				t.Errorf("%s printed %q during the session", tool.name, line)
			}
		}
		if missing := added(d.out, b.out); len(missing) > 0 {
			t.Errorf("%s no longer printed %q during the session", tool.name, missing)
		}
	}
	t.Logf("stand-ins: %v", standIns)
}

func sortLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// added lists the lines of after that are not in before.
func added(before, after string) []string {
	seen := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		seen[l] = true
	}
	var lines []string
	for _, l := range strings.Split(after, "\n") {
		if !seen[l] {
			lines = append(lines, l)
		}
	}
	return lines
}

package hostgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// hostEnds runs c, killing it after a minute, and says whether it ended
// by itself, with what it printed.
func hostEnds(c *exec.Cmd) (bool, string) {
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		return false, err.Error()
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
		return true, out.String()
	case <-time.After(time.Minute):
		c.Process.Kill()
		<-done
		return false, out.String()
	}
}

// TestReplayReview17DeepGitFIFO: the exit audit took a FIFO for a
// finding only at the top of a git directory (HEAD, shallow), and looked
// into refs only for replace refs, into logs not at all. The session
// makes the branch checked out a FIFO (git status reads it), another
// branch one (git branch), logs/HEAD one (git commit appends to it), and
// a .mailmap (git log reads it) and a .gitattributes a FIFO in the work
// tree: the host's git status, branch, commit and log then wait forever.
// Host-side proof: after the session each of them ends, and the end
// names what it moved.
func TestReplayReview17DeepGitFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "branch", "other")
	out := h.InsideStderr(proj, `set -e
		b=$(git symbolic-ref --short HEAD)
		rm .git/refs/heads/$b .git/refs/heads/other .git/logs/HEAD
		mkfifo .git/refs/heads/$b .git/refs/heads/other .git/logs/HEAD .mailmap
		mkdir -p src && mkfifo src/.gitattributes
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the FIFOs could not be planted:\n%s", out)
	}
	for _, args := range [][]string{
		{"status", "--porcelain"},
		{"branch"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "after"},
		{"log", "--oneline"},
	} {
		if ended, said := hostEnds(h.Command(proj, nil, "git", args...)); !ended {
			t.Errorf("the host's git %s waited on the session's FIFO:\n%s\n%s", strings.Join(args, " "), said, out)
		}
	}
	for _, rel := range []string{".git/logs/HEAD", ".git/refs/heads/other", ".mailmap", "src/.gitattributes"} {
		if fi, err := os.Lstat(filepath.Join(proj, rel)); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			t.Errorf("%s is still a FIFO after the session", rel)
		}
		if !strings.Contains(out, filepath.Join(proj, rel)) {
			t.Errorf("the end did not name %s:\n%s", rel, out)
		}
	}
}

// TestReplayReview17SnapshotFIFO: the session leaves a FIFO in place of
// a tracked file, and a file made mode 000, which the exit audit leaves
// (nothing the host runs) and git add refuses: every later launch's undo
// snapshot failed
// ("this session cannot be undone") while it stayed, so a session the
// agent ran next went without --undo. Host-side proof: the next
// session's start takes its snapshot, and --undo -y puts back the file
// that session changed.
func TestReplayReview17SnapshotFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "notes.txt"), "the user's\n")
	h.Write(filepath.Join(proj, "data.txt"), "data\n")
	h.Inside(proj, nil, "rm README && mkfifo README && chmod 000 data.txt")
	taken, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		echo the-session > notes.txt`)
	harness.WaitFor(t, "the next session's undo snapshot", func() bool {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found) > len(taken)
	})
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if undone, err := h.Bounded(proj, "--undo", "-y"); err != nil {
		t.Errorf("--undo: %v\n%s", err, undone)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(b) != "the user's\n" {
		t.Errorf("notes.txt after --undo: %q", b)
	}
}

// TestReplayReview17PathProgramLink: the user's ~/bin, on PATH, holds a
// link to a script the project tracks (ln -s ~/proj/tools/tool.sh
// ~/bin/tool). Only ~/.local/bin's links were resolved and their targets
// guarded: the session rewrites the script, which git status shows as a
// change to a tracked file, and the host's next tool runs the session's
// code; or it makes it a FIFO, on which every later launch waited
// forever (the launch reads each PATH program's #! line). Host-side
// proof: the host's tool prints what the user wrote, and the next launch
// ends.
func TestReplayReview17PathProgramLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	script := filepath.Join(proj, "tools", "tool.sh")
	h.Write(script, "#!/bin/sh\necho the-users\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	h.Run(proj, nil, "git", "add", "tools/tool.sh")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "tool")
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "README"), "")
	h.Run(h.Home, nil, "ln", "-s", script, filepath.Join(bin, "tool"))
	path := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	c := h.Command(proj, path, "claudebox", "--shell", "-c", `printf '#!/bin/sh\necho PWNED\n' > tools/tool.sh; tool; rm -f tools/x; mv tools/tool.sh tools/x && mkfifo tools/tool.sh; true`)
	said, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, said)
	}
	if ended, out := hostEnds(h.Command(proj, path, "tool")); !ended || strings.TrimSpace(out) != "the-users" {
		t.Errorf("the host's tool ran (ended %v): %q\n%s", ended, out, said)
	}
	if ended, out := hostEnds(h.Command(proj, path, "claudebox", "--shell", "-c", "true")); !ended {
		t.Errorf("the next launch waited on the session's FIFO:\n%s\n%s", out, said)
	}
}

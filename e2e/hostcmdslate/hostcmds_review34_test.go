package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34UndoOverFolders: --undo writes back the tracked
// files a session changed, where the session may have put a folder
// holding FIFOs, or a folder closed with chmod 000, in place of a file (a
// socket it can no longer make in the project: TestRefuseSockets).
// Proof: --undo -y ends, and puts back each tracked file's content as a
// regular file.
func TestReplayReview34UndoOverFolders(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "b.txt"), "tracked b\n")
	h.Write(filepath.Join(proj, "c.txt"), "tracked c\n")
	h.Run(proj, nil, "git", "add", "b.txt", "c.txt")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "more")
	out := h.Plant(proj, "folders in place of tracked files", `sleep 2; set -e
rm b.txt && mkdir -p b.txt/in && mkfifo b.txt/in/fifo b.txt/fifo
rm c.txt && mkdir c.txt && echo x > c.txt/x && chmod 000 c.txt`)
	if strings.Contains(out, "cannot be undone") {
		t.Fatalf("the session's snapshot was not taken:\n%s", out)
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	t.Logf("--undo -y: %v\n%s", err, undone)
	for name, want := range map[string]string{"b.txt": "tracked b\n", "c.txt": "tracked c\n"} {
		p := filepath.Join(proj, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("--undo did not put %s back as a file: %v %v", name, fi, err)
			continue
		}
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("--undo put back %s holding %q, want %q", name, b, want)
		}
	}
}

// TestReplayReview34HostWritesDuringSession: while a session runs, the
// user works on the host too: the editor saves a tracked README (a new
// file renamed over it), and the user writes their own ignored
// CLAUDE.local.md and an ignored build/gen their Makefile runs, which the
// exit audit judges as it would the session's (nothing tells who wrote
// them). Proof: after the exit and after --undo -y, nothing of the
// user's is lost: each of their files is in place with what they wrote,
// or moved aside with the mv that puts it back, which holds it.
func TestReplayReview34HostWritesDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "CLAUDE.local.md\n/build/\n/started\n")
	h.Write(filepath.Join(proj, "Makefile"), "gen:\n\tsh build/gen\n")
	h.Run(proj, nil, "git", "add", ".gitignore", "Makefile")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "make")
	_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done; rm done; echo session > notes.txt")
	h.WaitSnapshot()
	mine := map[string]string{"README": "the user's edit\n", "CLAUDE.local.md": "the user's own memory\n", "build/gen": "echo the user's own\n"}
	for name, content := range mine {
		p := filepath.Join(proj, name)
		harness.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		h.Write(p+".swp", content)
		harness.Must(t, os.Rename(p+".swp", p))
	}
	h.Chown()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	said := out.String() + undone
	t.Logf("the exit and --undo -y (%v):\n%s", err, said)
	for name, content := range mine {
		p := filepath.Join(proj, name)
		if b, err := os.ReadFile(p); err == nil && string(b) == content {
			continue
		}
		kept := false
		for _, line := range strings.Split(said, "\n") {
			if _, back, ok := strings.Cut(line, "to put it back: mv "); ok && strings.HasSuffix(back, " "+p) {
				from := strings.TrimSuffix(strings.TrimPrefix(back, "-n "), " "+p)
				if b, _ := os.ReadFile(from); string(b) == content {
					kept = true
				}
			}
		}
		if !kept {
			t.Errorf("the user's %s, written during the session, is lost: not in place, and nothing said holds it", name)
		}
	}
}

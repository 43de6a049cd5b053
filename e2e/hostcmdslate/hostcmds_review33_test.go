package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33UndoOverHostileTypes: --undo writes back the tracked
// files a session changed, where the session may have put anything: a
// FIFO in place of README (opening it to write would wait for a reader
// forever), a link to a file of the user's outside the project in place
// of another (writing through it would overwrite that file), a tracked
// file in a folder closed with chmod 000, a folder of tracked files
// replaced by a link to a folder of the user's beside the project
// (writing its files back through it would overwrite theirs). Proof: --undo -y ends, puts back
// each tracked file's content as a regular file, and the user's file the
// links name are byte-identical.
func TestReplayReview33UndoOverHostileTypes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "a.txt"), "tracked a\n")
	h.Write(filepath.Join(proj, "docs", "b.txt"), "tracked b\n")
	h.Write(filepath.Join(proj, "src", "c.txt"), "tracked c\n")
	h.Run(proj, nil, "git", "add", "a.txt", "docs/b.txt", "src/c.txt")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "more")
	secret := filepath.Join(h.Home, "secret.txt")
	h.Write(secret, "the user's\n")
	other := filepath.Join(h.Home, "other", "c.txt")
	h.Write(other, "the user's other\n")
	h.Chown()
	before := harness.Snapshots([]string{secret, other})
	out := h.Plant(proj, "a FIFO, a link and a closed folder in place of tracked files", `sleep 2; set -e
rm README && mkfifo README
rm a.txt && ln -s ~/secret.txt a.txt
echo changed > docs/b.txt && chmod 000 docs
rm -r src && ln -s ../other src`)
	if strings.Contains(out, "cannot be undone") {
		t.Fatalf("the session's snapshot was not taken:\n%s", out)
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	t.Logf("--undo -y: %v\n%s", err, undone)
	os.Chmod(filepath.Join(proj, "docs"), 0o755)
	for name, want := range map[string]string{"README": "hello\n", "a.txt": "tracked a\n", "docs/b.txt": "tracked b\n", "src/c.txt": "tracked c\n"} {
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
	harness.CompareSnapshots(t, before)
}

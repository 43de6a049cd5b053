package hostcmds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34UndoOverSocketAndFolder: --undo writes back the
// tracked files a session changed, where the session may have put a
// Unix socket (opening it fails, and a host client that connects to it
// later talks to whoever binds it next), a folder holding a FIFO and a
// folder closed with chmod 000, in place of a file. Proof: --undo -y
// ends, and puts back each tracked file's content as a regular file.
func TestReplayReview34UndoOverSocketAndFolder(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "a.txt"), "tracked a\n")
	h.Write(filepath.Join(proj, "b.txt"), "tracked b\n")
	h.Write(filepath.Join(proj, "c.txt"), "tracked c\n")
	h.Run(proj, nil, "git", "add", "a.txt", "b.txt", "c.txt")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "more")
	out := h.Plant(proj, "a socket and folders in place of tracked files", `sleep 2; set -e
rm a.txt && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("a.txt")'
rm b.txt && mkdir -p b.txt/in && mkfifo b.txt/in/fifo b.txt/fifo
rm c.txt && mkdir c.txt && echo x > c.txt/x && chmod 000 c.txt
test -S a.txt`)
	if strings.Contains(out, "cannot be undone") {
		t.Fatalf("the session's snapshot was not taken:\n%s", out)
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	t.Logf("--undo -y: %v\n%s", err, undone)
	for name, want := range map[string]string{"a.txt": "tracked a\n", "b.txt": "tracked b\n", "c.txt": "tracked c\n"} {
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

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/landlock"
)

// TestReplayReview35rRenameAcrossFolders: the Landlock domain that keeps
// sockets out of the project refused every rename from one folder to
// another in the whole sandbox (any Landlock domain refuses to move a file
// into another folder unless a rule of its own grants it, and bwrap's
// scoped domain had none): git mv a.txt sub/a.txt failed with "Invalid
// cross-device link", and so did a tool's os.rename of a folder into
// another, in the project or in /dev/shm. They work again, and a socket
// is still refused in the project.
func TestReplayReview35rRenameAcrossFolders(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	if landlock.ABI() < 2 {
		t.Skip("Landlock before its second ABI (Linux 5.19) refuses every rename across folders")
	}
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "moves")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "a.txt"), "a\n")
	h.Write(filepath.Join(proj, "old", "pkg", "x.go"), "package x\n")
	h.Run(proj, nil, "git", "add", "a.txt", "old")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	h.Chown()
	out := h.Run(proj, nil, "claudebox", "--shell", "-c", `mkdir -p sub new
git mv a.txt sub/a.txt && echo "git mv: ok"
python3 -c 'import os, socket
def try_(what, f):
    try:
        f()
        print(what + ": ok")
    except OSError as e:
        print(what + ": " + e.strerror)
try_("rename a folder", lambda: os.rename("old/pkg", "new/pkg"))
try_("socket in the project", lambda: socket.socket(socket.AF_UNIX).bind("sub/app.sock"))
os.mkdir("/dev/shm/d")
socket.socket(socket.AF_UNIX).bind("/dev/shm/d/app.sock")
try_("socket renamed across folders in /dev/shm", lambda: os.rename("/dev/shm/d/app.sock", "/dev/shm/app.sock"))'`)
	for _, want := range []string{
		"git mv: ok", "rename a folder: ok", "socket in the project: Permission denied",
		"socket renamed across folders in /dev/shm: ok",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("inside, want %q:\n%s", want, out)
		}
	}
}

package hostcmds

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32HostileProjectLeftovers: what the session leaves in
// the project is read by every later host command: a FIFO and a socket in
// place of a tracked file and beside it, in the git directory too, a
// sparse file of two terabytes, a directory closed (chmod 000) holding a
// file, a tree 300 directories deep, a link to the user's home. The
// attack's aim: that one of them hangs, crashes or refuses forever (the
// socket at the top had every later launch refuse: the exit now moves it
// aside). Proof: --undo -y, --changes, the next launch, --check, --list,
// --gc and --export each end within a minute, crash on none of it, and
// the next launch starts.
func TestReplayReview32HostileProjectLeftovers(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "secret.txt"), "the user's\n")
	h.Chown()
	before := harness.Snapshots([]string{filepath.Join(h.Home, "secret.txt")})
	h.Plant(proj, "FIFOs, sockets, a sparse file, a closed directory, a deep tree", `set -e
rm README .git/description && mkfifo README notes.txt .git/description
python3 -c 'import socket; [socket.socket(socket.AF_UNIX).bind(p) for p in ("app.sock", ".git/fsmonitor--daemon.ipc")]'
truncate -s 2T big.bin
mkdir -p closed/in && echo x > closed/in/f && chmod 000 closed
d=deep; for i in $(seq 300); do d=$d/d; done; mkdir -p $d
ln -s ~ home-link`)
	for _, args := range [][]string{{"--undo", "-y"}, {"--changes"}, {"--shell", "-c", "echo STARTED"}, {"--check"}, {"--list"}, {"--gc"}, {"--export"}} {
		out, err := h.Bounded(proj, args...)
		if strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
			t.Errorf("claudebox %s crashed: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "--shell" && (err != nil || !strings.Contains(out, "STARTED")) {
			t.Errorf("the next launch did not start: %v\n%s", err, out)
		}
		t.Logf("claudebox %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	harness.CompareSnapshots(t, before)
}

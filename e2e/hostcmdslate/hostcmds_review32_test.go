package hostcmdslate

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32HostileProjectLeftovers: what the session leaves in
// the project is read by every later host command: a FIFO in place of a
// tracked file and beside it, in the git directory too, beside a socket
// the host's git left there (the sandbox makes none in the project, and
// one it made at the top had every later launch refuse), a sparse file of
// two terabytes, a directory closed (chmod 000) holding a file, a tree
// 300 directories deep, a link to the user's home. The attack's aim: that
// one of them hangs, crashes or refuses forever. Proof: --undo -y, --changes, the next launch, --check, --list,
// --gc and --export each end within a minute, crash on none of it, and
// the next launch starts.
func TestReplayReview32HostileProjectLeftovers(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "secret.txt"), "the user's\n")
	h.Chown()
	before := harness.Snapshots([]string{filepath.Join(h.Home, "secret.txt")})
	h.Plant(proj, "FIFOs, a sparse file, a closed directory, a deep tree", `set -e
rm README .git/description && mkfifo README notes.txt .git/description
truncate -s 2T big.bin
mkdir -p closed/in && echo x > closed/in/f && chmod 000 closed
d=deep; for i in $(seq 300); do d=$d/d; done; mkdir -p $d
ln -s ~ home-link`)
	// No socket is made in the project inside (TestRefuseSockets): this
	// one is the host's git's fsmonitor daemon's, left in the git
	// directory (one at the top has the launch refuse, by design).
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	harness.Must(t, err)
	harness.Must(t, unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(proj, ".git", "fsmonitor--daemon.ipc")}))
	unix.Close(fd)
	h.Chown()
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

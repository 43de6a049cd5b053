package hostcmdslate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26dSnapshotLeasedFile: a process may take a write lease
// on a file of its own (fcntl F_SETLEASE), and every other open of it, git
// add's too, then waits until the kernel breaks the lease: 45 s by
// default, file after file. The undo snapshot's look for what git add
// cannot read took a file its owner may read for readable without opening
// it, so a session holding a lease on a file it made held its own snapshot
// at git add until it ended: no snapshot, and nothing the session did
// could be undone. The sandbox is now refused leases (seccomp); another
// process of the user's beside it, a file server's, is not: here the test
// takes the lease on the file the session wrote, holding the store's
// objects lock (as a launch pruning the store does) until the lease
// stands, so that it stands before the snapshot looks. Host-side proof:
// the snapshot is written, and no open of the file ever waited on the
// lease (/proc/locks lists a waiting open as the lease's breaker; the
// look's own open, which does not wait, is none).
func TestReplayReview26dSnapshotLeasedFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, "true")
	stores, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "objects.lock"))
	if len(stores) != 1 {
		t.Fatalf("the undo store's objects lock: %v", stores)
	}
	taken, _ := filepath.Glob(filepath.Join(filepath.Dir(stores[0]), "*.snapshot"))
	lock, err := os.OpenFile(stores[0], os.O_RDWR, 0)
	harness.Must(t, err)
	defer lock.Close()
	harness.Must(t, unix.Flock(int(lock.Fd()), unix.LOCK_EX))
	_, out, exited := harness.StartSession(t, h, proj, `echo the session > leased.txt; touch started
		while ! test -e done; do sleep 0.05; done; rm -f started done`)
	leased, err := os.Open(filepath.Join(proj, "leased.txt"))
	harness.Must(t, err)
	defer leased.Close()
	if _, err := unix.FcntlInt(leased.Fd(), unix.F_SETLEASE, unix.F_WRLCK); err != nil {
		t.Fatalf("F_SETLEASE: %v", err)
	}
	var fi syscall.Stat_t
	harness.Must(t, syscall.Fstat(int(leased.Fd()), &fi))
	lock.Close()
	waited := false
	harness.WaitFor(t, "the snapshot, or an open waiting on the lease", func() bool {
		found, _ := filepath.Glob(filepath.Join(filepath.Dir(stores[0]), "*.snapshot"))
		waited = leaseBroken(os.Getpid(), fi.Ino)
		return len(found) > len(taken) || waited
	})
	if waited {
		t.Errorf("an open of the leased file waited on the lease: the snapshot's git add read it\n%s", out)
	}
	unix.FcntlInt(leased.Fd(), unix.F_SETLEASE, unix.F_UNLCK)
	leased.Close()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
}

// leaseBroken says whether /proc/locks lists, under the lease that pid
// holds on inode ino, an open waiting for it (a "-> LEASE BREAKER" line of
// the lease's number).
func leaseBroken(pid int, ino uint64) bool {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false
	}
	number := ""
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 6 && f[1] == "LEASE" && f[4] == strconv.Itoa(pid) && strings.HasSuffix(f[5], ":"+strconv.FormatUint(ino, 10)):
			number = f[0]
		case number != "" && len(f) >= 4 && f[0] == number && f[1] == "->" && f[2] == "LEASE" && f[3] == "BREAKER":
			return true
		}
	}
	return false
}

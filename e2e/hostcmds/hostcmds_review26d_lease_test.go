package hostcmds

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
// could be undone. Host-side proof: the snapshot of a session holding
// such a lease is written while it runs. The test holds the store's
// objects lock (as a launch pruning the store does) until the lease is
// taken, so that the lease stands before the snapshot looks.
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
	_, out, exited := harness.StartSession(t, h, proj, `echo the session > leased.txt
		exec perl -e '$SIG{IO} = "IGNORE"; open(my $f, "<", "leased.txt") or die "open: $!";
			fcntl($f, 1024, 1) or print STDERR "F_SETLEASE: $!\n"; open(my $s, ">", "started") or die;
			close($s); select(undef, undef, undef, 0.05) until -e "done"; unlink "started", "done"'`)
	lock.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		found, _ := filepath.Glob(filepath.Join(filepath.Dir(stores[0]), "*.snapshot"))
		if len(found) > len(taken) {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("no snapshot written in 20 s: the leased file held git add\n%s", out)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
}

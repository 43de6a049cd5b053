package hostgit

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26dLeaseHoldsHostRead: a process may take a write lease
// on a file of its own (fcntl F_SETLEASE), and every other open of it then
// waits until the kernel breaks the lease, 45 s by default, file after
// file: a session leasing the project's files held the host's git status,
// editor and claudebox's undo snapshot (which also looks before git add
// reads, but a lease taken after the look held it still). Host-side
// proof: while the session tries to hold a lease, the host opens the
// file at once.
func TestReplayReview26dLeaseHoldsHostRead(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	_, out, exited := harness.StartSession(t, h, proj, `echo the session > notes.txt
		exec perl -e '$SIG{IO} = "IGNORE"; open(my $f, "<", "notes.txt") or die "open: $!";
			fcntl($f, 1024, 1) or print STDERR "F_SETLEASE: $!\n"; open(my $s, ">", "started") or die;
			close($s); select(undef, undef, undef, 0.05) until -e "done"; unlink "started", "done"'`)
	if f, err := os.OpenFile(filepath.Join(proj, "notes.txt"), os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
		t.Errorf("the host's open of the session's file: %v (a lease holds it)", err)
	} else {
		f.Close()
	}
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
}

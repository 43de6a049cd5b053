package session

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// deadPID is a pid no process has.
func deadPID(t *testing.T) int {
	for pid := 4 << 20; pid > 1<<20; pid-- {
		if unix.Kill(pid, 0) == unix.ESRCH {
			return pid
		}
	}
	t.Skip("no free pid")
	return 0
}

// TestSweepRun: the run files of a session that ended (its log's lock
// free, whether or not its pid runs again) and files of no session go;
// those of a running session (its log locked) and of one starting (its
// log not yet made: its supervisor runs) stay.
func TestSweepRun(t *testing.T) {
	// A runtime directory of the test's own: the sweep of its copies
	// (TestSweepRuntimeCopies) finds none.
	runtime := t.TempDir()
	os.Chmod(runtime, 0o700)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	state := t.TempDir()
	if err := makeRunDir(state); err != nil {
		t.Fatal(err)
	}
	dir := runDir(state)
	touch := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	self := strconv.Itoa(os.Getpid())
	live, err := openDecisionLog(filepath.Join(dir, "aaaa."+self))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	keep := []string{live.Name(), touch("aaaa." + self + ".sock"), touch("aaaa." + self + ".ctl"), touch("ffff." + self + newLogExt), touch("eeee." + self + ".sock")}
	dead := strconv.Itoa(deadPID(t))
	gone := []string{touch("cccc." + dead + ".log"), touch("cccc." + dead + ".sock"), touch("cccc." + dead + ".ctl"), touch(dead + ".sock"), touch("dddd." + self + ".log"), touch("dddd." + self + ".sock"), touch("bbbb." + self + ".log")}
	// A session's private copies of ~/.claude's directories: a directory
	// of files, removed whole once its session ended; a running one's
	// stays.
	for _, stem := range []string{"cccc." + dead, "aaaa." + self} {
		copies := filepath.Join(dir, stem+dirCopiesExt)
		if err := os.MkdirAll(filepath.Join(copies, "0"), 0o700); err != nil {
			t.Fatal(err)
		}
		touch(filepath.Join(stem+dirCopiesExt, "0", "a.md"))
	}
	gone = append(gone, filepath.Join(dir, "cccc."+dead+dirCopiesExt))
	keep = append(keep, filepath.Join(dir, "aaaa."+self+dirCopiesExt, "0", "a.md"))
	removed := SweepRun(state)
	slices.Sort(removed)
	slices.Sort(gone)
	if !slices.Equal(removed, gone) {
		t.Errorf("removed %v, want %v", removed, gone)
	}
	for _, k := range keep {
		if _, err := os.Lstat(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if got := LiveSessions(state, ""); len(got) != 0 {
		t.Errorf("LiveSessions of another project: %v", got)
	}
}

// TestEvalRunsRunFiles: the runs of one claudebox --eval --jobs N are
// sessions of one project in one process; each keeps its own decision log
// and control socket while the others start and end (they were named by
// the project and the pid alone: a run's start removed another's, or
// failed on it, "~/.claudebox is not writable").
func TestEvalRunsRunFiles(t *testing.T) {
	state, sockets := t.TempDir(), t.TempDir()
	var stops []func()
	for _, name := range []string{"a", "b", "c"} {
		s := &Session{agent: agent.Claude, stateDir: state, runFiles: newRunStem(state, "/p"), plan: mount.Plan{Project: instance.Project{Root: "/p"}, Relay: &mount.Relay{Socket: filepath.Join(sockets, name)}}}
		stop, err := s.startProxy()
		if err != nil {
			t.Fatalf("run %s: %v", name, err)
		}
		stops = append(stops, stop)
	}
	if live := LiveSessions(state, "/p"); len(live) != 3 {
		t.Errorf("live sessions: %v, want 3", live)
	}
	for _, l := range LiveSessions(state, "/p") {
		if _, err := os.Stat(l.Control()); err != nil || l.PID() != strconv.Itoa(os.Getpid()) {
			t.Errorf("%s: control %v, pid %q", l, err, l.PID())
		}
	}
	stops[0]()
	if live := LiveSessions(state, "/p"); len(live) != 2 {
		t.Errorf("live sessions after one ended: %v, want 2", live)
	}
	for _, stop := range stops[1:] {
		stop()
	}
}

// TestDecisionLogBesideSweeps: a session starting while others sweep the
// run directory (twenty launches of one project at once) gets its log:
// a sweep's look at whether a log is locked never makes the new log's own
// lock fail, and no sweep takes the new log for an ended session's.
func TestDecisionLogBesideSweeps(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	state := t.TempDir()
	if err := makeRunDir(state); err != nil {
		t.Fatal(err)
	}
	stem := filepath.Join(runDir(state), "aaaa."+strconv.Itoa(os.Getpid()))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				sessionLive(stem + logExt)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for i := range 3000 {
		f, err := openDecisionLog(stem)
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
		f.Close()
		os.Remove(stem + logExt)
	}
}

// TestMakePrivateDir: the directory is made the user's alone, or taken
// back to it; a link there, or another user's directory (made in /dev/shm
// since the probe looked: probe.RuntimeDir), is refused and left as it
// was, the link's target unchanged.
func TestMakePrivateDir(t *testing.T) {
	base := t.TempDir()
	made, open := filepath.Join(base, "made", "claudebox"), filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	for _, dir := range []string{made, open} {
		if err := makePrivateDir(dir); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(dir); err != nil || fi.Mode() != fs.ModeDir|0o700 {
			t.Errorf("%s: %v %v, want a directory of mode 0700", dir, fi.Mode(), err)
		}
	}
	target, link := filepath.Join(base, "target"), filepath.Join(base, "link")
	os.Mkdir(target, 0o755)
	os.Symlink(target, link)
	if err := makePrivateDir(link); err == nil {
		t.Error("a link is taken as the private directory")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target's mode changed: %v", fi.Mode())
	}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o777)
		os.Chown(other, 12345, 12345)
		if err := makePrivateDir(other); err == nil {
			t.Error("another user's directory is taken as the private directory")
		}
	}
}

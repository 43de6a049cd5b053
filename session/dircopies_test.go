package session

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
)

// BenchmarkWriteDirCopies writes the private copy of 100 agents and
// commands of 2 KB each, as a launch does before
// bwrap starts (the removal, at the session's end, is not timed).
func BenchmarkWriteDirCopies(b *testing.B) {
	c := mount.DirCopy{Path: "/home/u/.claude/agents"}
	for i := range 100 {
		c.Entries = append(c.Entries, mount.DirCopyEntry{Rel: strconv.Itoa(i) + ".md", Content: string(make([]byte, 2048))})
	}
	s := &Session{stateDir: b.TempDir()}
	// Where a launch writes them: in $XDG_RUNTIME_DIR when it is set.
	plan := mount.Plan{DirCopies: []mount.DirCopyAt{{Src: filepath.Join(dirCopiesAt(filepath.Join(runDir(s.stateDir), "x.1"), probe.RuntimeDir(os.Getenv)), "0"), Copy: c}}}
	for b.Loop() {
		remove, err := s.writeDirCopies(plan)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		remove()
		b.StartTimer()
	}
}

// TestSweepRuntimeCopies: the copies a session left in the runtime
// directory, or in /dev/shm, go once its supervisor is gone; a running
// one's stay, and so does what is not a session's copy.
func TestSweepRuntimeCopies(t *testing.T) {
	runtime, shm := filepath.Join(t.TempDir(), "claudebox"), t.TempDir()
	self, dead := strconv.Itoa(os.Getpid()), strconv.Itoa(deadPID(t))
	for _, dir := range []string{runtime, shm} {
		for _, name := range []string{"cccc." + dead + dirCopiesExt, "aaaa." + self + dirCopiesExt, "other"} {
			if err := os.MkdirAll(filepath.Join(dir, name, "0"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name, "0", "a.md"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	removed := sweepCopies([]string{runtime, shm})
	if want := []string{filepath.Join(runtime, "cccc."+dead+dirCopiesExt), filepath.Join(shm, "cccc."+dead+dirCopiesExt)}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, dir := range []string{runtime, shm} {
		for _, name := range []string{"aaaa." + self + dirCopiesExt, "other"} {
			if _, err := os.Lstat(filepath.Join(dir, name, "0", "a.md")); err != nil {
				t.Error(err)
			}
		}
	}
}

package session

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/claudebox/claudebox/mount"
)

// BenchmarkWriteDirCopies writes the private copy of 100 agents and
// commands of 2 KB each among the run files, as a launch does before
// bwrap starts (the removal, at the session's end, is not timed).
func BenchmarkWriteDirCopies(b *testing.B) {
	c := mount.DirCopy{Path: "/home/u/.claude/agents"}
	for i := range 100 {
		c.Entries = append(c.Entries, mount.DirCopyEntry{Rel: strconv.Itoa(i) + ".md", Content: string(make([]byte, 2048))})
	}
	s := &Session{stateDir: b.TempDir()}
	plan := mount.Plan{DirCopies: []mount.DirCopyAt{{Src: filepath.Join(runDir(s.stateDir), "x.1"+dirCopiesExt, "0"), Copy: c}}}
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

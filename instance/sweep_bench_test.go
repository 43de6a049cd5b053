package instance

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkSweepKilled is what every claudebox command adds to look for a
// killed session's stand-ins, with ten projects' sessions running (their
// records there, their locks held).
func BenchmarkSweepKilled(b *testing.B) {
	state := b.TempDir()
	for i := range 10 {
		dir := filepath.Join(state, "projects", fmt.Sprintf("%016x", i))
		lock, err := OpenLock(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer lock.Close()
		if err := LockShared(lock); err != nil {
			b.Fatal(err)
		}
		if err := RecordPlaceholders(dir, []string{filepath.Join(state, "p", ".envrc")}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if removed := SweepKilled(state); len(removed) > 0 {
			b.Fatal(removed)
		}
	}
}

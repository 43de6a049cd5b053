package gc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// fixture makes n instances as launches leave them (project-root, history,
// one session transcript), half of them with a root that still exists.
func fixture(b *testing.B, n int) string {
	b.Helper()
	state := b.TempDir()
	live := b.TempDir()
	for i := range n {
		root := fmt.Sprintf("/nonexistent/claudebox-bench/p%d", i)
		if i%2 == 0 {
			root = filepath.Join(live, fmt.Sprint(i))
			os.Mkdir(root, 0o755)
		}
		dir := instance.Dir(state, root)
		sessions := filepath.Join(dir, ClaudeProjectDir(root))
		if err := os.MkdirAll(sessions, 0o700); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, instance.RootFile), []byte(root+"\n"), 0o600)
		os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(`{"display":"hi"}`+"\n"), 0o600)
		os.WriteFile(filepath.Join(sessions, "s.jsonl"), []byte(`{"cwd":"`+root+`"}`+"\n"), 0o600)
	}
	return state
}

func benchCounts(b *testing.B, f func(b *testing.B, state string)) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			state := fixture(b, n)
			b.ResetTimer()
			for b.Loop() {
				f(b, state)
			}
		})
	}
}

// BenchmarkGCDryRun is claudebox --gc --dry-run.
func BenchmarkGCDryRun(b *testing.B) {
	benchCounts(b, func(b *testing.B, state string) {
		sum, err := Collect(state, Mounts{}, true, func(Event) {}, func(Skipped) {})
		if err != nil || sum.Removed == 0 {
			b.Fatal(sum, err)
		}
	})
}

// BenchmarkList is claudebox --list, without printing.
func BenchmarkList(b *testing.B) {
	benchCounts(b, func(b *testing.B, state string) {
		insts, _, _, err := Scan(state, Mounts{})
		if err != nil || len(insts) == 0 {
			b.Fatal(err)
		}
		Sort(insts)
	})
}

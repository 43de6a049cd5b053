package untrusted

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkRemoveAll removes 5,000 directories the sandbox could leave in
// an instance, one in another (nest) or side by side (flat), and has rm
// -rf remove the nest: a nest costs what as many directories side by
// side cost, each the filesystem's removal of a directory (on ext4 with
// online discard about what the sandbox's mkdir of it cost), not its
// depth.
func BenchmarkRemoveAll(b *testing.B) {
	const n = 5000
	plant := map[string]func(b *testing.B, dir string){
		"nest": func(b *testing.B, dir string) { deepNest(b, dir, "inst", n, 0o700, "/nonexistent") },
		"flat": func(b *testing.B, dir string) {
			must(b, os.Mkdir(filepath.Join(dir, "inst"), 0o700))
			for i := range n {
				must(b, os.Mkdir(filepath.Join(dir, "inst", fmt.Sprint(i)), 0o700))
			}
		},
	}
	remove := map[string]func(dir string) error{
		"":       func(dir string) error { return RemoveAll(dir, "inst") },
		"-rm-rf": func(dir string) error { return exec.Command("rm", "-rf", filepath.Join(dir, "inst")).Run() },
	}
	for _, name := range []string{"nest", "flat", "nest-rm-rf"} {
		shape, by := name[:4], name[4:]
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				b.StopTimer()
				plant[shape](b, dir)
				b.StartTimer()
				must(b, remove[by](dir))
			}
		})
	}
}

package probe

import (
	"path/filepath"
	"testing"
)

// BenchmarkPHPDirCopy reads and rebuilds this host's /etc/php directories
// of ini files, as a launch does for their private copies (phpDirCopy),
// where PHP is installed.
func BenchmarkPHPDirCopy(b *testing.B) {
	dirs, _ := filepath.Glob("/etc/php/*/cli")
	mods, _ := filepath.Glob("/etc/php/*/mods-available")
	dirs = append(dirs, mods...)
	if len(dirs) == 0 {
		b.Skip("no PHP installed")
	}
	for b.Loop() {
		for _, d := range dirs {
			if _, _, ok := phpDirCopy("/etc", d); !ok {
				b.Fatal(d)
			}
		}
	}
}

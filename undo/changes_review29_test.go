package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPackageArchive: packages and the archives tools unpack and run are
// told by their extensions, whatever their case; a source map, a log and
// a compressed file that is no archive (a .gz alone) are not.
func TestPackageArchive(t *testing.T) {
	for path, want := range map[string]bool{
		"vendor/pkg.tgz":                  true,
		"dist/app-1.0.0.tar.gz":           true,
		"dist/app-1.0.0-py3-none-any.whl": true,
		"vendor/cache/nokogiri-1.16.gem":  true,
		"dist/gradle-8.10-bin.zip":        true,
		"build/App.NUPKG":                 true,
		"dist/index.js.map":               false,
		"logs/build.log":                  false,
		"data/dump.sql.gz":                false,
		"README.md":                       false,
	} {
		if got := packageArchive(path); got != want {
			t.Errorf("packageArchive(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestHostRunPickleAndArchive: a pickle and a package the session made
// or changed where git ignores it are what the host runs, whatever their
// mode and first bytes; a log beside them is not.
func TestHostRunPickleAndArchive(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	for _, rel := range []string{"cache/model.pkl", "cache/x.PICKLE", "models/m.joblib", "vendor/pkg.tgz", "logs/run.log", "checkpoints/epoch=3.ckpt", "models/model.pt", "models/resnet.pth"} {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel := range now.recent {
		if got, want := now.hostRun(checkout, rel), rel != "logs/run.log"; got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunBuildFiles: a build file where git ignores it is one the
// host runs, by its name (Meson's downloaded subproject, Bazel's BUILD
// that //... takes, CMake's, dune's) or its extension (a .bzl a BUILD
// loads, a Gradle script, a gyp file); a file that only shares a
// build file's stem is not.
func TestHostRunBuildFiles(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]bool{
		"subprojects/greet/meson.build": true, "out/BUILD": true, "out/BUILD.bazel": true, "out/defs.bzl": true, "out/MODULE.bazel": true,
		"out/REPO.bazel": true, "out/WORKSPACE": true, "out/BUCK": true, "build/_deps/z-src/CMakeLists.txt": true, "gen/dune": true,
		"gen/SConscript": true, "gen/local.gradle": true, "build/config.gypi": true, "gen/app.csproj": true, "gen/pom.xml": true,
		"notes/BUILD.md": false, "notes/meson.build.txt": false, "out/build": false, "out/CMakeLists.txt.bak": false,
	}
	for rel := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel, want := range files {
		if got := now.hostRun(checkout, rel); got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

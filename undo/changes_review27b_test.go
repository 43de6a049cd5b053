package undo

import "testing"

// TestBuildState: CMake's cache and Meson's pickles are what a build
// reads as it stands; a build directory's logs and CMake's sources are
// not.
func TestBuildState(t *testing.T) {
	for path, want := range map[string]bool{
		"build/CMakeCache.txt":                    true,
		"out/rel/CMakeCache.txt":                  true,
		"mbuild/meson-private/coredata.dat":       true,
		"mbuild/meson-private/install.dat":        true,
		"mbuild/meson-private/cmd_line.txt":       false,
		"mbuild/meson-logs/meson-log.txt":         false,
		"CMakeLists.txt":                          false,
		"data/coredata.dat":                       false,
		"build/CMakeFiles/CMakeOutput.log":        false,
		"mbuild/meson-private/sanitycheckc.c":     false,
		"build/CMakeFiles/3.25.1/CMakeSystem.txt": false,
	} {
		if got := buildState(path); got != want {
			t.Errorf("buildState(%q) = %v, want %v", path, got, want)
		}
	}
}

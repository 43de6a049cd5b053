package undo

import "testing"

// TestCargoBuildOutput: what a build script printed, which cargo applies
// again, is known by where cargo keeps it in any target directory; an
// output file elsewhere is none.
func TestCargoBuildOutput(t *testing.T) {
	for path, want := range map[string]bool{
		"out/debug/build/app-17eb751571e7872b/output":         true,
		"target/release/build/ring-0123456789abcdef/output":   true,
		"build/app-17eb751571e7872b/output":                   true,
		"out/debug/build/app-17eb751571e7872b/stderr":         false,
		"out/debug/build/app-17eb7515/output":                 false,
		"results/app-17eb751571e7872b/output":                 false,
		"out/debug/build/app-17eb751571e7872b/out/gen/output": false,
		"out/debug/build/app-17EB751571E7872B/output":         false,
		"out/debug/build/-17eb751571e7872b/output":            false,
	} {
		if got := cargoBuildOutput(path); got != want {
			t.Errorf("cargoBuildOutput(%q) = %v, want %v", path, got, want)
		}
	}
}

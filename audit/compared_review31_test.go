package audit

import (
	"path"
	"slices"
	"testing"
)

// TestComparedIn: a name looked up among a directory's entries (In,
// HasName) is found exactly where the whole path is (Has), for names
// that sort between a directory's entries (b.c, b/c and bc beside b),
// at the top and below it.
func TestComparedIn(t *testing.T) {
	paths := []string{"a.b", "a/b", "a/b.c", "a/b/c", "a/b/c/d", "a/bc", "a/b0", "a0", "ab", "x", "a/b/c.d", "z/y"}
	slices.Sort(paths)
	var c Compared
	for _, p := range paths {
		c.names += p
		c.ends = append(c.ends, uint32(len(c.names)))
	}
	names := []string{"a", "b", "b.c", "c", "d", "bc", "b0", "x", "y", "a.b", "a0", "ab", "c.d", "z", ""}
	for _, dir := range []string{".", "a", "a/b", "a/b/c", "z", "q", "a.b"} {
		in := c.In(dir)
		for _, name := range names {
			full := path.Join(dir, name)
			if name == "" {
				full = dir + "/"
			}
			if got, want := in.HasName([]byte(name)), c.Has(full); got != want {
				t.Errorf("in %s, %q: %v, as a path %v", dir, name, got, want)
			}
		}
	}
}

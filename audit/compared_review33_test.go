package audit

import (
	"slices"
	"strings"
	"testing"
)

// TestComparedBelow: a directory's entries searched within its parent's
// (Below, from the top down) are exactly those In finds in the whole
// index, for directories whose names sort among their siblings' files
// and directories (b.c, b/c and bc beside b, b-x before b/), at each
// depth, and for a directory with none.
func TestComparedBelow(t *testing.T) {
	paths := []string{"a.b", "a/b", "a/b.c", "a/b/c", "a/b/c/d", "a/bc", "a/b0", "a0", "ab", "x", "a/b/c.d", "z/y", "a/b-x/y", "a/b/c/e/f", "a/b/d/e", "a/bc/d", "b/a/b/c", "b/a/b0"}
	slices.Sort(paths)
	var c Compared
	for _, p := range paths {
		c.names += p
		c.ends = append(c.ends, uint32(len(c.names)))
	}
	for _, dir := range []string{"a", "a/b", "a/b/c", "a/b/c/e", "a/b/d", "a/bc", "a/b-x", "b", "b/a", "b/a/b", "z", "q", "a/q", "a/b/q/r", "a.b"} {
		in := c.In(".")
		for name := range strings.SplitSeq(dir, "/") {
			in = in.Below(name)
		}
		want := c.In(dir)
		if in.lo != want.lo || in.hi != want.hi || in.skip != want.skip {
			t.Errorf("%s: below from the top [%d, %d) skip %d, In [%d, %d) skip %d", dir, in.lo, in.hi, in.skip, want.lo, want.hi, want.skip)
		}
	}
}

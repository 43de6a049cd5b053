package audit

import (
	"slices"
	"testing"
)

// TestAtMost: of the files an audit reads the names of (.envrc files,
// Gemfiles, mise configurations), those past the bound are named as not
// examined, each once, saying the bound; none where they are within it.
func TestAtMost(t *testing.T) {
	w := &walker{root: "/r"}
	if got := w.atMost([]string{"a", "b"}, 2, "read %d at most"); !slices.Equal(got, []string{"a", "b"}) || w.report.NotExamined != nil {
		t.Errorf("within the bound: %q, not examined %q", got, w.report.NotExamined)
	}
	got := w.atMost([]string{"a", "b", "c", "d"}, 2, "read %d at most")
	if want := []string{"/r/c: read 2 at most", "/r/d: read 2 at most"}; !slices.Equal(got, []string{"a", "b"}) || !slices.Equal(w.report.NotExamined, want) {
		t.Errorf("past the bound: %q, not examined %q, want %q", got, w.report.NotExamined, want)
	}
}

// TestIncludesUnspelled: a file found twice to include one by a path the
// audit cannot spell is named once.
func TestIncludesUnspelled(t *testing.T) {
	w := &walker{root: "/r"}
	w.includesUnspelled("Makefile")
	w.includesUnspelled("sub/.envrc")
	w.includesUnspelled("Makefile")
	if want := []string{"/r/Makefile", "/r/sub/.envrc"}; !slices.Equal(w.report.IncludesUnspelled, want) {
		t.Errorf("IncludesUnspelled = %q, want %q", w.report.IncludesUnspelled, want)
	}
}

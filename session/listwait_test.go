package session

import (
	"testing"
	"time"

	"github.com/claudebox/claudebox/undo"
)

// TestListWait: the sandbox's start waits for its snapshot's list of
// ignored files up to the bound, but not where the checkout's last list
// outlasted it (this one would be late again, and is then judged as late
// lists are: undo.TestListGateLate); where the checkout does not share the
// undo store's clock, a late list is none, and the start waits as long as
// a large list takes, whatever the last took.
func TestListWait(t *testing.T) {
	for _, c := range []struct {
		shares, outlasts bool
		want             time.Duration
	}{
		{true, false, undo.ListBound},
		{true, true, 0},
		{false, false, ignoredListBoundApart},
		{false, true, ignoredListBoundApart},
	} {
		if got := listWait(c.shares, c.outlasts); got != c.want {
			t.Errorf("listWait(%v, %v) = %v, want %v", c.shares, c.outlasts, got, c.want)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/claudebox/claudebox/gc"
)

// --gc and --list say of an entry they leave alone what it is and why, and
// what to do about it where the user can: one line, then the hint.
func TestSkipNotice(t *testing.T) {
	for _, c := range []struct {
		skipped gc.Skipped
		want    string
	}{
		{
			gc.Skipped{Dir: "/s/projects/1", Reason: "project-root names /new, whose instance is elsewhere", Cause: gc.ForeignRoot, Root: "/new"},
			"claudebox: skipped /s/projects/1: project-root names /new, whose instance is elsewhere\n" +
				"hint: if --move was interrupted, run claudebox --move /new again in the project's new place\n",
		},
		{
			gc.Skipped{Dir: "/s/projects/2", Reason: "is not readable (the sandbox took its permissions away)", Cause: gc.Unreadable},
			"claudebox: skipped /s/projects/2: is not readable (the sandbox took its permissions away)\n" +
				"hint: chmod -R u+rwX /s/projects/2\n",
		},
		{
			gc.Skipped{Dir: "/s/projects/x\x1b", Reason: "is not an instance directory"},
			"claudebox: skipped /s/projects/x\\x1b: is not an instance directory\n",
		},
	} {
		var w strings.Builder
		report(&w, skipNotice(c.skipped))
		if w.String() != c.want {
			t.Errorf("got %q, want %q", w.String(), c.want)
		}
	}
}

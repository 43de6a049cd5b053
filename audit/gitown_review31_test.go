package audit

import (
	"testing"

	"github.com/claudebox/claudebox/projectfiles"
)

// TestGitNamesAreGitsOwn: every name the audit judges at a git
// directory's top by what git does with it (run or followed, walked, data
// only, a pseudo-ref) is git's own by the one list the launch shows
// (projectfiles.GitOwn): a name the audit knows as git's that the launch
// hid would leave git inside without it.
func TestGitNamesAreGitsOwn(t *testing.T) {
	var names []string
	for _, m := range []map[string]bool{gitRunNames, gitData, gitDataDirs, pseudoRefs} {
		for name := range m {
			names = append(names, name)
		}
	}
	for name := range gitWalked {
		names = append(names, name)
	}
	for _, name := range names {
		if !projectfiles.GitOwn(name) {
			t.Errorf("%s: the audit judges it as git's, and projectfiles.GitOwn does not list it", name)
		}
	}
}

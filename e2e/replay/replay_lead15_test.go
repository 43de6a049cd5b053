package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayLead15VersionFiles: the files by which the host's version
// managers pick the interpreter a project runs were not judged at exit.
// uv reads an interpreter's path from .python-version (uv run, uv sync),
// and older pyenv and rbenv took a version named with ../ as a path. The
// session plants an executable "python" of its own and names it there,
// and in .ruby-version, .node-version and .nvmrc. Host-side proof: none
// of them stands at its path after the session, and the exit names them.
func TestReplayLead15VersionFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		mkdir -p .cache/py/bin
		printf '#!/bin/sh\ntouch `+marker+`\n' > .cache/py/bin/python
		chmod +x .cache/py/bin/python
		echo "$PWD/.cache/py/bin/python" > .python-version
		echo ../../../../$PWD/.cache/rb > .ruby-version
		echo ../../../../$PWD/.cache/node > .node-version
		cp .node-version .nvmrc`)
	for _, name := range []string{".python-version", ".ruby-version", ".node-version", ".nvmrc"} {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's version managers read it:\n%s", name, out)
		}
		if !strings.Contains(out, name) {
			t.Errorf("the exit does not name the session's %s:\n%s", name, out)
		}
	}
}

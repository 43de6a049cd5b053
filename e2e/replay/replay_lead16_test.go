package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayLead16NodeModulesLink: a node project with no node_modules
// installed; git ignores node_modules and build/. The session writes a
// runner into build/ and makes node_modules a link to it: git status is
// clean, and neither is a directory of installed dependencies the audit
// judged. Host-side proof: the host's npm test, which looks its script's
// command up in node_modules/.bin, runs nothing planted; the exit names
// the link.
func TestReplayLead16NodeModulesLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "package.json"), `{"name":"p","version":"1.0.0","scripts":{"test":"run-tests"}}`+"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules\nbuild/\n")
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "package")
	marker := h.Marker()
	stderr := h.InsideStderr(proj, `
		set -e
		mkdir -p build/deps/.bin
		printf '#!/bin/sh\ntouch `+marker+`\n' > build/deps/.bin/run-tests
		chmod +x build/deps/.bin/run-tests
		ln -s build/deps node_modules
		test -z "$(git status --porcelain)"
	`)
	out, _ := h.Command(proj, npmEnv, "npm", "test").CombinedOutput()
	if paths.Exists(marker) {
		t.Errorf("the host's npm test ran the session's runner through its node_modules link:\n%s\n%s", out, stderr)
	}
	if !strings.Contains(stderr, "node_modules") {
		t.Errorf("the exit does not name the node_modules link:\n%s", stderr)
	}
	if _, err := os.Lstat(filepath.Join(proj, "node_modules")); err == nil {
		t.Errorf("the node_modules link is still in place")
	}
}

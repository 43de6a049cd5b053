package harness

import (
	"strings"
	"testing"
)

// CommitAll commits every file of proj, as the project's own.
func CommitAll(h *Host, proj, message string) {
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message)
}

// PlantUnseen runs script in a session of proj, where it plants what,
// and fails the test unless git status then shows nothing: the attack is
// one the host's git does not see. It returns the session's stderr.
func PlantUnseen(t *testing.T, h *Host, proj, what, script string) string {
	t.Helper()
	out := h.InsideStderr(proj, "set -e\n"+script+"\n"+`test -z "$(git status --porcelain)" && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the %s could not be planted here:\n%s", what, out)
	}
	return out
}

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxProjectSocketsOptIn: the sandbox's command makes no Unix
// socket in the project, where a host client pointed at it would talk to
// the sandbox's listener, until the user opts in with
// --with-project-sockets (a project-local PostgreSQL's, overmind's).
func TestSandboxProjectSocketsOptIn(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "sockets")
	h.GitRepo(proj)
	h.Chown()
	bind := `python3 -c 'import socket, sys
try:
    socket.socket(socket.AF_UNIX).bind("app.sock")
    print("BOUND")
except OSError as e:
    print("REFUSED", e.strerror)'`
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--shell", "-c", bind)); out != "REFUSED Permission denied" {
		t.Errorf("a socket in the project, without the opt-in: %s", out)
	}
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--with-project-sockets", "--shell", "-c", bind+"; rm -f app.sock")); out != "BOUND" {
		t.Errorf("a socket in the project, with --with-project-sockets: %s", out)
	}
}

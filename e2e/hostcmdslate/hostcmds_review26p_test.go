package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26pClosedDirectories: the session took away the
// permissions of directories that were the user's at its start
// (chmod 000 .git/objects .git/refs src). The exit audit, unable to look
// in, moved each whole into ~/.claudebox's moved-aside area: the user's
// repository was unusable until they ran the `mv` that put it back.
// Host-side proof: after the exit each is in place, its owner's to enter,
// the exit says so, and the host's git reads the repository; a directory
// the session made and closed holding a file is still taken whole.
func TestReplayReview26pClosedDirectories(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "src", "main.go"), "package main\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "src")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "src")
	h.Chown()
	closed := []string{".git/objects", ".git/refs", "src"}
	t.Cleanup(func() {
		for _, d := range append(closed, "made") {
			os.Chmod(filepath.Join(proj, d), 0o755)
		}
	})
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e; mkdir made; echo 'touch "$HOME/PLANTED"' > made/run.sh; chmod 000 made .git/objects .git/refs src`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for _, d := range closed {
		p := filepath.Join(proj, d)
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s: not in place, open to its owner, after the exit (%v):\n%s", d, err, out)
		}
		if !strings.Contains(out, "gave "+p+" its owner's permissions back (the session had made it 000)") {
			t.Errorf("the exit does not say it gave %s its permissions back:\n%s", d, out)
		}
	}
	if got := strings.TrimSpace(h.Run(proj, nil, "git", "log", "-1", "--format=%s")); got != "src" {
		t.Errorf("git log -1 after the exit: %q:\n%s", got, out)
	}
	if n := strings.Count(out, "its owner's permissions back"); n != len(closed) {
		t.Errorf("the exit gave %d directories their permissions back, want %d (claudebox's stand-ins are its own):\n%s", n, len(closed), out)
	}
	if _, err := os.Lstat(filepath.Join(proj, "made")); err == nil {
		t.Errorf("the session's closed directory stays in the project:\n%s", out)
	}
}

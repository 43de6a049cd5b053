package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUnwritten: a file the index tracks under a stand-in and the work
// tree lacks is named when the index was written since the session
// began, and not when it was older (a deletion that was there before),
// nor where the file is there, nor outside the stand-ins.
func TestUnwritten(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for _, f := range []string{".vscode/settings.json", ".vscode/launch.json", ".envrc", "src/a.go"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o644))
	}
	git("add", "-A")
	for _, f := range []string{".vscode/settings.json", ".envrc", "src/a.go"} {
		must(t, os.Remove(filepath.Join(root, f)))
	}
	gitDir := filepath.Join(root, ".git")
	standIns := []string{filepath.Join(root, ".vscode"), filepath.Join(root, ".envrc"), filepath.Join(gitDir, "info", "exclude")}
	want := []string{filepath.Join(root, ".envrc"), filepath.Join(root, ".vscode", "settings.json")}
	if got := Unwritten(root, gitDir, standIns, time.Now().Add(-time.Hour)); !slices.Equal(got, want) {
		t.Errorf("Unwritten = %q, want %q", got, want)
	}
	if got := Unwritten(root, gitDir, standIns, time.Now().Add(time.Hour)); len(got) != 0 {
		t.Errorf("an index older than the session: Unwritten = %q", got)
	}
}

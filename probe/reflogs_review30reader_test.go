package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/project"
)

// A reflog the sandbox grew past what claudebox reads (a sparse file of
// 17 MiB, which git inside goes on appending to) is shown empty, not as
// it is: the token a later host-side git pull https://u:TOKEN@… appends
// to it was readable at the next launch, the read's failure taken for a
// reflog with no credential.
func TestReflogTooLargeShownEmpty(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	for _, rel := range []string{"logs/HEAD", "FETCH_HEAD", "logs/refs/heads/main"} {
		p := filepath.Join(git, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(maxReflog + 1); err != nil {
			t.Fatal(err)
		}
		f.Seek(0, 2)
		f.WriteString("a1 b2 A <a@x> 1 +0000\tpull https://bob:TOKEN@git.example.com/x main: Fast-forward\n")
		f.Close()
	}
	copies, leftOut, _ := reflogCopies(project.Project{GitDir: git, CommonDir: git}, nil)
	shown := map[string]bool{}
	for _, c := range copies {
		if c.Dir || c.Content != "" {
			t.Errorf("%s: copy %+.80v, want it shown empty", c.Path, c)
		}
		shown[strings.TrimPrefix(c.Path, git+"/")] = true
	}
	for _, rel := range []string{"logs/HEAD", "FETCH_HEAD", "logs/refs/heads/main"} {
		if !shown[rel] {
			t.Errorf("%s, larger than claudebox reads, is shown as it is (copies %v)", rel, shown)
		}
	}
	if len(leftOut) != len(copies) {
		t.Errorf("left out named %q", leftOut)
	}
}

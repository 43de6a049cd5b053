package audit

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitIndex makes a repository with a skip-worktree entry, an
// assume-unchanged one, a gitlink and a long name, in index version v, and
// returns its index's bytes.
func gitIndex(t testing.TB, v int, format string) []byte {
	b, _ := gitIndexIn(t, v, format, false)
	return b
}

// gitIndexIn is gitIndex, with the index split (git update-index
// --split-index) if split, and the repository's git directory.
func gitIndexIn(t testing.TB, v int, format string, split bool) ([]byte, string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "--object-format="+format)
	long := "dir/" + strings.Repeat("n", 200) + "/" + strings.Repeat("m", 201)
	for _, p := range []string{"a", "b/c", "b/d", long, "z"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644))
	}
	git("add", ".")
	git("update-index", "--skip-worktree", "b/c")
	git("update-index", "--assume-unchanged", "z")
	zero := "0000000000000000000000000000000000000001"
	if format == "sha256" {
		zero = "0000000000000000000000000000000000000000000000000000000000000001"
	}
	git("update-index", "--add", "--cacheinfo", "160000,"+zero+",vendor/tool")
	git("update-index", "--index-version", strconv.Itoa(v))
	if split {
		// The second split moves every entry into the shared index.
		git("update-index", "--split-index")
		git("update-index", "--split-index")
	}
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	return b, filepath.Join(dir, ".git")
}

// TestParseIndex reads what git wrote, in each index version and object
// format, as git means it.
func TestParseIndex(t *testing.T) {
	want := map[string]uint8{"b/c": skipWorktree, "z": assumeUnchanged, "vendor/tool": gitlink}
	for _, format := range []string{"sha1", "sha256"} {
		for v := 2; v <= 4; v++ {
			b := gitIndex(t, v, format)
			n := 20
			if format == "sha256" {
				n = 32
			}
			got, shared, err := parseIndex(b, n)
			if err != nil || !maps.Equal(got, want) || shared != "" {
				t.Errorf("version %d, %s: %v, %q, %v; want %v", v, format, got, shared, err, want)
			}
			// Cut anywhere, it is refused, never misread into a panic.
			for i := 0; i < len(b); i += 7 {
				parseIndex(b[:i], n)
			}
		}
	}
}

// TestParseSplitIndex: a split index names its shared index, whose
// entries git reads as the index's own; the gitlink is there.
func TestParseSplitIndex(t *testing.T) {
	for v := 2; v <= 4; v++ {
		b, gitDir := gitIndexIn(t, v, "sha1", true)
		got, shared, err := parseIndex(b, 20)
		if err != nil || shared == "" || got["vendor/tool"] != 0 {
			t.Fatalf("version %d: %v, %q, %v; want a shared index holding the gitlink", v, got, shared, err)
		}
		b, err = os.ReadFile(filepath.Join(gitDir, "sharedindex."+shared))
		must(t, err)
		if got, _, err := parseIndex(b, 20); err != nil || got["vendor/tool"] != gitlink {
			t.Errorf("version %d: the shared index reads %v, %v", v, got, err)
		}
	}
}

// FuzzParseIndex: whatever the sandbox writes as the index, reading it
// ends, within the bytes given.
func FuzzParseIndex(f *testing.F) {
	for v := 2; v <= 4; v++ {
		f.Add(gitIndex(f, v, "sha1"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _, err := parseIndex(b, 20)
		if err == nil && len(got) > len(b) {
			t.Fatalf("%d entries from %d bytes", len(got), len(b))
		}
	})
}

package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanToolConfigs: a build tool's configuration (Bazel's, Gradle's,
// Android's, sbt's) the session made or changed is found where git does
// not track it, at any depth; one git tracks, whose change git shows, is
// not.
func TestScanToolConfigs(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "gradle.properties"))
	c := exec.Command("git", "-C", root, "init", "-q")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	c = exec.Command("git", "-C", root, "add", "gradle.properties")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for name := range toolConfigs {
		for _, dir := range []string{"", "sub"} {
			p := filepath.Join(root, dir, name)
			write(t, p)
			if dir != "" || name != "gradle.properties" {
				want = append(want, p)
			}
		}
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestScanLFSObjects: of what a session writes among git-lfs's objects,
// an object that holds what its name says (what git lfs pull fetches) is
// no finding, nor one it only touched; one rewritten with other content,
// one at another's path, a link, a sparse one (a terabyte's hole, not
// read) and anything else there are.
func TestScanLFSObjects(t *testing.T) {
	root := t.TempDir()
	c := exec.Command("git", "init", "-q", filepath.Join(root, "repo"))
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	object := func(content string) (rel string) {
		sum := sha256.Sum256([]byte(content))
		oid := hex.EncodeToString(sum[:])
		rel = filepath.Join("repo", ".git", "lfs", "objects", oid[:2], oid[2:4], oid)
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644))
		return rel
	}
	hook, kept := object("#!/bin/sh\nexit 0\n"), object("kept\n")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	now := time.Now()
	must(t, os.Chtimes(filepath.Join(root, kept), now, now))
	object("fetched\n")
	must(t, os.WriteFile(filepath.Join(root, hook), []byte("#!/bin/sh\nevil!!\n"), 0o644))
	moved := object("moved\n")
	elsewhere := filepath.Join(filepath.Dir(filepath.Dir(moved)), "00", filepath.Base(moved))
	must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, elsewhere)), 0o755))
	must(t, os.Rename(filepath.Join(root, moved), filepath.Join(root, elsewhere)))
	linked := object("linked\n")
	must(t, os.Remove(filepath.Join(root, linked)))
	must(t, os.Symlink("/etc/hostname", filepath.Join(root, linked)))
	sparse := object("")
	must(t, os.Truncate(filepath.Join(root, sparse), 1<<40))
	stray := filepath.Join("repo", ".git", "lfs", "objects", "stray")
	write(t, filepath.Join(root, stray))
	write(t, filepath.Join(root, "repo", ".git", "lfs", "tmp", "partial"))

	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	want := []string{hook, elsewhere, linked, sparse, stray}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

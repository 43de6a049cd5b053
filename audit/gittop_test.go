package audit

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanGitDirTop: at a git directory's top, what git reads as data
// only (messages, a lock, a bisect's log, a split index's shared index)
// is no finding; anything else the session wrote there is, by any name:
// the autostash every git commit applies, a notes merge's state. So is
// the autostash a nested repository's rebase applies as it ends.
func TestScanGitDirTop(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".git/HEAD", ".git/config", ".git/objects/x", "sub/.git/HEAD", "sub/.git/objects/x"} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	after := map[string]bool{
		".git/MERGE_AUTOSTASH":            true,
		".git/NOTES_MERGE_REF":            true,
		".git/BISECT_START":               true,
		".git/COMMIT_EDITMSG":             false,
		".git/MERGE_MSG":                  false,
		".git/index.lock":                 false,
		".git/sharedindex.0123abcd":       false,
		".git/BISECT_LOG":                 false,
		".git/description":                false,
		"sub/.git/rebase-merge/autostash": true,
		"sub/.git/rebase-apply/autostash": true,
		"sub/.git/rebase-apply/next":      false,
		"sub/.git/MERGE_AUTOSTASH":        true,
	}
	for p := range after {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got, want []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	for p, found := range after {
		if found {
			want = append(want, p)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

// TestScanAnnexObjects: a git-annex object the session wrote holds what
// its key says, or is a finding; so is one of a backend that names no
// hash, and a directory at a git directory's top the walk does not know.
// A finding in a directory git-annex made read-only is moved aside.
func TestScanAnnexObjects(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git/HEAD"))
	write(t, filepath.Join(root, ".git/objects/x"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	object := func(content, key string) string {
		if key == "" {
			key = fmt.Sprintf("SHA256E-s%d--%x.sh", len(content), sha256.Sum256([]byte(content)))
		}
		rel := filepath.Join(".git/annex/objects/pX/3Q", key, key)
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o444))
		return rel
	}
	good := object("#!/bin/sh\necho deployed\n", "")
	forged := object("#!/bin/sh\necho forged\n", fmt.Sprintf("SHA256E-s24--%x.sh", sha256.Sum256([]byte("#!/bin/sh\necho deployed!\n"))))
	worm := object("x", "WORM-s1-m1--run.sh")
	unkeyed := object("#!/bin/sh\n", "SHA1--"+strings.Repeat("0", 40))
	write(t, filepath.Join(root, ".git/annex/index"))
	write(t, filepath.Join(root, ".git/svn/refs/remotes/x"))
	write(t, filepath.Join(root, ".git/fsmonitor--daemon/cookies/1"))
	must(t, os.Chmod(filepath.Join(root, filepath.Dir(forged)), 0o555))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	want := []string{forged, worm, unkeyed, ".git/svn/refs/remotes/x"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q (not %s)", got, want, good)
	}
	if _, err := MoveAside(root, t.TempDir(), []string{filepath.Join(root, forged)}); err != nil {
		t.Errorf("a finding in a read-only directory was not moved aside: %v", err)
	}
}

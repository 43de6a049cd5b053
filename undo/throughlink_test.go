package undo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// gitReadingThroughLink puts a git in PATH whose git add -A leaves in the
// index, for rel, the content of outside: what the host's git add reads
// where the sandbox, running beside the snapshot, swaps a directory of
// rel for a symlink to outside between git's listing of it and its open
// of rel (git opens the path it listed, following a symlink before its
// last component; a loop of rename and symlink in the checkout won that
// race 3 times in 200 snapshots of a 3,000-file tree). The race itself is
// not timed here: its outcome is.
func gitReadingThroughLink(t *testing.T, rel, outside string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\ncase \"$*\" in *'add -A'*) '" + real + "' \"$@\"; s=$?\n" +
		"oid=$('" + real + "' hash-object -w --no-filters '" + outside + "') && '" + real + "' update-index --cacheinfo 100644,$oid,'" + rel + "' || exit 9\n" +
		"exit $s;; esac\nexec '" + real + "' \"$@\"\n"
	os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// A file git add read through a directory the sandbox swapped for a link
// to a host directory (~/.ssh) is not taken for the checkout's: the
// snapshot leaves it out as unknown, and --undo never writes the host
// file's bytes into the project, where the next session would read them.
// In the first snapshot of the checkout and in a later one alike.
func TestTakeReadThroughSwappedLink(t *testing.T) {
	for _, later := range []bool{false, true} {
		name := map[bool]string{false: "first", true: "later"}[later]
		t.Run(name, func(t *testing.T) {
			p := agedRepo(t)
			state := t.TempDir()
			secret := filepath.Join(t.TempDir(), "id_ed25519")
			os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- the user's\n"), 0o600)
			now := time.Now()
			if later {
				if _, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false); err != nil {
					t.Fatal(err)
				}
				now = now.Add(time.Second)
			}
			// A file an earlier session left, whose status is from before
			// this session's start.
			os.MkdirAll(filepath.Join(p.Checkout, "d"), 0o755)
			os.WriteFile(filepath.Join(p.Checkout, "d", "id_ed25519"), []byte("the session's decoy\n"), 0o644)
			gitReadingThroughLink(t, "d/id_ed25519", secret)
			s, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(s.Unknown, "d/id_ed25519") {
				t.Errorf("unknown: %q, want the file git read through the link", s.Unknown)
			}
			os.Remove(filepath.Join(p.Checkout, "d", "id_ed25519"))
			if _, err := Apply(state, p.Root, s, t.TempDir()); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(p.Checkout, "d", "id_ed25519")); strings.Contains(string(b), "PRIVATE KEY") {
				t.Errorf("--undo wrote the host's file into the project: %q", b)
			}
		})
	}
}

// A file an attribute would have git convert (an eol attribute: the blob
// would hold LF where the file holds CRLF) is not taken for one git read
// elsewhere: the store's git takes it as it is, and the snapshot holds it.
func TestTakeConvertedFileKept(t *testing.T) {
	p := agedRepo(t)
	os.WriteFile(filepath.Join(p.Checkout, ".gitattributes"), []byte("*.bat text eol=crlf\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "run.bat"), []byte("echo one\r\necho two\r\n"), 0o644)
	now := time.Now()
	s, err := Take(context.Background(), t.TempDir(), p, now, now.Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Unknown) != 0 {
		t.Errorf("unknown: %q, want none", s.Unknown)
	}
}

// A path holding a newline, which git add --verbose prints as it is ("add
// 'x" on one line, "y/id_ed25519'" on the next), is read again as every
// other file git hashed: a later snapshot took only what those lines
// spelled for what git hashed, and a directory the sandbox named so, and
// swapped for a link to ~/.ssh while git read it, had the host's key
// taken into the snapshot and written into the project by --undo.
func TestTakeReadThroughSwappedLinkNewlineName(t *testing.T) {
	p := agedRepo(t)
	state := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- the user's\n"), 0o600)
	now := time.Now()
	if _, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	rel := "x\ny/id_ed25519"
	os.MkdirAll(filepath.Join(p.Checkout, filepath.Dir(rel)), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, rel), []byte("the session's decoy\n"), 0o644)
	gitReadingThroughLink(t, rel, secret)
	s, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Unknown, rel) {
		t.Errorf("unknown: %q, want the file git read through the link", s.Unknown)
	}
	os.Remove(filepath.Join(p.Checkout, rel))
	if _, err := Apply(state, p.Root, s, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(p.Checkout, rel)); strings.Contains(string(b), "PRIVATE KEY") {
		t.Errorf("--undo wrote the host's file into the project: %q", b)
	}
}

package undo

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
)

// gitLogged puts a git in PATH that logs each call's arguments to the
// returned file before it runs the real one; after, if not empty, is a
// shell command it runs once the store's look for what git add would
// read has answered (where the sandbox, running beside the snapshot, may
// write next).
func gitLogged(t *testing.T, after string) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\necho \"$*\" >>'" + log + "'\n"
	if after != "" {
		script += "case \"$*\" in *'--others --modified'*) '" + real + "' \"$@\"; s=$?; " + after + "; exit $s;; esac\n"
	}
	script += "exec '" + real + "' \"$@\"\n"
	os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// agedRepo is repo's checkout with every file an hour old: none is
// racily clean, which git add would check again and write the index for.
func agedRepo(t *testing.T) instance.Project {
	t.Helper()
	p := repo(t, 2, 2)
	hour := time.Now().Add(-time.Hour)
	filepath.WalkDir(p.Checkout, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && d.Type().IsRegular() {
			os.Chtimes(path, hour, hour)
		}
		return err
	})
	return p
}

// A snapshot of a checkout no one changed since the last runs no git add
// (it would add nothing) and comes out as the last; once a file changed,
// was removed or was made, git add runs and the snapshot holds it.
func TestTakeUnchangedRunsNoAdd(t *testing.T) {
	p := agedRepo(t)
	state := t.TempDir()
	log := gitLogged(t, "")
	now := time.Now()
	take := func(at time.Time) (Snapshot, bool) {
		t.Helper()
		os.Remove(log)
		s, err := Take(context.Background(), state, p, at, at.Add(time.Hour), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		ran, _ := os.ReadFile(log)
		return s, strings.Contains(string(ran), "add -A")
	}
	first, added := take(now)
	if !added {
		t.Fatal("the first snapshot ran no git add")
	}
	again, added := take(now.Add(time.Second))
	if added {
		t.Error("git add ran for an unchanged checkout")
	}
	if again.Tree != first.Tree || len(again.Unknown) != 0 {
		t.Errorf("unchanged checkout: tree %s, unknown %q; first tree %s", again.Tree, again.Unknown, first.Tree)
	}
	for i, change := range []func(){
		func() { os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f1.go"), []byte("the user's\n"), 0o644) },
		func() { os.Remove(filepath.Join(p.Checkout, "pkg1", "f0.go")) },
		func() { os.WriteFile(filepath.Join(p.Checkout, "pkg1", "new.go"), []byte("new\n"), 0o644) },
	} {
		change()
		s, added := take(now.Add(time.Duration(i+2) * time.Second))
		if !added || s.Tree == again.Tree {
			t.Errorf("change %d: git add ran %v, tree %s, the last %s", i+1, added, s.Tree, again.Tree)
		}
		again = s
	}
	if changes, err := Plan(state, p.Root, again); err != nil || len(changes) != 0 {
		t.Errorf("Plan of the last snapshot, the tree unchanged since: %+v, %v", changes, err)
	}
}

// The sandbox runs while its snapshot is taken and may race it: a
// tracked file it rewrites just after git said nothing changed (so no
// git add runs) is left out as unknown, never taken for the start's:
// --undo leaves it as it is, and restores the rest. One it makes then is
// not the snapshot's, as every file the session makes after it: --undo
// moves it aside, whole.
func TestTakeUnchangedWrittenAfterListing(t *testing.T) {
	p := agedRepo(t)
	state := t.TempDir()
	if _, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	since, err := Mark(state, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the filesystem clock's tick
	rewritten, made := filepath.Join(p.Checkout, "pkg1", "f1.go"), filepath.Join(p.Checkout, "pkg1", "made.go")
	log := gitLogged(t, "printf 'the session'\"'\"'s\\n' >'"+rewritten+"'; printf 'made\\n' >'"+made+"'")
	s, err := Take(context.Background(), state, p, time.Now().Add(time.Second), since, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if ran, _ := os.ReadFile(log); strings.Contains(string(ran), "add -A") {
		t.Errorf("git add ran: the checkout was unchanged when git looked")
	}
	if !slices.Contains(s.Unknown, "pkg1/f1.go") {
		t.Fatalf("unknown: %q, want the file rewritten after git's look", s.Unknown)
	}
	os.WriteFile(filepath.Join(p.Checkout, "pkg0", "f1.go"), []byte("later\n"), 0o644)
	aside := t.TempDir()
	r, err := Apply(state, p.Root, s, aside)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Moved, func(m audit.Moved) bool { return m.From == made }) {
		t.Errorf("moved aside: %+v, want %s", r.Moved, made)
	}
	for path, want := range map[string]string{"pkg1/f1.go": "the session's\n", "pkg0/f1.go": "package p0 // 1\n"} {
		if b, _ := os.ReadFile(filepath.Join(p.Checkout, path)); string(b) != want {
			t.Errorf("%s after Apply: %q, want %q", path, b, want)
		}
	}
}

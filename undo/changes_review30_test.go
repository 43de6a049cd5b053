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

	"github.com/claudebox/claudebox/instance"
)

// trustNoCtime sets the checkout's core.trustctime false, as a user may:
// the host's git then compares no file's status change time, and the
// exit reads every file's status.
func trustNoCtime(tb testing.TB, p instance.Project) {
	tb.Helper()
	if out, err := exec.Command("git", "-C", p.Checkout, "config", "core.trustctime", "false").CombinedOutput(); err != nil {
		tb.Fatalf("git config: %v %s", err, out)
	}
}

// TestExitLeavesComparedUnread: where the host's git compares each
// tracked file's status change time (the default) and its index is the
// start's, the exit's walk reads no status of a tracked file in a
// directory whose status is from before the start, but still each
// untracked one's there (a script rewritten in place, which git status
// shows as it did before); the record, read, compares the tracked ones.
// Where the user's git trusts less (core.trustctime false, core.checkStat
// minimal, core.ignoreStat, core.fsmonitor) or the session wrote the
// index (git add; git update-index --assume-unchanged), every status is
// read at the exit, as before; and where the index is smaller than
// comparedAskFrom, whose files the exit reads without asking git.
func TestExitLeavesComparedUnread(t *testing.T) {
	cases := []struct {
		name   string
		before func(p instance.Project)
		during func(p instance.Project)
		unread bool
		// few: an index smaller than comparedAskFrom.
		few bool
	}{
		{name: "default", unread: true},
		{name: "few files", few: true},
		{name: "trustctime false", before: func(p instance.Project) { trustNoCtime(t, p) }},
		{name: "checkStat minimal", before: func(p instance.Project) { gitIn(t, p, "config", "core.checkStat", "minimal") }},
		{name: "ignoreStat", before: func(p instance.Project) { gitIn(t, p, "config", "core.ignoreStat", "true") }},
		{name: "fsmonitor", before: func(p instance.Project) { gitIn(t, p, "config", "core.fsmonitor", "true") }},
		{name: "index written", during: func(p instance.Project) { gitIn(t, p, "add", "pkg1/f0.go") }},
		{name: "assume-unchanged", during: func(p instance.Project) { gitIn(t, p, "update-index", "--assume-unchanged", "pkg1/f0.go") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := repo(t, 3, 2)
			if !tc.few {
				manyCompared(t, p)
			}
			tool := filepath.Join(p.Checkout, "pkg1", "tool.sh")
			os.WriteFile(tool, []byte("#!/bin/sh\necho ok\n"), 0o755)
			if tc.before != nil {
				tc.before(p)
			}
			state := t.TempDir()
			since := after(t, state, p.Checkout)
			if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
				t.Fatal(err)
			}
			began := after(t, state, p.Checkout)
			// In place: pkg1's status stays the start's.
			os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f0.go"), []byte("package p1 // the session's\n"), 0o644)
			f, _ := os.OpenFile(tool, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("touch planted\n")
			f.Close()
			if tc.during != nil {
				tc.during(p)
			}
			c, err := RecordChanges(state, p, began, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(c.ChangedRun, tool) {
				t.Errorf("the untracked script changed in place is not among the exit's: %q", c.ChangedRun)
			}
			listed := slices.Contains(c.Paths, PathChange{Path: "pkg1/f0.go", Change: "changed"})
			if listed == tc.unread || c.TrackedSince.IsZero() != !tc.unread {
				t.Errorf("the tracked file's status read at the exit: %v, want %v (record %v)", listed, !tc.unread, c.Paths)
			}
			back, err := ReadChanges(state, p.Root, p.Checkout)
			if err != nil || !slices.Contains(back.Paths, PathChange{Path: "pkg1/f0.go", Change: "changed"}) || len(back.Incomplete) != 0 {
				t.Errorf("the record read: %v %v, %q", back.Paths, err, back.Incomplete)
			}
		})
	}
}

// TestTrackedChangedSinceRecord: a tracked file whose status changed after
// the exit's record (the user's edit since, or the session's and then the
// user's) is not taken for the session's change, nor for none: the record
// read says it does not know, and --undo takes it for not whole.
func TestTrackedChangedSinceRecord(t *testing.T) {
	p := repo(t, 2, 2)
	manyCompared(t, p)
	state := t.TempDir()
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f0.go"), []byte("package p1 // the session's\n"), 0o644)
	if _, err := RecordChanges(state, p, began, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f1.go"), []byte("package p1 // the user's\n"), 0o644)
	c, err := ReadChanges(state, p.Root, p.Checkout)
	if err != nil || !slices.Contains(c.Paths, PathChange{Path: "pkg1/f0.go", Change: "changed"}) {
		t.Errorf("the session's change: %v %v", c.Paths, err)
	}
	if slices.ContainsFunc(c.Paths, func(pc PathChange) bool { return pc.Path == "pkg1/f1.go" }) || !slices.ContainsFunc(c.Incomplete, func(s string) bool { return strings.Contains(s, "pkg1/f1.go") }) {
		t.Errorf("the user's edit since: %v, %q", c.Paths, c.Incomplete)
	}
}

// TestChangedBelowUnstatted: the audit does not count a directory of
// installed dependencies from a walk that left tracked files there
// unread (a repository that commits its node_modules).
func TestChangedBelowUnstatted(t *testing.T) {
	s := newWalkStatuses(tree{recent: map[string]fileStatus{}, dirs: map[string]map[string]bool{".": nil, "node_modules": nil, "node_modules/a": nil}, unstatted: []string{"node_modules/a"}}, time.Now())
	if _, ok := s.ChangedBelow("node_modules/a"); ok {
		t.Errorf("counted below a directory whose files were not read")
	}
	if _, ok := s.ChangedBelow("node_modules/b"); !ok {
		t.Errorf("not counted below one whose files were read")
	}
}

func gitIn(tb testing.TB, p instance.Project, args ...string) {
	tb.Helper()
	if out, err := exec.Command("git", append([]string{"-C", p.Checkout}, args...)...).CombinedOutput(); err != nil {
		tb.Fatalf("git %v: %v %s", args, err, out)
	}
}

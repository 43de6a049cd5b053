package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestListGateLate: a list of ignored files taken after the sandbox's
// start stopped waiting for it is the start's only where nothing the
// sandbox could have done since shows: a name moved away and put back in
// a directory (the list would lack it, and the exit take the file for
// made), a .gitignore or the repository's info/exclude rewritten in place
// (git would list by the session's rules); else it is none (the record
// says so). One taken in time lets the sandbox start. Either way each
// ignored file the host runs that the session wrote, made or changed, is
// a finding.
func TestListGateLate(t *testing.T) {
	for _, c := range []struct {
		name     string
		late     bool
		meantime func(checkout string)
		none     bool
	}{
		{name: "in time"},
		{name: "late, nothing changed", late: true},
		{name: "late, moved away and back", late: true, none: true, meantime: func(checkout string) {
			os.Rename(filepath.Join(checkout, "ign", "activate"), filepath.Join(checkout, "activate"))
			os.Rename(filepath.Join(checkout, "activate"), filepath.Join(checkout, "ign", "activate"))
		}},
		{name: "late, .gitignore rewritten", late: true, none: true, meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, ".gitignore"), []byte("ign/\n"), 0o644)
		}},
		{name: "late, a nested .gitignore rewritten", late: true, none: true, meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, "pkg0", ".gitignore"), []byte("*.o\n"), 0o644)
		}},
		{name: "late, info/exclude rewritten", late: true, none: true, meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, ".git", "info", "exclude"), []byte("pkg0/\n"), 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := repo(t, 1, 1)
			state := t.TempDir()
			os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("ign/\n"), 0o644)
			os.WriteFile(filepath.Join(p.Checkout, "pkg0", ".gitignore"), []byte("*.o\n"), 0o644)
			os.Mkdir(filepath.Join(p.Checkout, "ign"), 0o755)
			os.WriteFile(filepath.Join(p.Checkout, "ign", "activate"), []byte("export A=1\n"), 0o644)
			since := after(t, state, p.Checkout)
			// The sandbox is let go once every status above is older than
			// the filesystem's clock.
			gate := NewListGate(func() (time.Time, error) { return after(t, state, p.Checkout), nil })
			if c.late {
				gate.Wait(0)
			}
			if c.meantime != nil {
				c.meantime(p.Checkout)
			}
			if _, err := Take(WithListGate(context.Background(), gate), state, p, time.Now(), since, nil, false); err != nil {
				t.Fatal(err)
			}
			gate.Wait(time.Minute) // open: returns at once
			began := after(t, state, p.Checkout)
			tool := filepath.Join(p.Checkout, "ign", "tool")
			if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			r, err := RecordChanges(state, p, began, nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(r.HostRun, tool) {
				t.Errorf("the made ign/tool is no finding (%q)", r.HostRun)
			}
			none := slices.ContainsFunc(r.Incomplete, func(s string) bool { return strings.HasPrefix(s, "the start listed no ignored files") })
			if none != c.none {
				t.Errorf("the record says the start's list is none: %v, want %v (%q)", none, c.none, r.Incomplete)
			}
		})
	}
}

// TestSharesClock: a late list is judged by Mark's clock only where the
// checkout lies on the undo store's filesystem; /proc stamps by none.
func TestSharesClock(t *testing.T) {
	state, root := t.TempDir(), "/p"
	if _, err := Mark(state, root); err != nil {
		t.Fatal(err)
	}
	if !SharesClock(state, root, state) {
		t.Error("the store's own filesystem does not share its clock")
	}
	if SharesClock(state, root, "/proc") {
		t.Error("/proc shares the store's clock")
	}
	if SharesClock(state, root, filepath.Join(state, "missing")) {
		t.Error("a checkout that is gone shares the store's clock")
	}
}

// TestListOutlasts: a snapshot whose list of ignored files outlasted the
// start's wait says so, for the next launch in the checkout not to wait
// for one; one in time takes that back. Nothing kept, or a record
// unreadable, says the list was in time (the start waits).
func TestListOutlasts(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	if ListOutlasts(state, p.Root, p.Checkout) {
		t.Error("with no snapshot taken the last list outlasted the wait")
	}
	st := storeOf(state, p.Root)
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	st.listed(p.Checkout, time.Second)
	if !ListOutlasts(state, p.Root, p.Checkout) {
		t.Error("a list of a second is not said to outlast the wait")
	}
	if ListOutlasts(state, p.Root, filepath.Join(p.Checkout, "pkg0")) {
		t.Error("another checkout's list outlasted the wait")
	}
	record := filepath.Join(st.dir, listedName(p.Checkout))
	var before, again unix.Stat_t
	unix.Stat(record, &before)
	st.listed(p.Checkout, 2*time.Second)
	if unix.Stat(record, &again); again.Ino != before.Ino {
		t.Error("a list outlasting the wait again replaced the record")
	}
	st.listed(p.Checkout, time.Millisecond)
	if ListOutlasts(state, p.Root, p.Checkout) {
		t.Error("after a list in time the last list still outlasted the wait")
	}
	if err := os.WriteFile(record, []byte("-5"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ListOutlasts(state, p.Root, p.Checkout) {
		t.Error("an unreadable record says the last list outlasted the wait")
	}
	// A snapshot's list, in time or not (the machine's load decides),
	// takes the unreadable record's place: removed, or a time.
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(record); err == nil && string(b) == "-5" {
		t.Error("the snapshot's list left the record as it was")
	}
}

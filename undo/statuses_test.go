package undo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/claudebox/claudebox/audit"
)

// TestStatusesJudgeDepsAsTheAudit: the exit audit, judging node_modules
// from the statuses the record's walk read (audit.ScanWalked), sets aside
// the same packages, counting the same entries, as from its own reading
// of each status: a file rewritten in place, a mode changed, a package,
// a scope's package and a runner's link made, a file removed, a package
// replaced by a link, and one whose git directory (which the record's
// walk does not read) changed. A package the walk could not read in full
// is read by the audit itself.
func TestStatusesJudgeDepsAsTheAudit(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	nm := filepath.Join(p.Checkout, "node_modules")
	for _, pkg := range []string{"a", "b", "c", "d", "e", "f", "g", "@s/x", "@s/y"} {
		os.MkdirAll(filepath.Join(nm, pkg, "lib"), 0o755)
		for i := range 3 {
			os.WriteFile(filepath.Join(nm, pkg, "lib", fmt.Sprintf("f%d.js", i)), []byte("x\n"), 0o644)
		}
	}
	os.MkdirAll(filepath.Join(nm, "g", ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(nm, "g", ".git", "config"), []byte("[core]\n"), 0o644)
	os.MkdirAll(filepath.Join(nm, ".bin"), 0o755)
	os.Symlink("../a/lib/f0.js", filepath.Join(nm, ".bin", "a"))
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("node_modules/\n"), 0o644)
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	os.WriteFile(filepath.Join(nm, "a", "lib", "f1.js"), []byte("planted\n"), 0o644)
	os.Chmod(filepath.Join(nm, "b", "lib", "f2.js"), 0o755)
	os.MkdirAll(filepath.Join(nm, "new", "lib"), 0o755)
	os.WriteFile(filepath.Join(nm, "new", "lib", "i.js"), []byte("x\n"), 0o644)
	os.MkdirAll(filepath.Join(nm, "@s", "z"), 0o755)
	os.WriteFile(filepath.Join(nm, "@s", "x", "lib", "f0.js"), []byte("planted\n"), 0o644)
	os.Symlink("../b/lib/f0.js", filepath.Join(nm, ".bin", "b"))
	os.Remove(filepath.Join(nm, "c", "lib", "f0.js"))
	os.RemoveAll(filepath.Join(nm, "d"))
	os.Symlink(filepath.Join(p.Checkout, "planted"), filepath.Join(nm, "d"))
	os.WriteFile(filepath.Join(nm, "g", ".git", "hooks", "post-checkout"), []byte("#!/bin/sh\n"), 0o755)

	walked := make(chan audit.Statuses, 1)
	if _, err := RecordChanges(state, p, began, nil, walked, nil); err != nil {
		t.Fatal(err)
	}
	statuses := <-walked
	if statuses == nil {
		t.Fatal("the record's walk gave the audit no statuses")
	}
	if n, ok := statuses.ChangedBelow("node_modules/g"); ok {
		t.Errorf("a package holding a git directory the walk did not read: %d changed, taken as read", n)
	}
	own := audit.Scan(p.Checkout, began, nil, nil, nil)
	shared := audit.ScanWalked(p.Checkout, began, nil, nil, nil, func() audit.Statuses { return statuses }, nil)
	if len(own.Deps) != 1 || len(own.Deps[0].Units) != 9 {
		t.Fatalf("the audit's own reading set aside %v, not the 9 packages changed", own.Deps)
	}
	if !reflect.DeepEqual(own.Deps, shared.Deps) {
		t.Errorf("from the record's walk the audit set aside\n%v\nfrom its own reading\n%v", shared.Deps, own.Deps)
	}
}

// TestStatusesNotReadInFull: what the walk did not read (a stand-in, a
// directory it could not open, anything once it kept no more) is not
// counted from it.
func TestStatusesNotReadInFull(t *testing.T) {
	t0 := time.Now()
	s := newWalkStatuses(tree{recent: map[string]fileStatus{"node_modules/a/x": {}}, dirs: map[string]map[string]bool{"node_modules/a": {"x": true}}, skip: []string{"node_modules/b/lib", "node_modules/c"}}, t0)
	for rel, want := range map[string]int{"node_modules/a": 2, "node_modules/ab": 0} {
		if n, ok := s.ChangedBelow(rel); !ok || n != want {
			t.Errorf("%s: %d, %v; want %d, true", rel, n, ok, want)
		}
	}
	for _, rel := range []string{"node_modules/b", "node_modules/c", "node_modules/c/lib", "."} {
		if n, ok := s.ChangedBelow(rel); ok {
			t.Errorf("%s, not read in full: %d changed, taken as read", rel, n)
		}
	}
	s = newWalkStatuses(tree{recent: map[string]fileStatus{}, dirs: map[string]map[string]bool{}, cut: true}, t0)
	if _, ok := s.ChangedBelow("node_modules/a"); ok {
		t.Error("a walk past its bound taken as read in full")
	}
}

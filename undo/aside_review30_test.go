package undo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/untrusted"
)

// TestWalkSkipsStandInTakenAside: the stand-ins go while the exit's walk
// reads, each renamed aside first; the walk that listed one under that
// name took it for a directory the session made (claudebox --changes
// said "created .claudebox-removing-…", TestScripts/changes under load).
// A stand-in so named is passed over; the sandbox's own entry so named,
// holding a file, is not.
func TestWalkSkipsStandInTakenAside(t *testing.T) {
	checkout := t.TempDir()
	os.Mkdir(filepath.Join(checkout, ".envrc"), 0o755)
	since := after(t, t.TempDir(), checkout)
	aside := untrusted.AsidePrefix + "0123456789abcdef"
	// A stand-in of a file, renamed aside: its status changed.
	if err := os.WriteFile(filepath.Join(checkout, aside), instance.StandInContent(aside), instance.StandInMode); err != nil {
		t.Fatal(err)
	}
	planted := untrusted.AsidePrefix + "fedcba9876543210"
	os.MkdirAll(filepath.Join(checkout, planted), 0o755)
	os.WriteFile(filepath.Join(checkout, planted, "run.sh"), []byte("planted\n"), 0o755)
	now, err := walkCheckout(checkout, []string{filepath.Join(checkout, ".envrc")}, since, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if now.exists(aside) {
		t.Errorf("the stand-in taken aside, %s, is walked as made", aside)
	}
	if !now.exists(filepath.Join(planted, "run.sh")) {
		t.Errorf("the sandbox's %s/run.sh, named as a stand-in taken aside, is not walked", planted)
	}
}

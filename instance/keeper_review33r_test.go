package instance

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/paths"
)

// TestRemovePlaceholdersKeeper: a worktrees folder's keeper recorded with
// the stand-ins goes with them (after a killed session, whatever removes
// those: the next claudebox command, --gc, the next launch), not while
// another running project records it too, and only as a launch makes it.
func TestRemovePlaceholdersKeeper(t *testing.T) {
	state, tree := t.TempDir(), t.TempDir()
	killed, running := Dir(state, "/p/killed"), Dir(state, "/p/running")
	worktrees := filepath.Join(tree, ".git", "worktrees")
	keeper := filepath.Join(worktrees, WorktreesKeeper)
	makeKeeper := func(lock string) {
		must(t, os.MkdirAll(keeper, 0o755))
		must(t, os.WriteFile(filepath.Join(keeper, "locked"), []byte(lock), 0o644))
	}
	for _, dir := range []string{killed, running} {
		lock, err := OpenLock(dir)
		must(t, err)
		lock.Close()
	}

	makeKeeper(KeeperLock)
	must(t, RecordPlaceholders(killed, []string{keeper}))
	must(t, RecordPlaceholders(running, []string{keeper}))
	held, err := OpenLock(running)
	must(t, err)
	must(t, LockShared(held))
	RemovePlaceholders(killed)
	if !paths.Exists(filepath.Join(keeper, "locked")) {
		t.Error("the cleanup after a killed project removed a running one's keeper")
	}
	held.Close()
	if removed := RemovePlaceholders(running); !slices.Equal(removed, []string{keeper}) || paths.Exists(keeper) {
		t.Errorf("the keeper outlived the last project's cleanup: removed %v", removed)
	}
	if !paths.Exists(worktrees) {
		t.Error("the worktrees folder went with its keeper")
	}

	// A lock the launch did not write, and a keeper holding more, stay.
	makeKeeper("mine\n")
	must(t, RecordPlaceholders(killed, []string{keeper}))
	if RemovePlaceholders(killed); !paths.Exists(filepath.Join(keeper, "locked")) {
		t.Error("a lock no launch wrote was removed")
	}
	makeKeeper(KeeperLock)
	must(t, os.WriteFile(filepath.Join(keeper, "gitdir"), []byte("/elsewhere/.git\n"), 0o644))
	must(t, RecordPlaceholders(killed, []string{keeper}))
	if RemovePlaceholders(killed); !paths.Exists(filepath.Join(keeper, "gitdir")) || !paths.Exists(filepath.Join(keeper, "locked")) {
		t.Error("a keeper holding more than its lock was removed")
	}
}

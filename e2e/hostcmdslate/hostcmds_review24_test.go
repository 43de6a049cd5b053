package hostcmdslate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview24UndoStagedWork: the user staged an edit (git add),
// which git keeps as a loose object in the project's objects, and the
// undo snapshot did not copy it: "files git already holds are not copied
// again". The attack, from inside, once the snapshot is written: remove
// that one object and overwrite the file. --undo then said the start's
// content was gone, and the user's staged work, of which no commit, push
// or other copy exists, was lost. Host-side proof: --undo puts the staged
// content back.
func TestReplayReview24UndoStagedWork(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const staged = "the user's staged work, nowhere else\n"
	h.Write(filepath.Join(proj, "README"), staged)
	h.Run(proj, nil, "git", "add", "README")
	oid := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", ":README"))
	object := filepath.Join(".git", "objects", oid[:2], oid[2:])
	if _, err := os.Stat(filepath.Join(proj, object)); err != nil {
		t.Fatalf("the staged content is not a loose object: %v", err)
	}
	afterSnapshot(h, proj, "rm -f "+object+"; echo the session > README")
	if _, err := os.Stat(filepath.Join(proj, object)); err == nil {
		t.Fatal("the session could not remove the object")
	}
	out, err := h.Bounded(proj, "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != staged {
		t.Errorf("--undo lost the user's staged work: README holds %q\n%v\n%s", b, err, out)
	}
}

// TestReplayReview24GoneWorktreeSnapshots: each checkout keeps its own
// undo snapshots (ten) and the store's index of it, in the project's
// store, and only a launch in that checkout dropped them. A worktree of
// -w is made for a task and removed after: its snapshots, its index and
// every file they alone hold (a session's 8 MiB of build output left
// untracked) stayed for as long as the project lives, --gc removing a
// store only with its project; a project used with -w for a year kept
// every worktree's. Host-side proof: once the worktree is removed, --gc
// leaves no record of it in the store, nor its large file.
func TestReplayReview24GoneWorktreeSnapshots(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	tree := proj + "-task"
	h.Run(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "head -c 8388608 /dev/urandom > out.bin")
	// The next session's snapshot takes it, beside the session, which
	// waits for it (a session of two seconds ended first under load).
	store := filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(proj))
	s := h.Command(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "while [ ! -e go ]; do sleep 0.05; done; rm -f go")
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	harness.WaitFor(t, "the worktree's file in the undo store", func() bool { return large(store) > 0 })
	h.Write(filepath.Join(tree, "go"), "")
	harness.Must(t, s.Wait())
	h.Run(proj, nil, "git", "worktree", "remove", "--force", tree)
	h.Run(proj, nil, "claudebox", "--gc")
	if n := large(store); n > 0 {
		t.Errorf("the removed worktree's file stays in the undo store (%d objects over 4 MiB)", n)
	}
	records, _ := os.ReadDir(store)
	for _, r := range records {
		b, _ := os.ReadFile(filepath.Join(store, r.Name()))
		if strings.Contains(string(b), "checkout "+tree+"\n") {
			t.Errorf("the store keeps %s, a record of the removed worktree", r.Name())
		}
		if strings.HasPrefix(r.Name(), instance.Hash(tree)) {
			t.Errorf("the store keeps %s, the removed worktree's", r.Name())
		}
	}
}

// TestReplayReview24MovedProjectUndo: --move re-keys a project's
// instance and caches to its new root, and left its other records under
// the old hash, "where no one would look again": the undo store among
// them, with every file its snapshots alone held. --undo at the new place
// found no snapshot (the user moved the repository, then wanted the last
// session undone), and nothing, --gc included, ever removed the old
// store. Host-side proof: after --move, --undo puts back what the session
// changed, and no store stays under the old hash.
func TestReplayReview24MovedProjectUndo(t *testing.T) {
	h := harness.NewHost(t)
	old := filepath.Join(h.Home, "proj")
	h.GitRepo(old)
	const notes = "the user's notes\n"
	h.Write(filepath.Join(old, "notes.txt"), notes)
	afterSnapshot(h, old, "echo the session > notes.txt")
	moved := filepath.Join(h.Home, "work", "proj")
	harness.Must(t, os.MkdirAll(filepath.Dir(moved), 0o755))
	harness.Must(t, os.Rename(old, moved))
	h.Chown()
	h.Run(moved, nil, "claudebox", "--move", old)
	out, err := h.Bounded(moved, "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(moved, "notes.txt")); string(b) != notes {
		t.Errorf("--undo after --move did not undo the last session: notes.txt holds %q\n%v\n%s", b, err, out)
	}
	if _, err := os.Lstat(filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(old))); err == nil {
		t.Error("the undo store stays under the old root's hash")
	}
}

// afterSnapshot runs script in a session of dir once its undo snapshot
// is written.
func afterSnapshot(h *harness.Host, dir, script string) {
	h.T.Helper()
	s := h.Command(dir, nil, "claudebox", "--shell", "-c", "while [ ! -e go ]; do sleep 0.05; done; rm -f go; "+script)
	harness.Must(h.T, s.Start())
	defer s.Process.Kill()
	h.WaitSnapshot()
	h.Write(filepath.Join(dir, "go"), "")
	harness.Must(h.T, s.Wait())
}

// large counts the objects over 4 MiB in an undo store.
func large(store string) int {
	n := 0
	filepath.WalkDir(filepath.Join(store, "git", "objects"), func(path string, d fs.DirEntry, err error) error {
		if fi, ferr := os.Lstat(path); err == nil && ferr == nil && fi.Mode().IsRegular() && fi.Size() > 4<<20 {
			n++
		}
		return nil
	})
	return n
}

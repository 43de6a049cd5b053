package hostcmdslate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview25MoveCarriesRecords: --move carried the instance, its
// caches, its inbox and its undo store to the new root, and left the
// other records under the old hash, where no command looked again and
// nothing removed them: the permission rules the last session left
// waiting for --keep-permissions were lost to it, and the record of the
// last session's changes was deleted (--changes at the new place: "no
// session has ended"). Host-side proof: after --move, --changes lists the
// session's change and --keep-permissions offers its rule at the new
// place, and no record stays under the old root's hash.
func TestReplayReview25MoveCarriesRecords(t *testing.T) {
	h := harness.NewHost(t)
	old := filepath.Join(h.Home, "proj")
	h.GitRepo(old)
	h.Write(filepath.Join(old, "notes.txt"), "the user's notes\n")
	h.Chown()
	out, err := harness.ShellAfterSnapshot(t, h, old, `echo the session > notes.txt
		printf '%s\n' '{"permissions":{"allow":["Bash(ls:*)"]}}' > .claude/settings.local.json`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	moved := filepath.Join(h.Home, "work", "proj")
	harness.Must(t, os.MkdirAll(filepath.Dir(moved), 0o755))
	harness.Must(t, os.Rename(old, moved))
	h.Chown()
	h.Run(moved, nil, "claudebox", "--move", old)
	if out, err := h.Bounded(moved, "--changes"); err != nil || !strings.Contains(out, "changed  notes.txt") {
		t.Errorf("--changes after --move does not list the last session's change: %v\n%s", err, out)
	}
	if out, err := h.Bounded(moved, "--keep-permissions", "-y"); err != nil || !strings.Contains(out, "Bash(ls:*)") {
		t.Errorf("--keep-permissions after --move does not offer the last session's rule: %v\n%s", err, out)
	}
	kinds, _ := os.ReadDir(filepath.Join(h.Home, ".claudebox"))
	for _, k := range kinds {
		kept := filepath.Join(h.Home, ".claudebox", k.Name(), instance.Hash(old))
		if _, err := os.Lstat(kept); err == nil {
			// What it holds, and what the session said, tell which step
			// left it (CI saw moved-aside's once, at a load of 21).
			var held []string
			filepath.WalkDir(kept, func(p string, _ fs.DirEntry, _ error) error {
				held = append(held, p)
				return nil
			})
			t.Errorf("~/.claudebox/%s keeps a record under the old root's hash: %s\nthe session said:\n%s", k.Name(), strings.Join(held, "\n"), out)
		}
	}
}

// TestReplayReview25MoveAsideReadOnlyAcrossDisks: the exit audit moves a
// finding aside into ~/.claudebox by rename; across filesystems the
// rename fails with EXDEV before the kernel looks at the directory's
// permissions, so the finding was copied and then could not be removed
// from the directory the session had made read-only (555): the host
// kept the file it would obey, with an error. Host-side proof: with
// ~/.claudebox on a filesystem of its own, the .envrc the session left
// in a read-only directory is gone from the project after the exit, and
// the exit names where it went.
func TestReplayReview25MoveAsideReadOnlyAcrossDisks(t *testing.T) {
	h, proj, _ := harness.SmallStateDisk(t)
	envrc := filepath.Join(proj, "sub", ".envrc")
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e; mkdir sub; echo 'touch "$HOME/PLANTED"' > sub/.envrc; chmod 555 sub`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if _, err := os.Lstat(envrc); err == nil {
		t.Errorf("the session's %s stays in the project:\n%s", envrc, out)
	}
	if !strings.Contains(out, envrc) {
		t.Errorf("the exit does not name %s:\n%s", envrc, out)
	}
}

// TestReplayReview25GoneWorktreeInsideCheckout: --gc drops what the undo
// store keeps of a checkout that is gone (a worktree removed). A -w
// worktree made inside the main checkout (worktree-dir under the
// project) and removed must take only its own: the main checkout's
// snapshots stay. Host-side proof: after the worktree inside is removed
// and --gc ran, --undo in the main checkout puts back what its last
// session changed.
func TestReplayReview25GoneWorktreeInsideCheckout(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const notes = "the user's notes\n"
	h.Write(filepath.Join(proj, "notes.txt"), notes)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "worktree-dir = \""+filepath.Join(proj, ".wt")+"\"\n")
	tree := filepath.Join(proj, ".wt", "proj-task")
	if out, err := harness.ShellAfterSnapshot(t, h, proj, "echo the session > notes.txt"); err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	// The worktree's session waits for its own snapshot.
	h.Run(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "sleep 2")
	store := filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(proj))
	snapshotsOf := func(checkout string) (n int) {
		for _, name := range harness.Globs(store, "*.snapshot") {
			if b, _ := os.ReadFile(filepath.Join(store, name)); strings.Contains(string(b), "checkout "+checkout+"\n") {
				n++
			}
		}
		return n
	}
	if snapshotsOf(tree) == 0 || snapshotsOf(proj) == 0 {
		t.Fatalf("the store lacks a snapshot of the worktree inside (%d) or of the main checkout (%d)", snapshotsOf(tree), snapshotsOf(proj))
	}
	h.Run(proj, nil, "git", "worktree", "remove", "--force", tree)
	h.Run(proj, nil, "claudebox", "--gc")
	if n := snapshotsOf(tree); n > 0 {
		t.Errorf("--gc kept %d snapshots of the removed worktree", n)
	}
	out, err := h.Bounded(proj, "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "notes.txt")); string(b) != notes {
		t.Errorf("--undo after --gc of the removed worktree inside did not undo the main checkout's last session: notes.txt holds %q\n%v\n%s", b, err, out)
	}
}

// TestReplayReview25FullStateDiskMidSession: the sandbox fills
// ~/.claudebox's disk from inside (its instance lies there), then leaves
// a .envrc a level down larger than the room left, so that the exit
// audit cannot copy it aside (the project lies on another filesystem):
// it was left in place, named as such, where direnv obeys it. Host-side proof:
// the session ends saying the disk is full, the .envrc is no longer at
// its name and the exit says how to put it back, no stand-in or record
// of the session stays, and once the file is gone the next launch
// works.
func TestReplayReview25FullStateDiskMidSession(t *testing.T) {
	h, proj, state := harness.SmallStateDisk(t)
	out, err := h.Bounded(proj, "--shell", "-c", `head -c 64M /dev/zero > ~/.claude/projects/fill; mkdir sub; { echo 'touch "$HOME/PLANTED"'; head -c 100000 /dev/zero | tr '\0' '#'; echo; } > sub/.envrc; echo mine > work`)
	if err != nil || !strings.Contains(out, "claudebox: the disk holding "+state+" is full") {
		t.Errorf("the session: %v\n%s", err, out)
	}
	envrc := filepath.Join(proj, "sub", ".envrc")
	if _, err := os.Lstat(envrc); err == nil {
		t.Errorf("the session's %s stays in the project:\n%s", envrc, out)
	}
	if !strings.Contains(out, "to put it back: mv -n ") {
		t.Errorf("the exit does not say how to put it back:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "work")); string(b) != "mine\n" {
		t.Errorf("the session's file: %q", b)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("stand-in left: %s", n)
		}
	}
	hash := instance.Hash(proj)
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the session left %s", hash+ext)
		}
	}
	os.Remove(filepath.Join(instance.Dir(state, proj), "fill"))
	if out, err := h.Bounded(proj, "--shell", "-c", "true"); err != nil {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
}

// TestReplayReview25UndoStagedWorkPacked: the snapshot copies into its
// store the loose objects of the project's that its files name (a
// staged change's content), not the packed ones ("a packed one is the
// project's history"). But git gc packs what the index holds too: the
// user staged an edit, git gc (or git's auto gc) packed it, and no commit
// holds it. The attack, from inside, once the snapshot is written:
// remove the packs and overwrite the file. Host-side proof: --undo puts
// the staged content back.
func TestReplayReview25UndoStagedWorkPacked(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const staged = "the user's staged work, nowhere else\n"
	h.Write(filepath.Join(proj, "README"), staged)
	h.Run(proj, nil, "git", "add", "README")
	h.Run(proj, nil, "git", "gc", "-q")
	oid := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", ":README"))
	if _, err := os.Stat(filepath.Join(proj, ".git", "objects", oid[:2], oid[2:])); err == nil {
		t.Fatal("git gc left the staged content loose")
	}
	if out, err := harness.ShellAfterSnapshot(t, h, proj, "rm -f .git/objects/pack/*; echo the session > README"); err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if packs := harness.Globs(filepath.Join(proj, ".git", "objects", "pack"), "*.pack"); len(packs) > 0 {
		t.Fatalf("the session could not remove the packs: %v", packs)
	}
	out, err := h.Bounded(proj, "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != staged {
		t.Errorf("--undo lost the user's staged work: README holds %q\n%v\n%s", b, err, out)
	}
}

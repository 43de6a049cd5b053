package untrusted

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/unprivileged"
)

// resolvers runs a test with openat2 and with the component walk that
// stands in for it on kernels without it.
func resolvers(t *testing.T, f func(t *testing.T)) {
	for _, walkOnly := range []bool{false, true} {
		name := map[bool]string{false: "openat2", true: "walk"}[walkOnly]
		t.Run(name, func(t *testing.T) {
			noOpenat2.Store(walkOnly)
			t.Cleanup(func() { noOpenat2.Store(false) })
			f(t)
		})
	}
}

// tree makes dir with a file, a subdirectory, a FIFO, and symlinks to a
// secret outside it, as the sandbox could leave them.
func tree(t *testing.T) (dir, secret string) {
	base := t.TempDir()
	dir = filepath.Join(base, "inst")
	secret = filepath.Join(base, "secret")
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o700))
	must(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "file"), []byte("ok"), 0o600))
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	must(t, os.Symlink(secret, filepath.Join(dir, "link")))
	must(t, os.Symlink(base, filepath.Join(dir, "up")))
	must(t, os.Symlink("sub", filepath.Join(dir, "sublink")))
	return dir, secret
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestReadFile(t *testing.T) {
	resolvers(t, func(t *testing.T) {
		dir, _ := tree(t)
		if b, err := ReadFile(dir, "sub/file", 10); err != nil || string(b) != "ok" {
			t.Errorf("sub/file: %q, %v", b, err)
		}
		for name, want := range map[string]error{
			"fifo":         ErrNotRegular, // returns at once: a blocking open would hang here
			"sub":          ErrNotRegular,
			"link":         unix.ELOOP,
			"up/secret":    unix.ELOOP,
			"sublink/file": unix.ELOOP,
			"../secret":    unix.EXDEV,
			"missing":      fs.ErrNotExist,
		} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				if b, err := ReadFile(dir, name, 100); !errors.Is(err, want) {
					t.Errorf("%s: %q, %v; want %v", name, b, err, want)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: the read hangs", name)
			}
		}
		if _, err := ReadFile(dir, "sub/file", 1); !errors.Is(err, ErrTooLarge) {
			t.Errorf("over the limit: %v", err)
		}
	})
}

// TestReadFileSparse: a 1 TiB sparse file is refused from its size, not
// read into memory.
func TestReadFileSparse(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge"))
	must(t, err)
	must(t, f.Truncate(1<<40))
	f.Close()
	if _, err := ReadFile(dir, "huge", 16<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("1 TiB sparse file: %v", err)
	}
}

func TestWriteFileReplacesLink(t *testing.T) {
	resolvers(t, func(t *testing.T) {
		dir, secret := tree(t)
		for _, name := range []string{"link", "fifo"} {
			must(t, WriteFile(dir, name, []byte("new"), 0o600))
			if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s after the write: %v, %v", name, fi, err)
			}
		}
		if err := WriteFile(dir, "up/secret", []byte("new"), 0o600); !errors.Is(err, unix.ELOOP) {
			t.Errorf("write through a linked directory: %v", err)
		}
		if b, _ := os.ReadFile(secret); string(b) != "SECRET" {
			t.Errorf("the link's target was written: %q", b)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name()[0] == '.' {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	})
}

func TestRenameNeverReplacesNorFollows(t *testing.T) {
	resolvers(t, func(t *testing.T) {
		dir, secret := tree(t)
		must(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o600))
		if err := Rename(dir, "a", "sub/file"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("rename over a file: %v", err)
		}
		if err := Rename(dir, "a", "up/planted"); !errors.Is(err, unix.ELOOP) {
			t.Errorf("rename into a linked directory: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(secret), "planted")); err == nil {
			t.Error("the rename went through the link")
		}
		must(t, Rename(dir, "a", "sub/a"))
	})
}

// TestRemoveAllModeZero: directories the sandbox made mode 000 are given
// back their permissions and removed, those moved up out of a deep nest
// too; a symlink is removed, not followed.
// As root, the removal runs without the capabilities that would bypass the
// modes.
func TestRemoveAllModeZero(t *testing.T) {
	resolvers(t, func(t *testing.T) {
		dir, secret := tree(t)
		must(t, os.MkdirAll(filepath.Join(dir, "sub", "locked", "deeper"), 0o700))
		must(t, os.WriteFile(filepath.Join(dir, "sub", "locked", "deeper", "f"), nil, 0))
		must(t, os.Chmod(filepath.Join(dir, "sub", "locked", "deeper"), 0))
		must(t, os.Chmod(filepath.Join(dir, "sub", "locked"), 0))
		must(t, os.Chmod(filepath.Join(dir, "sub"), 0o500))
		deepNest(t, dir, "deep", 2*maxOpenDirs, 0, secret)
		unprivileged.Do(t, func() {
			if err := RemoveAll(filepath.Dir(dir), "inst"); err != nil {
				t.Error(err)
			}
		})
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("still there: %v", err)
		}
		if b, _ := os.ReadFile(secret); string(b) != "SECRET" {
			t.Error("the link's target is gone")
		}
	})
}

func TestRepairDir(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Chmod(dir, 0))
	if fixed, err := RepairDir(dir); err != nil || !fixed {
		t.Fatalf("mode 000: %v, %v", fixed, err)
	}
	if fixed, err := RepairDir(dir); err != nil || fixed {
		t.Fatalf("repaired again: %v, %v", fixed, err)
	}
}

func TestChmodRefusesLink(t *testing.T) {
	dir, secret := tree(t)
	if err := Chmod(dir, "link", 0o777); err == nil {
		t.Error("chmod of a symlink succeeded")
	}
	if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
		t.Errorf("the link's target changed mode: %v", fi.Mode())
	}
}

// TestRemoveAllForeign: what claudebox may not remove (another user's
// directory it cannot empty) is an error naming it; a name that is not
// there is no error.
func TestRemoveAllForeign(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making another user's directory takes root")
	}
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "inst", "foreign"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "inst", "foreign", "f"), nil, 0o600))
	must(t, os.Chmod(filepath.Join(dir, "inst", "foreign"), 0o500))
	must(t, os.Chown(filepath.Join(dir, "inst", "foreign"), 65534, 65534))
	unprivileged.Do(t, func() {
		if err := RemoveAll(dir, "inst"); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("another user's directory: %v", err)
		}
		if err := RemoveAll(dir, "missing/below"); err != nil {
			t.Errorf("a missing name: %v", err)
		}
	})
}

func TestLstatReadDir(t *testing.T) {
	resolvers(t, func(t *testing.T) {
		dir, _ := tree(t)
		for name, want := range map[string]fs.FileMode{"link": fs.ModeSymlink, "fifo": fs.ModeNamedPipe, "sub": fs.ModeDir, "sub/file": 0} {
			if fi, err := Lstat(dir, name); err != nil || fi.Mode().Type() != want {
				t.Errorf("Lstat %s: %v, %v; want type %v", name, fi, err, want)
			}
		}
		if _, err := Lstat(dir, "up/secret"); !errors.Is(err, unix.ELOOP) {
			t.Errorf("Lstat through a linked directory: %v", err)
		}
		if _, err := Lstat(dir, "missing"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Lstat of a missing name: %v", err)
		}
		if entries, err := ReadDir(dir, "sub"); err != nil || len(entries) != 1 || entries[0].Name() != "file" {
			t.Errorf("ReadDir sub: %v, %v", entries, err)
		}
		for _, name := range []string{"sublink", "up", "fifo"} {
			if entries, err := ReadDir(dir, name); err == nil {
				t.Errorf("ReadDir %s: %v", name, entries)
			}
		}
	})
}

func TestKind(t *testing.T) {
	dir, _ := tree(t)
	for name, want := range map[string]string{"fifo": "a FIFO", "sub": "a directory", "link": "a symlink"} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		must(t, err)
		if got := Kind(fi); got != want {
			t.Errorf("Kind(%s) = %q, want %q", name, got, want)
		}
	}
	if got := kind(fs.ModeSocket); got != "a socket" {
		t.Errorf("socket: %q", got)
	}
	if got := kind(fs.ModeDevice | fs.ModeCharDevice); got != "a device node" {
		t.Errorf("device: %q", got)
	}
}

// TestOpenat2Denied: under a seccomp profile that answers openat2 with
// EPERM (Docker's before it knew the call), reads take the component walk
// and keep its discipline, instead of failing every read. The filter is
// installed in a child process, which this test runs.
func TestOpenat2Denied(t *testing.T) {
	if os.Getenv("UNTRUSTED_OPENAT2_DENIED") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenat2Denied$", "-test.v")
		cmd.Env = append(os.Environ(), "UNTRUSTED_OPENAT2_DENIED=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "walked") {
			t.Fatalf("under a filter denying openat2: %v\n%s", err, out)
		}
		return
	}
	denyOpenat2(t)
	if _, _, errno := unix.Syscall6(unix.SYS_OPENAT2, 0, 0, 0, 0, 0, 0); errno != unix.EPERM {
		t.Fatalf("the filter does not deny openat2: %v", errno)
	}
	dir, _ := tree(t)
	if b, err := ReadFile(dir, "sub/file", 10); err != nil || string(b) != "ok" {
		t.Fatalf("sub/file: %q, %v", b, err)
	}
	if _, err := ReadFile(dir, "link", 10); !errors.Is(err, unix.ELOOP) {
		t.Fatalf("link: %v", err)
	}
	if !noOpenat2.Load() {
		t.Fatal("openat2's EPERM did not switch to the walk")
	}
	fmt.Println("walked")
}

// denyOpenat2 installs, on every thread of this process, a seccomp filter
// that answers openat2 with EPERM and allows everything else.
func denyOpenat2(t *testing.T) {
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // the syscall number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_OPENAT2, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		t.Fatal(errno)
	}
}

// TestReadChecked: a copy reads the file that was checked, or nothing: a
// link put in its place is not followed, and another file in its place
// (or one behind a link on the way) is not read.
func TestReadChecked(t *testing.T) {
	dir := t.TempDir()
	file, other := filepath.Join(dir, "settings.json"), filepath.Join(dir, "key")
	os.WriteFile(file, []byte("{}"), 0o644)
	os.WriteFile(other, []byte("KEY"), 0o600)
	fi, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	id := IDOf(fi)
	if b, err := ReadChecked("/", file[1:], id, 100); err != nil || string(b) != "{}" {
		t.Fatalf("the checked file: %q, %v", b, err)
	}
	if _, err := ReadChecked("/", file[1:], FileID{}, 100); !errors.Is(err, ErrReplaced) {
		t.Errorf("a zero identity read: %v", err)
	}
	os.Rename(file, file+".old")
	os.Symlink(other, file)
	if b, err := ReadChecked("/", file[1:], id, 100); err == nil {
		t.Errorf("read through a link: %q", b)
	}
	os.Remove(file)
	os.Link(other, file)
	if b, err := ReadChecked("/", file[1:], id, 100); !errors.Is(err, ErrReplaced) {
		t.Errorf("read another file in its place: %q, %v", b, err)
	}
	os.Symlink(dir, filepath.Join(dir, "via"))
	if b, err := ReadChecked("/", filepath.Join(dir, "via", "settings.json.old")[1:], id, 100); err == nil {
		t.Errorf("read through a link on the way: %q", b)
	}
}

// deepNest makes a chain of depth directories named d, of mode perm,
// beneath dir/name, holding one descriptor at a time, with a symlink to
// secret at the bottom.
func deepNest(t testing.TB, dir, name string, depth int, perm uint32, secret string) {
	must(t, os.Mkdir(filepath.Join(dir, name), 0o700))
	d, err := unix.Open(filepath.Join(dir, name), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(t, err)
	for range depth {
		must(t, unix.Mkdirat(d, "d", perm))
		sub, err := unix.Openat(d, "d", unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(d)
		must(t, err)
		d = sub
	}
	must(t, unix.Symlinkat(secret, d, "link"))
	unix.Close(d)
}

// TestRemoveAllDeep: a nest of directories deeper than the host's limit on
// open files is removed, so the sandbox cannot make an instance that --gc
// can never remove. The removal runs in a child of the test with the limit
// lowered to 256, since the limit is the whole process's.
func TestRemoveAllDeep(t *testing.T) {
	if dir := os.Getenv("UNTRUSTED_REMOVE_DEEP"); dir != "" {
		must(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 256, Max: 256}))
		if err := RemoveAll(dir, "inst"); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	must(t, os.WriteFile(secret, []byte("SECRET"), 0o600))
	deepNest(t, dir, "inst", 2000, 0o700, secret)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRemoveAllDeep$", "-test.count=1")
	cmd.Env = append(os.Environ(), "UNTRUSTED_REMOVE_DEEP="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(dir, "inst")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("still there: %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET" {
		t.Error("the link's target is gone")
	}
}

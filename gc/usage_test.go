package gc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// usageDirEnv names the directory the test binary, run again as a child,
// walks with usage and nothing else: its peak memory is the walk's.
const usageDirEnv = "GC_TEST_USAGE_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(usageDirEnv); dir != "" {
		bytes, _, _ := usage(dir)
		fmt.Println(bytes)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// usagePeak runs usage on dir in a child process: the bytes it counted,
// and the child's peak resident memory in KiB.
func usagePeak(t *testing.T, dir string) (string, int64) {
	t.Helper()
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), usageDirEnv+"="+dir)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("the walk of %s: %v", dir, err)
	}
	return string(out), c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

// TestUsageHoldsNoListing: --list, --gc and --check size each instance,
// whose directories the sandbox fills: a million entries in one held
// --list at 214 MiB, as the walk read each directory whole. What the walk
// holds does not grow with a directory's entries: 60,000 names (links, as
// the sandbox makes them cheaply) cost it less than 5 MiB over an empty
// directory's walk.
func TestUsageHoldsNoListing(t *testing.T) {
	empty, full := t.TempDir(), t.TempDir()
	one := filepath.Join(full, "f")
	must(t, os.WriteFile(one, []byte("x"), 0o600))
	for i := range 60000 {
		must(t, os.Link(one, filepath.Join(full, fmt.Sprintf("link-with-a-longer-name-%06d", i))))
	}
	_, base := usagePeak(t, empty)
	counted, peak := usagePeak(t, full)
	if counted == "" || counted == "0\n" {
		t.Errorf("the walk counted %q bytes", counted)
	}
	t.Logf("peak %d KiB, empty %d KiB", peak, base)
	if peak-base > 5<<10 {
		t.Errorf("walking 60,000 entries took %d KiB at its peak, %d over an empty directory's, want at most 5 MiB over", peak, peak-base)
	}
}

// TestUsageCountsAllocated: the size --list and --gc report is the disk
// the instance takes: a sparse file counts its blocks, not its length, and
// a file under many names counts once.
func TestUsageCountsAllocated(t *testing.T) {
	dir := t.TempDir()
	sparse, err := os.Create(filepath.Join(dir, "sparse"))
	must(t, err)
	must(t, sparse.Truncate(1<<40))
	must(t, sparse.Close())
	real := filepath.Join(dir, "real")
	must(t, os.WriteFile(real, make([]byte, 1<<20), 0o600))
	for i := range 100 {
		must(t, os.Link(real, filepath.Join(dir, fmt.Sprint("link-", i))))
	}
	if bytes, _, _ := usage(dir); bytes < 1<<20 || bytes > 2<<20 {
		t.Errorf("usage counted %d bytes, want about the 1 MiB on disk", bytes)
	}
}

// TestUsageDeepAndWide: the walk counts everything below, however deep
// the nest (3,000 levels: the path it opened each by stopped it at about
// 2,000) and however many directories one holds (each walked into and
// the listing taken up again after it).
func TestUsageDeepAndWide(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "i")
	must(t, os.Mkdir(dir, 0o700))
	t.Cleanup(func() { untrusted.RemoveAll(base, "i") })
	data := make([]byte, 8192)
	for i := range 300 {
		sub := filepath.Join(dir, fmt.Sprint("wide-", i))
		must(t, os.Mkdir(sub, 0o700))
		must(t, os.WriteFile(filepath.Join(sub, "f"), data, 0o600))
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err)
	for range 3000 {
		must(t, unix.Mkdirat(fd, "d", 0o700))
		sub, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		must(t, err)
		unix.Close(fd)
		fd = sub
	}
	bottom, err := unix.Openat(fd, "bottom", unix.O_CREAT|unix.O_WRONLY, 0o600)
	must(t, err)
	for range 2048 { // 16 MiB, more than 3,000 directories take
		_, err = unix.Write(bottom, data)
		must(t, err)
	}
	unix.Close(bottom)
	unix.Close(fd)
	want := int64(300*8192 + 16<<20)
	if bytes, _, _ := usage(dir); bytes < want {
		t.Errorf("usage counted %d bytes, want at least the %d its files hold", bytes, want)
	}
}

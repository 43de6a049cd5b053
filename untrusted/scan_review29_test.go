package untrusted

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScanResolvedShowsTheFile: the mapped content is the file's, through
// the user's link, as ReadResolved reads it; an empty file, a FIFO and a
// file over the limit are as ReadFile has them, and a FIFO does not hang.
func TestScanResolvedShowsTheFile(t *testing.T) {
	dir := t.TempDir()
	content := bytes.Repeat([]byte(`{"projects":{}}`), 10000)
	os.WriteFile(filepath.Join(dir, "real.json"), content, 0o644)
	os.Symlink("real.json", filepath.Join(dir, "link.json"))
	var got []byte
	if err := ScanResolved(filepath.Join(dir, "link.json"), 1<<20, func(b []byte) { got = bytes.Clone(b) }); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("got %d bytes, %v; want the file's %d", len(got), err, len(content))
	}
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
	called := false
	if err := ScanResolved(filepath.Join(dir, "empty"), 1<<20, func(b []byte) { called = len(b) == 0 }); err != nil || !called {
		t.Fatalf("empty file: called %v, %v", called, err)
	}
	if err := ScanResolved(filepath.Join(dir, "real.json"), 100, func([]byte) { t.Fatal("called for a file over the limit") }); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- ScanResolved(filepath.Join(dir, "fifo"), 1<<20, func([]byte) { t.Error("called for a FIFO") })
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO hung the scan")
	}
	if err := ScanResolved(filepath.Join(dir, "missing"), 1<<20, func([]byte) {}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

// TestScanResolvedFileShrinks: a file its owner truncates while it is
// scanned (a program rewriting it in place) ends the scan with an error;
// the process goes on. Without the recovery, the fault on the page past
// the new end kills the test binary.
func TestScanResolvedFileShrinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	os.WriteFile(path, []byte(strings.Repeat("x", 1<<16)), 0o644)
	var sum int
	err := ScanResolved(path, 1<<20, func(b []byte) {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		for _, c := range b {
			sum += int(c)
		}
	})
	if !errors.Is(err, ErrShrunk) {
		t.Fatalf("got %v, want ErrShrunk", err)
	}
}

// TestScanResolvedPanicsOfItsOwn: a panic in fn that is no fault in the
// mapping (a bug: an index out of range, a fault elsewhere) is not taken for
// the file's shrinking.
func TestScanResolvedPanicsOfItsOwn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	os.WriteFile(path, []byte("{}"), 0o644)
	for name, fn := range map[string]func([]byte){
		"index out of range": func(b []byte) {
			_ = b[len(b)+1]
		},
		"nil pointer": func([]byte) {
			var p *int
			_ = *p
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("the panic was swallowed")
				}
			}()
			err := ScanResolved(path, 1<<20, fn)
			t.Fatalf("returned %v", err)
		})
	}
}

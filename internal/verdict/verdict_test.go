package verdict

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// later is a launch's clock an hour on: every file is settled.
func later() time.Time { return time.Now().Add(time.Hour) }

// judgeOnce is the verdict of c's judge for the file at path, which
// reads it and says it holds "token", and whether that judge ran.
func judgeOnce(t *testing.T, c *Cache, path string) (holds, judged bool) {
	t.Helper()
	holds = c.verdict("test", filepath.Dir(path), filepath.Base(path), func(f File) bool {
		judged = true
		b, err := f.Read(1 << 20)
		return err != nil || bytes.Contains(b, []byte("token"))
	})
	return holds, judged
}

// TestChangedFileRejudged: a verdict is used again only for the file as
// it was judged. A skill's file given a token, of the same size, its
// modification time set back (touch -d), in the same second, is the same
// file by its device, inode, size and modification time: only its
// status-change time says it changed. Judged again, it holds one.
func TestChangedFileRejudged(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "server.js")
	if err := os.WriteFile(path, []byte("var a = 'plain';"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := load(state, later)
	if holds, judged := judgeOnce(t, c, path); holds || !judged {
		t.Fatalf("first launch: holds %v, judged %v; want false, true", holds, judged)
	}
	c.save()
	c = load(state, later)
	if holds, judged := judgeOnce(t, c, path); holds || judged {
		t.Fatalf("unchanged, the next launch: holds %v, judged %v; want the kept verdict, not judged", holds, judged)
	}
	c.save()
	fi, _ := os.Stat(path)
	time.Sleep(20 * time.Millisecond) // past the filesystem clock's tick
	if err := os.WriteFile(path, []byte("var a = 'token';"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) || !os.SameFile(fi, after) {
		t.Fatal("the rewritten file differs by more than its status-change time")
	}
	c = load(state, later)
	if holds, judged := judgeOnce(t, c, path); !holds || !judged {
		t.Errorf("rewritten with its size and times kept: holds %v, judged %v; want it judged again, holding one", holds, judged)
	}
}

// TestUnsettledFileNotKept: a file changed within the settled time could
// change again within its filesystem's clock tick unseen: its verdict is
// not kept.
func TestUnsettledFileNotKept(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "run.sh")
	os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755)
	c := load(state, time.Now)
	judgeOnce(t, c, path)
	c.save()
	c = load(state, time.Now)
	if _, judged := judgeOnce(t, c, path); !judged {
		t.Error("a file changed a moment ago was not judged again")
	}
}

// TestRecordNotTrusted: a record that is not whole, is another build's,
// is over its bound or is no regular file is not used, and reading it
// does not wait.
func TestRecordNotTrusted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "skill.md")
	os.WriteFile(path, []byte("plain"), 0o644)
	record := func(t *testing.T) (string, []byte) {
		state := t.TempDir()
		c := load(state, later)
		judgeOnce(t, c, path)
		c.save()
		b, err := os.ReadFile(filepath.Join(state, recordName))
		if err != nil || len(b) == 0 {
			t.Fatalf("no record written: %v", err)
		}
		return state, b
	}
	for name, spoil := range map[string]func(state string, b []byte){
		"one byte changed": func(state string, b []byte) {
			b[len(b)/2] ^= 1
			os.WriteFile(filepath.Join(state, recordName), b, 0o600)
		},
		"cut short": func(state string, b []byte) {
			os.WriteFile(filepath.Join(state, recordName), b[:len(b)-3], 0o600)
		},
		"another build's": func(state string, b []byte) {
			b = bytes.Clone(b)
			b[len(magic)] ^= 1
			os.WriteFile(filepath.Join(state, recordName), b, 0o600)
		},
		"over its bound": func(state string, b []byte) {
			os.WriteFile(filepath.Join(state, recordName), append(b, make([]byte, maxRecord)...), 0o600)
		},
		"a FIFO": func(state string, _ []byte) {
			os.Remove(filepath.Join(state, recordName))
			syscall.Mkfifo(filepath.Join(state, recordName), 0o600)
		},
		"a link": func(state string, b []byte) {
			other := filepath.Join(t.TempDir(), "verdicts")
			os.WriteFile(other, b, 0o600)
			os.Remove(filepath.Join(state, recordName))
			os.Symlink(other, filepath.Join(state, recordName))
		},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			state, b := record(t)
			if c := load(state, later); len(c.known) != 1 {
				t.Fatalf("the whole record holds %d verdicts, want 1", len(c.known))
			}
			spoil(state, b)
			done := make(chan *Cache, 1)
			go func() { done <- load(state, later) }()
			select {
			case c := <-done:
				if _, judged := judgeOnce(t, c, path); !judged {
					t.Error("a verdict of a record not whole or not this build's was used")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("reading the record waits")
			}
		})
	}
}

// TestRecordBounded: a launch keeps at most maxEntries verdicts, and
// drops those of files gone or changed.
func TestRecordBounded(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	c := load(state, later)
	gone := filepath.Join(dir, "gone.md")
	os.WriteFile(gone, []byte("plain"), 0o644)
	judgeOnce(t, c, gone)
	c.save()
	os.Remove(gone)
	c = load(state, later)
	for i := range maxEntries + 10 {
		c.known[key{kind: "test", path: filepath.Join(dir, "x"), ino: uint64(i)}] = 0
	}
	kept := filepath.Join(dir, "kept.md")
	os.WriteFile(kept, []byte("plain"), 0o644)
	judgeOnce(t, c, kept)
	c.save()
	c = load(state, later)
	if len(c.known) != 1 {
		t.Errorf("the record holds %d verdicts, want only the one of the file still there", len(c.known))
	}
}

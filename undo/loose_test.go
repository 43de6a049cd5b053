package undo

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A staged change's content, a loose object of the project's, is copied
// into the store: removed from the project after the snapshot, it is
// still restored. Both ways of finding it: by the paths git add hashed,
// and past hashedLimit of them, by reading the objects' directories.
func TestTakeKeepsLooseObjects(t *testing.T) {
	defer func(was int) { hashedLimit = was }(hashedLimit)
	for _, files := range []int{2, 300} {
		hashedLimit = files * 2 / 3
		p := repo(t, 1, files)
		path := filepath.Join(p.Checkout, "pkg0", "f1.go")
		os.WriteFile(path, []byte("staged\n"), 0o644)
		out, err := exec.Command("git", "-C", p.Checkout, "add", "pkg0/f1.go").CombinedOutput()
		if err != nil {
			t.Fatalf("git add: %v %s", err, out)
		}
		out, _ = exec.Command("git", "-C", p.Checkout, "rev-parse", ":pkg0/f1.go").Output()
		oid := strings.TrimSpace(string(out))
		state := t.TempDir()
		s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(p.GitDir, "objects", oid[:2], oid[2:])); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, []byte("the session's\n"), 0o644)
		res, err := Apply(state, p.Root, s, t.TempDir())
		if b, _ := os.ReadFile(path); err != nil || len(res.Failed) > 0 || string(b) != "staged\n" {
			t.Errorf("%d files: the staged content is not restored: %q, %v %v", files, b, res.Failed, err)
		}
	}
}

// TestTakeKeepsPackedStagedObjects: git gc packs what the index holds:
// the staged content, in no commit, lies in a pack the session can
// remove. The snapshot copies it, and only it: the blobs HEAD holds at
// their paths are the project's history, which stays packed.
func TestTakeKeepsPackedStagedObjects(t *testing.T) {
	p := repo(t, 1, 3)
	path := filepath.Join(p.Checkout, "pkg0", "f1.go")
	os.WriteFile(path, []byte("staged\n"), 0o644)
	for _, args := range [][]string{{"add", "pkg0/f1.go"}, {"gc", "-q"}} {
		if out, err := exec.Command("git", append([]string{"-C", p.Checkout}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v %s", args[0], err, out)
		}
	}
	out, _ := exec.Command("git", "-C", p.Checkout, "rev-parse", ":pkg0/f1.go", "HEAD:pkg0/f0.go").Output()
	oids := strings.Fields(string(out))
	state := t.TempDir()
	s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	st := storeOf(state, p.Root)
	for i, want := range []bool{true, false} {
		_, err := os.Stat(filepath.Join(st.gitDir, "objects", oids[i][:2], oids[i][2:]))
		if got := err == nil; got != want {
			t.Errorf("the store holds %s loose: %v, want %v", []string{"the staged blob", "HEAD's blob"}[i], got, want)
		}
	}
	packs, _ := filepath.Glob(filepath.Join(p.GitDir, "objects", "pack", "*"))
	for _, pack := range packs {
		os.Remove(pack)
	}
	os.WriteFile(path, []byte("the session's\n"), 0o644)
	res, err := Apply(state, p.Root, s, t.TempDir())
	if b, _ := os.ReadFile(path); err != nil || string(b) != "staged\n" {
		t.Errorf("the staged content is not restored: %q, %v %v", b, res.Failed, err)
	}
}

// A snapshot stopped while git add writes the checkout's new files (its
// session ended first) counted, once dropped, as 256 KiB, whatever it
// had written: sessions that each leave a new large file and end at once
// grew the store by it at every launch, and the prune came only after 16
// such launches. Here git add writes 8 MiB, then waits on a FIFO
// .gitattributes, and its supervisor is killed: once that snapshot is
// dropped, its object goes.
func TestStoppedSnapshotCountsWhatItRead(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	big := make([]byte, 8<<20)
	rand.Read(big)
	os.WriteFile(filepath.Join(p.Checkout, "a.bin"), big, 0o644)
	os.MkdirAll(filepath.Join(p.Checkout, "z"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "z", "f"), nil, 0o644)
	if err := syscall.Mkfifo(filepath.Join(p.Checkout, "z", ".gitattributes"), 0o644); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	c := exec.Command(self, "-test.run=^$")
	c.Env = append(os.Environ(), "UNDO_TEST_TAKE="+p.Checkout, "UNDO_TEST_STATE="+state)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	held := 0
	for deadline := time.Now().Add(20 * time.Second); held == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		held = childGit(c.Process.Pid)
	}
	if held == 0 {
		t.Fatal("the snapshot's git add never waited on the FIFO")
	}
	// git adds in path order: a.bin's object, then the wait.
	for deadline := time.Now().Add(20 * time.Second); largeObjects(state) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stopped snapshot never wrote a.bin's object")
		}
	}
	c.Process.Kill()
	c.Wait()
	for _, name := range []string{"a.bin", "z"} {
		os.RemoveAll(filepath.Join(p.Checkout, name))
	}
	now := time.Now()
	for i := range keep + 1 {
		if _, err := Take(context.Background(), state, p, now.Add(time.Duration(i+1)*time.Second), now.Add(time.Hour), nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if n := largeObjects(state); n > 0 {
		t.Errorf("the dropped stopped snapshot's 8 MiB stays in the store")
	}
}

// largeObjects counts the files over 4 MiB in the undo stores of state.
func largeObjects(state string) int {
	n := 0
	filepath.Walk(state, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 4<<20 {
			n++
		}
		return nil
	})
	return n
}

// The prune runs beside the session, after its snapshot, and the
// session's end cuts it off: a session that ends at once, every time,
// left every prune cut off, the store growing by each new large file.
// What a cut-off prune owed is pruned at the next launch, before the
// sandbox's command starts: here, with that launch's session ended at
// once, the object no snapshot holds goes.
func TestCutOffPruneDoneAtNextLaunch(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	if _, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	st := storeOf(state, p.Root)
	big := make([]byte, 8<<20)
	rand.Read(big)
	file := filepath.Join(t.TempDir(), "big")
	os.WriteFile(file, big, 0o644)
	c := exec.Command("git", "hash-object", "-w", file)
	c.Env = append(os.Environ(), "GIT_DIR="+st.gitDir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git hash-object: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(st.dir, "unpruned"), []byte("9000000\n"), 0o600)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	Take(ended, state, p, time.Now().Add(time.Second), time.Now().Add(time.Hour), nil, false)
	if largeObjects(state) > 0 {
		t.Error("the object a cut-off prune owed stays in the store")
	}
}

package undo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
)

// repo makes a committed repository of dirs×files files, and one more file
// changed and one untracked, as a session's start finds a working tree.
func repo(tb testing.TB, dirs, files int) instance.Project {
	tb.Helper()
	root := tb.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%d", d))
		os.MkdirAll(dir, 0o755)
		for f := range files {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), []byte(fmt.Sprintf("package p%d // %d\n", d, f)), 0o644)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(root, "pkg0", "f0.go"), []byte("changed\n"), 0o644)
	os.WriteFile(filepath.Join(root, "untracked.txt"), []byte("new\n"), 0o644)
	p, err := instance.Resolve(root)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// A snapshot holds the changed and the untracked file as they were; Plan
// finds nothing to do while the tree is as it found it.
func TestTakePlan(t *testing.T) {
	p := repo(t, 3, 3)
	state := t.TempDir()
	s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := List(state, p.Root, p.Checkout); len(got) != 1 || got[0].Tree != s.Tree {
		t.Fatalf("List = %+v", got)
	}
	if changes, err := Plan(state, p.Root, s); err != nil || len(changes) != 0 {
		t.Fatalf("Plan of an unchanged tree: %+v, %v", changes, err)
	}
	os.WriteFile(filepath.Join(p.Checkout, "untracked.txt"), []byte("later\n"), 0o644)
	changes, err := Plan(state, p.Root, s)
	if err != nil || len(changes) != 1 || changes[0].Path != "untracked.txt" || changes[0].What != "changed" {
		t.Fatalf("Plan: %+v, %v", changes, err)
	}
	for i := range keep + 3 {
		Take(context.Background(), state, p, time.Now().Add(time.Duration(i+1)*time.Second), time.Now().Add(time.Hour), nil, false)
	}
	if n := len(List(state, p.Root, p.Checkout)); n != keep {
		t.Errorf("%d snapshots kept, want %d", n, keep)
	}
}

// The first snapshot of a checkout reads every file: the checkout's own
// index, which sandboxes write, names a blob of a session's for
// pkg0/f1.go (marked assume-unchanged, which git add passes over; a
// forged status does the same), and a tracked file the ignore rules
// hide is taken too.
func TestTakeFirstReadsFiles(t *testing.T) {
	p := repo(t, 1, 2)
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "kept.log"), []byte("tracked, ignored\n"), 0o644)
	git := func(in string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", p.Checkout}, args...)...)
		c.Stdin = strings.NewReader(in)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "add", "-f", "kept.log")
	evil := git("the session's\n", "hash-object", "-w", "--stdin")
	git("", "update-index", "--cacheinfo", "100644,"+evil+",pkg0/f1.go")
	git("", "update-index", "--assume-unchanged", "pkg0/f1.go")
	state := t.TempDir()
	s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if changes, err := Plan(state, p.Root, s); err != nil || len(changes) != 0 {
		t.Fatalf("Plan of the tree the snapshot read: %+v, %v", changes, err)
	}
	os.WriteFile(filepath.Join(p.Checkout, "kept.log"), []byte("the session's\n"), 0o644)
	if changes, err := Plan(state, p.Root, s); err != nil || len(changes) != 1 || changes[0].Path != "kept.log" {
		t.Fatalf("Plan after a tracked ignored file changed: %+v, %v", changes, err)
	}
}

// A tracked file its ignore rules hide, made sparse (a terabyte taking no
// disk), is left out of a first snapshot, whose git would hash it for
// its ten minutes.
func TestTakeFirstSparseTrackedIgnored(t *testing.T) {
	p := repo(t, 1, 1)
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "kept.log"), []byte("tracked, ignored\n"), 0o644)
	if out, err := exec.Command("git", "-C", p.Checkout, "add", "-f", "kept.log").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if err := os.Truncate(filepath.Join(p.Checkout, "kept.log"), 1<<40); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Take(ctx, t.TempDir(), p, time.Now(), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
}

// A file the session grew to another size is changed without being read:
// a sparse file of gigabytes takes no disk, and would take as much memory.
func TestPlanDoesNotReadOtherSizes(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(p.Checkout, "pkg0", "f0.go"), 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	changes, err := Plan(state, p.Root, s)
	runtime.ReadMemStats(&after)
	if err != nil || len(changes) != 1 || changes[0].Path != "pkg0/f0.go" || changes[0].What != "changed" {
		t.Fatalf("Plan: %+v, %v", changes, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("Plan allocated %d MiB for a sparse file of 1 GiB", n>>20)
	}
}

// BenchmarkTake: what a session's start adds, beside the launch, on a
// small repository and on 60,000 files; the first snapshot of a checkout
// (a new store each time) hashes every file.
func BenchmarkTake(b *testing.B) {
	for _, size := range []struct{ dirs, files int }{{2, 5}, {3000, 20}} {
		for _, first := range []bool{false, true} {
			name := fmt.Sprintf("%dfiles", size.dirs*size.files)
			if first {
				name += "/first"
			}
			b.Run(name, func(b *testing.B) {
				p := repo(b, size.dirs, size.files)
				state := b.TempDir()
				now := time.Now()
				for b.Loop() {
					now = now.Add(time.Millisecond)
					if first {
						b.StopTimer()
						os.RemoveAll(state)
						b.StartTimer()
					}
					if _, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// What changed after Mark, before the snapshot read it (the sandbox runs
// while a large tree's snapshot is taken), is left out of it as unknown:
// --undo neither restores the session's content as the start's nor moves
// it aside, and names it; what did not change is restored.
func TestTakeLeavesOutWhatChangedSince(t *testing.T) {
	p := repo(t, 3, 3)
	state := t.TempDir()
	since, err := Mark(state, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // past the filesystem clock's tick
	os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f1.go"), []byte("the session's\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "early.txt"), []byte("made by the session\n"), 0o644)
	s, err := Take(context.Background(), state, p, time.Now(), since, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Unknown, []string{"early.txt", "pkg1/f1.go"}) {
		t.Fatalf("unknown: %q", s.Unknown)
	}
	os.WriteFile(filepath.Join(p.Checkout, "pkg2", "f2.go"), []byte("later\n"), 0o644)
	if _, err := Apply(state, p.Root, List(state, p.Root, p.Checkout)[0], t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"pkg1/f1.go": "the session's\n", "early.txt": "made by the session\n", "pkg2/f2.go": "package p2 // 2\n"} {
		if b, _ := os.ReadFile(filepath.Join(p.Checkout, path)); string(b) != want {
			t.Errorf("%s after Apply: %q, want %q", path, b, want)
		}
	}
}

// A snapshot not finished stands as pending, listed and never taken for
// a finished one.
func TestPending(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	st := storeOf(state, p.Root)
	os.MkdirAll(st.dir, 0o700)
	os.WriteFile(filepath.Join(st.dir, "20261128T050000.000000Z.pending"), []byte("checkout "+p.Checkout+"\n"), 0o600)
	got := List(state, p.Root, p.Checkout)
	if len(got) != 1 || !got[0].Pending || got[0].Tree != "" {
		t.Fatalf("List: %+v", got)
	}
	if _, err := Take(context.Background(), state, p, time.Date(2026, 11, 28, 5, 1, 0, 0, time.UTC), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	if got := List(state, p.Root, p.Checkout); len(got) != 2 || got[0].Pending || !got[1].Pending {
		t.Fatalf("List after a finished one: %+v", got)
	}
}

// Sessions of a project starting together each take a snapshot into one
// store none has made yet, in one microsecond: every one succeeds, under
// a name of its own.
func TestTakeTogether(t *testing.T) {
	p := repo(t, 2, 2)
	state := t.TempDir()
	now := time.Now()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false)
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := List(state, p.Root, p.Checkout); len(got) != 8 {
		t.Errorf("%d snapshots, want 8: %+v", len(got), got)
	}
}

// TestTakeKeepsStoreFiles: a snapshot of a project whose objects and
// exclusions did not move leaves the store's alternates and exclude as
// the last one wrote them: every launch takes a snapshot, and rewriting
// them cost each launch two renames and two fsyncs (2-3 ms each on this
// machine's disk). One that changed is written again.
func TestTakeKeepsStoreFiles(t *testing.T) {
	p := repo(t, 1, 2)
	state := t.TempDir()
	if _, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	st := storeOf(state, p.Root)
	files := []string{filepath.Join(st.gitDir, "objects", "info", "alternates"), filepath.Join(st.gitDir, "info", "exclude")}
	inode := func(path string) uint64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	before := []uint64{inode(files[0]), inode(files[1])}
	if _, err := Take(context.Background(), state, p, time.Now().Add(time.Second), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if inode(f) != before[i] {
			t.Errorf("%s was written again, unchanged", f)
		}
	}
	os.WriteFile(filepath.Join(p.GitDir, "info", "exclude"), []byte("*.tmp\n"), 0o644)
	if _, err := Take(context.Background(), state, p, time.Now().Add(2*time.Second), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(files[1]); string(b) != "*.tmp\n" {
		t.Errorf("the store's exclude holds %q after the project's changed", b)
	}
}

// A FIFO a session left in place of a tracked file, which git add
// refuses, is left out of the next snapshot, named as unknown, rather
// than leaving every later session without one.
func TestTakeLeavesOutFIFO(t *testing.T) {
	p := repo(t, 1, 2)
	state := t.TempDir()
	since, err := Mark(state, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(p.Checkout, "pkg0", "f1.go")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Take(context.Background(), state, p, time.Now().Add(time.Second), since, nil, false)
	if err != nil {
		t.Fatalf("the snapshot after a FIFO took the place of a tracked file: %v", err)
	}
	if !slices.Contains(s.Unknown, "pkg0/f1.go") {
		t.Errorf("unknown: %q, want the FIFO", s.Unknown)
	}
}

// TestStoppedSnapshotsPruned: a project whose sessions all end before
// their snapshot is written keeps only the newest pending records, not
// one a session.
func TestStoppedSnapshotsPruned(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for range keep + 5 {
		if _, err := Take(stopped, state, p, time.Now(), time.Now(), nil, false); err == nil {
			t.Fatal("a stopped snapshot was written")
		}
	}
	pending, _ := filepath.Glob(filepath.Join(storeOf(state, p.Root).dir, "*.pending"))
	if len(pending) > keep+1 {
		t.Errorf("%d pending records stay, want at most %d", len(pending), keep+1)
	}
}

// TestTakeStandInsInNestedRepository: the launch's stand-ins in a nested
// repository's .git are left out of every snapshot, the first and those
// after it (git add refused them once the store's index held the
// repository, and no later snapshot was kept).
func TestTakeStandInsInNestedRepository(t *testing.T) {
	p := repo(t, 1, 1)
	sub := filepath.Join(p.Checkout, "sub")
	for _, args := range [][]string{{"init", "-q", sub}, {"-C", sub, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	skip := []string{filepath.Join(sub, ".git", "config.worktree"), filepath.Join(p.Checkout, ".envrc")}
	state := t.TempDir()
	for i := range 2 {
		if _, err := Take(context.Background(), state, p, time.Now().Add(time.Duration(i)*time.Second), time.Now().Add(time.Hour), skip, false); err != nil {
			t.Fatalf("snapshot %d: %v", i+1, err)
		}
	}
}

// BenchmarkLeftOut is the look, before a checkout's first snapshot's git
// add, at the 60,000 files it will read (each is new to the store's
// index), with the processor time it and its git take.
func BenchmarkLeftOut(b *testing.B) {
	p := repo(b, 3000, 20)
	st := storeOf(b.TempDir(), p.Root)
	if err := st.init(p); err != nil {
		b.Fatal(err)
	}
	index := filepath.Join(st.dir, "none.index")
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	var children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	for b.Loop() {
		if left, _, _ := st.leftOut(context.Background(), p.Checkout, index); len(left) != 0 {
			b.Fatalf("left out: %q", left)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	cpu += after.Utime.Nano() + after.Stime.Nano() - children.Utime.Nano() - children.Stime.Nano()
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
}

package undo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/dirent"
)

// after is a time by the filesystem's clock after every status change in
// dir: a mark taken again until its ctime passes theirs, as the kernel's
// coarse clock can give a later change the same time.
func after(t *testing.T, state, dir string) time.Time {
	t.Helper()
	var newest time.Time
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		var st unix.Stat_t
		if err == nil && unix.Lstat(path, &st) == nil {
			if c := time.Unix(st.Ctim.Unix()); c.After(newest) {
				newest = c
			}
		}
		return nil
	})
	for range 100_000 {
		m, err := Mark(state, dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.After(newest) {
			return m
		}
	}
	t.Fatal("the filesystem's clock does not advance")
	return time.Time{}
}

// TestRecordChanges: the record lists what changed after the start
// (a file gone with its directory, renamed, or made a directory is
// removed; one in a directory that did not change is there still),
// ignored files past the limit counted, never follows a symlink out of
// the checkout, and does not ask git what is ignored (git would wait
// forever) when a .gitignore is a FIFO, saying so.
func TestRecordChanges(t *testing.T) {
	p := repo(t, 3, 2)
	manyCompared(t, p)
	state := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("build/\n"), 0o644)
	os.Mkdir(filepath.Join(p.Checkout, "build"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "build", "old.o"), []byte("old\n"), 0o644)
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	os.Symlink(outside, filepath.Join(p.Checkout, "link"))
	for i := range IgnoredLimit + 5 {
		os.WriteFile(filepath.Join(p.Checkout, "build", fmt.Sprintf("new%05d.o", i)), nil, 0o644)
	}
	os.Remove(filepath.Join(p.Checkout, "build", "old.o"))
	os.WriteFile(filepath.Join(p.Checkout, "pkg0", "f1.go"), []byte("changed\n"), 0o644)
	os.RemoveAll(filepath.Join(p.Checkout, "pkg1"))
	os.Rename(filepath.Join(p.Checkout, "pkg2", "f0.go"), filepath.Join(p.Checkout, "pkg2", "g.go"))
	os.Remove(filepath.Join(p.Checkout, "pkg2", "f1.go"))
	os.Mkdir(filepath.Join(p.Checkout, "pkg2", "f1.go"), 0o755)

	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if err != nil || len(c.Incomplete) != 0 {
		t.Fatalf("RecordChanges: %v, %q", err, c.Incomplete)
	}
	// The exit leaves the tracked files git compares unread; reading the
	// record compares them.
	if c.TrackedSince.IsZero() || slices.ContainsFunc(c.Paths, func(pc PathChange) bool { return pc.Path == "pkg0/f1.go" }) {
		t.Errorf("the exit read the tracked files git compares: %v", c.Paths)
	}
	read, err := ReadChanges(state, p.Root, p.Checkout)
	if err != nil || len(read.Incomplete) != 0 || !read.TrackedSince.IsZero() {
		t.Fatalf("ReadChanges: %v, %q", err, read.Incomplete)
	}
	got := map[string]string{}
	ignored := 0
	for _, pc := range read.Paths {
		got[pc.Path] = pc.Change
		if pc.Ignored {
			ignored++
		}
	}
	want := map[string]string{
		"pkg0/f1.go": "changed", "link": "created", "build/old.o": "removed", "pkg0/f0.go": "", "untracked.txt": "",
		"pkg1/f0.go": "removed", "pkg1/f1.go": "removed", "pkg2/f0.go": "removed", "pkg2/g.go": "created", "pkg2/f1.go": "removed",
	}
	for path, change := range want {
		if got[path] != change {
			t.Errorf("%s: %q, want %q", path, got[path], change)
		}
	}
	if ignored != IgnoredLimit || c.IgnoredLeftOut != 6 || c.Top["build"] != IgnoredLimit+6 {
		t.Errorf("%d ignored listed, %d left out, %d under build/; want %d, 6, %d", ignored, c.IgnoredLeftOut, c.Top["build"], IgnoredLimit, IgnoredLimit+6)
	}
	if slices.ContainsFunc(c.Paths, func(pc PathChange) bool { return strings.Contains(pc.Path, "secret") }) {
		t.Errorf("the walk followed the symlink out of the checkout")
	}
	if back, err := ReadChanges(state, p.Root, p.Checkout); err != nil || len(back.Paths) != len(c.Paths)+1 {
		t.Errorf("ReadChanges: %d paths, %v; want %d", len(back.Paths), err, len(c.Paths)+1)
	}

	if err := unix.Mkfifo(filepath.Join(p.Checkout, "pkg0", ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan Changes)
	go func() {
		c, _ := RecordChanges(state, p, began, nil, nil, nil)
		done <- c
	}()
	select {
	case c = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RecordChanges waits on a FIFO .gitignore")
	}
	if len(c.Incomplete) != 1 || !strings.Contains(c.Incomplete[0], "pkg0/.gitignore is not a regular file") {
		t.Errorf("with a FIFO .gitignore, incomplete: %q", c.Incomplete)
	}
}

// TestRecordChangesHostRun: of the ignored files the session made, or
// that were there at the start and it changed, those the host runs are
// named (an executable, a script, a makefile, a virtualenv's pyvenv.cfg
// and anything in its bin/: make runs a target the session made as
// readily as one it changed); not what node_modules holds (the exit
// audit judges it), nor a plain data file.
func TestRecordChangesHostRun(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("ign/\n.venv/\nnode_modules/\nconda/\n"), 0o644)
	write := func(rel, content string, mode os.FileMode) {
		path := filepath.Join(p.Checkout, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, mode)
	}
	start := map[string]os.FileMode{
		"ign/tool": 0o755, "ign/run.sh": 0o644, "ign/GNUmakefile": 0o644, "ign/data.txt": 0o644, "ign/libx.so.1": 0o644,
		"ign/database.yml": 0o644,
		".venv/pyvenv.cfg": 0o644, ".venv/bin/activate": 0o644, "node_modules/.bin/x": 0o755,
		"conda/conda-meta/history": 0o644,
	}
	for rel, mode := range start {
		write(rel, "start\n", mode)
	}
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	for rel, mode := range start {
		content := "changed\n"
		switch rel {
		case "ign/run.sh":
			content = "#!/bin/sh\n"
		case "ign/libx.so.1":
			content = "\x7fELF\x02\x01\x01"
		}
		write(rel, content, mode)
	}
	write("ign/new-tool", "new\n", 0o755)
	write(".venv/bin/new-runner", "#!/bin/sh\n", 0o755)
	// What its tools read from the prefix (IPython's exec_lines).
	os.MkdirAll(filepath.Join(p.Checkout, ".venv/etc/ipython"), 0o755)
	write(".venv/etc/ipython/ipython_config.json", "{}\n", 0o644)
	// A conda environment's, which its Jupyter starts; not its packages.
	write("conda/share/jupyter/kernels/k/kernel.json", "{}\n", 0o644)
	write("conda/lib/python3.12/site-packages/m/data.json", "{}\n", 0o644)
	// A vendored gem's gemspec, which Bundler evaluates.
	write("ign/tool.gemspec", "Gem::Specification.new\n", 0o644)
	// Terraform's overrides, which terraform plan merges over the rest.
	write("ign/local_override.tf", "output \"a\" {}\n", 0o644)
	write("ign/ci_override.tf.json", "{}\n", 0o644)
	// What Rails and others read through ERB.
	write("ign/settings.YAML", "a: 1\n", 0o644)
	write("ign/page.html.erb", "<%= 1 %>\n", 0o644)
	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, rel := range []string{".venv/bin/activate", ".venv/bin/new-runner", ".venv/etc/ipython/ipython_config.json", ".venv/pyvenv.cfg", "conda/conda-meta/history", "conda/share/jupyter/kernels/k/kernel.json", "ign/GNUmakefile", "ign/ci_override.tf.json", "ign/database.yml", "ign/libx.so.1", "ign/local_override.tf", "ign/new-tool", "ign/page.html.erb", "ign/run.sh", "ign/settings.YAML", "ign/tool", "ign/tool.gemspec"} {
		want = append(want, filepath.Join(p.Checkout, rel))
	}
	slices.Sort(c.HostRun)
	if !slices.Equal(c.HostRun, want) {
		t.Errorf("host-run: %q, want %q", c.HostRun, want)
	}
}

// TestRecordChangesHostRunIgnoreUnknown: where the session made a
// .gitignore that is no file, whether git ignores what it made is not
// known, and each is taken for ignored and judged whole, by its extension
// too: a FIFO .gitignore must not pass an ignored script the host's python
// imports.
func TestRecordChangesHostRunIgnoreUnknown(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	if err := unix.Mkfifo(filepath.Join(p.Checkout, ".gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p.Checkout, "helper.py"), []byte("import os\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "data.txt"), []byte("x\n"), 0o644)
	c, _ := RecordChanges(state, p, began, nil, nil, nil)
	if want := []string{filepath.Join(p.Checkout, "helper.py")}; !slices.Equal(c.HostRun, want) {
		t.Errorf("host-run %q, want %q", c.HostRun, want)
	}
}

// BenchmarkRecordChanges: what a session's end adds to record its
// changes, on 60,000 tracked files and 20,000 ignored ones (an installed
// tree), nothing changed.
func BenchmarkRecordChanges(b *testing.B) {
	p := repo(b, 3000, 20)
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("deps/\n"), 0o644)
	for d := range 1000 {
		dir := filepath.Join(p.Checkout, "deps", fmt.Sprintf("d%d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", f)), nil, 0o644)
		}
	}
	state := b.TempDir()
	since, err := Mark(state, p.Root)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		b.Fatal(err)
	}
	began := time.Now().Add(time.Hour)
	for b.Loop() {
		if _, err := RecordChanges(state, p, began, nil, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordChangesWithoutSnapshot: a session whose start's snapshot was
// never written (stopped when it ended first) leaves nothing that tells
// what it changed from what it made: every ignored executable or script
// it wrote is named, and a tracked one, which git shows, is not; every
// other ignored file it wrote is listed, whole (a makefile's include by
// a name the audit cannot spell takes each: a session that ended before
// its snapshot hid its main.dep there).
func TestRecordChangesWithoutSnapshot(t *testing.T) {
	p := repo(t, 1, 1)
	trustNoCtime(t, p)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("ign/\n"), 0o644)
	since := after(t, state, p.Checkout)
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Take(stopped, state, p, time.Now(), since, nil, false); err == nil {
		t.Fatal("a stopped snapshot was written")
	}
	began := after(t, state, p.Checkout)
	os.Mkdir(filepath.Join(p.Checkout, "ign"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "ign", "tool"), []byte("x\n"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "ign", "main.dep"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "pkg0", "f0.go"), []byte("#!/bin/sh\n"), 0o755)
	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if want := []PathChange{{Path: "ign/main.dep", Change: "changed", Ignored: true}}; !slices.Equal(c.Paths, want) || c.IgnoredPartial {
		t.Errorf("paths %v (partial %v), want %v", c.Paths, c.IgnoredPartial, want)
	}
	// The exit says nothing of this routine case; --changes does.
	if !errors.Is(err, ErrNoStartSnapshot) {
		t.Errorf("without a snapshot: %v, want ErrNoStartSnapshot", err)
	}
	if want := []string{filepath.Join(p.Checkout, "ign", "tool")}; !slices.Equal(c.HostRun, want) {
		t.Errorf("host-run: %q, want %q", c.HostRun, want)
	}
	// Of those git shows, the exit takes the untracked for findings.
	if want := []string{filepath.Join(p.Checkout, "pkg0", "f0.go")}; !slices.Equal(c.ChangedRun, want) {
		t.Errorf("changed, host-run: %q, want %q", c.ChangedRun, want)
	}
}

// TestRecordChangesFirstWithoutSnapshot: a project's first session that
// ended before its snapshot began (no store yet) still asks git what it
// ignores: a tracked source the session changed, which git diff shows, is
// not taken for ignored and moved aside.
func TestRecordChangesFirstWithoutSnapshot(t *testing.T) {
	p := repo(t, 1, 1)
	trustNoCtime(t, p)
	state := t.TempDir()
	began := after(t, state, p.Checkout)
	os.WriteFile(filepath.Join(p.Checkout, "pkg0", "f0.go"), []byte("package p0 // changed\n"), 0o644)
	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if !errors.Is(err, ErrNoStartSnapshot) {
		t.Errorf("without a snapshot: %v, want ErrNoStartSnapshot", err)
	}
	if len(c.HostRun) != 0 {
		t.Errorf("host-run: %q, want none", c.HostRun)
	}
	if want := []string{filepath.Join(p.Checkout, "pkg0", "f0.go")}; !slices.Equal(c.ChangedRun, want) {
		t.Errorf("changed, host-run: %q, want %q", c.ChangedRun, want)
	}
}

// TestFirstPathsStopsPastLimit: the start's list of ignored files keeps
// the first paths as git writes them, whatever its writes' sizes, and is
// full only once git writes past them: past their number, or past their
// bytes (a path of 4 KiB, many times), keeping only whole paths.
func TestFirstPathsStopsPastLimit(t *testing.T) {
	exact := &firstPaths{limit: 2, size: 6}
	for _, w := range []string{"a/x", "\x00b", "\x00"} {
		if _, err := exact.Write([]byte(w)); err != nil {
			t.Fatalf("write %q: %v", w, err)
		}
	}
	if exact.full || exact.b.String() != "a/x\x00b\x00" {
		t.Errorf("two paths of two: full %v, %q", exact.full, exact.b.String())
	}
	past := &firstPaths{limit: 2, size: 1 << 20}
	if n, err := past.Write([]byte("a\x00b\x00c\x00")); err == nil || n != 4 || !past.full || past.b.String() != "a\x00b\x00" {
		t.Errorf("three paths of two: wrote %d, %v, full %v, %q", n, err, past.full, past.b.String())
	}
	long := strings.Repeat("d/", 2047) + "f\x00"
	big := &firstPaths{limit: 200_000, size: 64 << 10}
	written := 0
	for range 200_000 {
		n, err := big.Write([]byte(long[:1000]))
		written += n
		if err != nil {
			break
		}
		n, err = big.Write([]byte(long[1000:]))
		written += n
		if err != nil {
			break
		}
	}
	if !big.full || big.n != 16 || big.b.Len() != 16*len(long) || written != big.b.Len() {
		t.Errorf("4 KiB paths into 64 KiB: full %v, %d paths kept in %d bytes, %d written", big.full, big.n, big.b.Len(), written)
	}
}

// TestRecordChangesNotReadInFull: the end's walk reads every entry, and
// a directory it cannot read in full is no hiding place. The session
// changes an ignored executable that was there at the start (a/ign/tool)
// and, in a directory the walk reads before it, makes more files than
// the walk keeps; it also makes a directory too deep to read. Each
// directory holding a change the walk could not keep, and the one too
// deep, is taken whole for what the host runs and named; a file there at
// the start in one of them is not taken for removed. (Before, the walk
// stopped past 256 MiB of the paths it read, leaving a/ign unread and
// ign/tool no finding, and the exit said nothing.)
func TestRecordChangesNotReadInFull(t *testing.T) {
	defer func(n int64) { keptLimit = n }(keptLimit)
	keptLimit = 100
	// One reader: which directory meets the bound first is the order
	// of the walk, which helpers side by side would make their own.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p := repo(t, 1, 1)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("a/\n"), 0o644)
	a := filepath.Join(p.Checkout, "a")
	os.MkdirAll(filepath.Join(a, "ign"), 0o755)
	tool := filepath.Join(a, "ign", "tool")
	os.WriteFile(tool, []byte("#!/bin/sh\necho ok\n"), 0o755)
	os.WriteFile(filepath.Join(a, "ign", "data"), []byte("start\n"), 0o644)
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	// A name the walk reads before ign (the directory's order is its
	// hash's).
	spam := ""
	for i := 0; spam == ""; i++ {
		name := fmt.Sprintf("s%d", i)
		os.Mkdir(filepath.Join(a, name), 0o755)
		d, err := os.Open(a)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		if slices.Index(names, name) < slices.Index(names, "ign") {
			spam = name
		} else {
			os.Remove(filepath.Join(a, name))
		}
	}
	for i := range 200 {
		os.WriteFile(filepath.Join(a, spam, fmt.Sprintf("f%03d", i)), nil, 0o644)
	}
	deep := filepath.Join(a, "deep")
	for range 5 {
		deep = filepath.Join(deep, strings.Repeat("d", 240))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tool, []byte("#!/bin/sh\necho planted\n"), 0o755)

	c, err := RecordChanges(state, p, began, nil, nil, nil)
	// The first directory past 1024 bytes is.
	for _, dir := range []string{filepath.Join(a, "ign"), filepath.Join(a, spam), deep} {
		if !slices.Contains(c.HostRun, dir) {
			t.Errorf("%s, not read in full, is not taken whole: host-run %q", dir, c.HostRun)
		}
		if rel, _ := filepath.Rel(p.Checkout, dir); err == nil || !strings.Contains(err.Error(), rel) {
			t.Errorf("the error does not name %s: %v", rel, err)
		}
	}
	if slices.ContainsFunc(c.HostRun, func(p string) bool { return strings.HasPrefix(p, filepath.Join(a, spam)+"/") }) {
		t.Errorf("what a directory taken whole holds is named too: %q", c.HostRun)
	}
	if slices.ContainsFunc(c.Paths, func(pc PathChange) bool { return pc.Change == "removed" }) {
		t.Errorf("a file in a directory not read in full is taken for removed: %v", c.Paths)
	}
}

// TestRecordChangesGoneDuringWalk: a file listed in a directory and gone
// when the walk looks at it is removed, whether the directory's status
// changed during the session (its names are kept) or not (they are the
// start's); before, the second was taken for there still.
func TestRecordChangesGoneDuringWalk(t *testing.T) {
	p := repo(t, 2, 2)
	trustNoCtime(t, p)
	state := t.TempDir()
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	// pkg1's status changes; pkg0's does not.
	os.WriteFile(filepath.Join(p.Checkout, "pkg1", "new.go"), nil, 0o644)
	defer func() { statAt = dirent.StatAt }()
	statAt = func(fd int, name []byte, st *unix.Stat_t, flags int) error {
		if string(name) == "f1.go" {
			var dir [256]byte
			n, _ := unix.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd), dir[:])
			os.Remove(filepath.Join(string(dir[:n]), string(name)))
		}
		return dirent.StatAt(fd, name, st, flags)
	}
	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"pkg0/f1.go", "pkg1/f1.go"} {
		if !slices.Contains(c.Paths, PathChange{Path: path, Change: "removed"}) {
			t.Errorf("%s, gone during the walk, is not removed: %v", path, c.Paths)
		}
	}
}

// TestTakeWaitingIgnore: a .gitignore that is a FIFO (an enclosing
// session's), on which git would wait forever listing the checkout's
// ignored files while the sandbox's start waits for the list, is found
// while git lists: git is stopped, the sandbox may start, no list is
// kept, and the snapshot, which git add would hold as long, stops,
// naming it. So is the user's core.excludesFile when it is a FIFO, also
// where a file the user's configuration includes names it.
func TestTakeWaitingIgnore(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, c := range []struct {
		name string
		fifo func(p string) string
	}{
		{"a .gitignore below the top", func(p string) string { return filepath.Join(p, "pkg1", ".gitignore") }},
		{"core.excludesFile", func(string) string {
			os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/ignore-rules\n"), 0o644)
			return filepath.Join(home, "ignore-rules")
		}},
		{"core.excludesFile in an included file", func(string) string {
			os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[include]\n\tpath = ~/.gitconfig.local\n"), 0o644)
			os.WriteFile(filepath.Join(home, ".gitconfig.local"), []byte("[core]\n\texcludesFile = ~/included-rules\n"), 0o644)
			return filepath.Join(home, "included-rules")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := repo(t, 2, 2)
			state := t.TempDir()
			fifo := c.fifo(p.Checkout)
			if err := unix.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(fifo)
			gate := NewListGate(nil)
			done := make(chan error, 1)
			go func() {
				_, err := Take(WithListGate(context.Background(), gate), state, p, time.Now(), time.Now(), nil, false)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), fifo) {
					t.Errorf("Take: %v, want it to name %s", err, fifo)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Take waits on a FIFO among git's ignore rules")
			}
			select {
			case <-gate.listed:
			default:
				t.Error("the sandbox's start still waits")
			}
			if lists, _ := filepath.Glob(filepath.Join(storeOf(state, p.Root).dir, "*.ignored")); len(lists) > 0 {
				t.Errorf("a list of ignored files was kept: %q", lists)
			}
		})
	}
}

// TestStalled: a git asleep (as on a FIFO; sleep stands in) is taken for
// stalled, and the look for what holds it starts; none is while no git
// runs, nor once the list ended, nor one that uses no processor time
// without sleeping, as one starved on a loaded machine (a stopped one
// stands in).
func TestStalled(t *testing.T) {
	asleep := exec.Command("sleep", "60")
	if err := asleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer asleep.Wait()
	defer asleep.Process.Kill()
	var running atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 5*stallEvery)
	if stalled(ctx, &running) {
		t.Error("taken for stalled while no git runs")
	}
	cancel()
	running.Store(int64(asleep.Process.Pid))
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !stalled(ctx, &running) {
		t.Error("a git asleep is not taken for stalled")
	}
	ended, end := context.WithCancel(context.Background())
	end()
	if stalled(ended, &running) {
		t.Error("taken for stalled once the list ended")
	}
	asleep.Process.Signal(syscall.SIGSTOP)
	ctx, cancel = context.WithTimeout(context.Background(), 5*stallEvery)
	defer cancel()
	if stalled(ctx, &running) {
		t.Error("a git that is not asleep is taken for stalled")
	}
}

// BenchmarkListIgnored: what the sandbox's start waits for, the list of
// ignored files (with the look for a FIFO among the ignore rules beside
// it), on 60,000 tracked files and 20,000 ignored ones.
func BenchmarkListIgnored(b *testing.B) {
	p := repo(b, 3000, 20)
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("deps/\n"), 0o644)
	for d := range 1000 {
		dir := filepath.Join(p.Checkout, "deps", fmt.Sprintf("d%d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", f)), nil, 0o644)
		}
	}
	st := storeOf(b.TempDir(), p.Root)
	if err := st.init(p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := st.listIgnored(context.Background(), p.Checkout, p.GitDir, filepath.Join(st.dir, "index"), "id", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWalkCheckoutStatusNotRead: a directory whose names are read but
// whose entries' statuses cannot be (its search permission taken away:
// EACCES, which the tests, as root, are not given) is not read in full,
// and taken whole; before, its entries were passed over as unchanged.
func TestWalkCheckoutStatusNotRead(t *testing.T) {
	checkout := t.TempDir()
	os.MkdirAll(filepath.Join(checkout, "build", "sub"), 0o755)
	os.WriteFile(filepath.Join(checkout, "build", "run.sh"), nil, 0o755)
	since := after(t, t.TempDir(), checkout)
	os.WriteFile(filepath.Join(checkout, "build", "run.sh"), []byte("planted\n"), 0o755)
	defer func() { statAt = dirent.StatAt }()
	statAt = func(fd int, name []byte, st *unix.Stat_t, flags int) error {
		if string(name) == "run.sh" {
			return unix.EACCES
		}
		return dirent.StatAt(fd, name, st, flags)
	}
	now, err := walkCheckout(checkout, nil, since, nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "build") {
		t.Errorf("the walk's error does not name build: %v", err)
	}
	if got := now.unreadChanged(checkout); !slices.Equal(got, []string{filepath.Join(checkout, "build")}) {
		t.Errorf("taken whole: %q, want build", got)
	}
}

// TestWalkCheckoutBelowOneDirectory: where everything lies below one
// directory (a node_modules), read by helpers side by side, the walk
// finds each file written after the start, at every depth, and no other;
// and reads each directory.
func TestWalkCheckoutBelowOneDirectory(t *testing.T) {
	checkout := t.TempDir()
	var dirs []string
	for i := range 40 {
		dir := filepath.Join(checkout, "node_modules", fmt.Sprintf("p%d", i%4), fmt.Sprintf("q%d", i))
		for depth := range i % 5 {
			dir = filepath.Join(dir, fmt.Sprintf("r%d", depth))
		}
		dirs = append(dirs, dir)
		os.MkdirAll(dir, 0o755)
		for f := range 10 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", f)), nil, 0o644)
		}
	}
	since := after(t, t.TempDir(), checkout)
	want := map[string]bool{}
	for i, dir := range dirs {
		if i%3 == 0 {
			rel, _ := filepath.Rel(checkout, filepath.Join(dir, "f7.js"))
			os.WriteFile(filepath.Join(checkout, rel), []byte("planted\n"), 0o644)
			want[rel] = true
		}
	}
	for range 3 {
		now, err := walkCheckout(checkout, nil, since, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for path := range now.recent {
			got[path] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("the walk found %v changed, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
		for _, dir := range dirs {
			if rel, _ := filepath.Rel(checkout, dir); !slices.Contains(slices.Collect(maps.Keys(now.dirs)), rel) {
				t.Errorf("%s is not among the directories read", rel)
			}
		}
	}
}

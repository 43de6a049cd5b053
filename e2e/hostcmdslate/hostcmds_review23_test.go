package hostcmdslate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview23KilledCopyingLinks: a launch makes each file of a
// package that pnpm linked from its store a file of its own before the
// sandbox starts (a minute for a large node_modules, said first), and
// finds a package to copy by its package.json being a link. The fault: a
// kill -9 of the supervisor (a Ctrl-C there does the same) while it
// copies a large file of the package that sorts after package.json:
// package.json was already copied, so no later launch looked at the
// package again, and the files after it stayed the store's. Host-side
// proof: the next session writes the package's last file, and the
// store's file is as it was; the part of a copy the killed launch left
// beside it (up to the file's size, kept for good) is removed by the next
// launch, which says so.
func TestReplayReview23KilledCopyingLinks(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	store := filepath.Join(h.Home, ".local", "share", "pnpm", "store")
	pkg := filepath.Join(proj, "node_modules", "left-pad")
	h.Write(filepath.Join(store, "index"), "module.exports = 1\n")
	h.Write(filepath.Join(store, "package"), `{"name":"left-pad"}`+"\n")
	h.Write(filepath.Join(store, "last"), "the store's\n")
	// Large enough that its copy is seen under way.
	big, err := os.Create(filepath.Join(store, "big"))
	harness.Must(t, err)
	chunk := bytes.Repeat([]byte{'x'}, 1<<20)
	for range 768 {
		_, err := big.Write(chunk)
		harness.Must(t, err)
	}
	harness.Must(t, big.Close())
	harness.Must(t, os.MkdirAll(pkg, 0o755))
	for from, to := range map[string]string{"index": "index.js", "package": "package.json", "big": "z-big.bin", "last": "zz.js"} {
		harness.Must(t, os.Link(filepath.Join(store, from), filepath.Join(pkg, to)))
	}
	h.Chown()

	s := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		// The large file's copy: the small ones' are over at once.
		copying, _ := filepath.Glob(filepath.Join(pkg, ".claudebox-unlink-*"))
		if len(copying) > 0 {
			if fi, err := os.Stat(copying[0]); err == nil && fi.Size() > 1<<20 {
				break
			}
		}
		if len(exited) > 0 || time.Now().After(deadline) {
			t.Fatal("the launch never copied the package's files")
		}
	}
	s.Process.Signal(syscall.SIGKILL)
	<-exited
	harness.WaitFor(t, "the session to end", func() bool { return !instance.InUse(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)) })

	left, _ := filepath.Glob(filepath.Join(pkg, ".claudebox-unlink-*"))
	if len(left) == 0 {
		t.Fatal("the killed launch left no part of a copy")
	}
	said := h.InsideStderr(proj, "ls -A node_modules/left-pad > seen; echo 'require(\"child_process\").exec(\"planted\")' >> node_modules/left-pad/zz.js")
	if b, _ := os.ReadFile(filepath.Join(store, "last")); string(b) != "the store's\n" {
		t.Errorf("the next session wrote the store's file through the package's link: %q", b)
	}
	// The exit audit moves the package the session wrote aside: the
	// session says what its launch left there.
	if seen, _ := os.ReadFile(filepath.Join(proj, "seen")); strings.Contains(string(seen), ".claudebox-unlink-") {
		t.Errorf("the killed launch's part of a copy outlived the next launch:\n%s", seen)
	}
	for _, l := range left {
		if !strings.Contains(said, "claudebox: removed "+l+", a copy left by a launch stopped") {
			t.Errorf("the next launch did not say it removed %s:\n%s", l, said)
		}
	}
}

// TestReplayReview23UndoNestedRepository: a project holding a nested
// repository (a vendored clone), whose .git gets the launch's stand-ins.
// Every launch after the first said "this session cannot be undone: git
// add: ... is in submodule 'sub'" and kept no snapshot, so --undo put
// back only what the first session changed. Proof: the second session
// is undone. Each session writes once its snapshot is written (a second
// of sleep before, under load 20, let the session end first).
func TestReplayReview23UndoNestedRepository(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.GitRepo(filepath.Join(proj, "sub"))
	snapshots := func() int {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found)
	}
	session := func(script string) string {
		taken := snapshots()
		var said harness.Output
		s := h.Command(proj, nil, "claudebox", "--shell", "-c", "while [ ! -e go ]; do sleep 0.05; done; rm -f go; "+script)
		s.Stderr = &said
		harness.Must(t, s.Start())
		defer s.Process.Kill()
		harness.WaitFor(t, "the session's undo snapshot", func() bool {
			return snapshots() > taken || strings.Contains(said.String(), "cannot be undone")
		})
		h.Write(filepath.Join(proj, "go"), "")
		harness.Must(t, s.Wait())
		return said.String()
	}
	session("echo first >> README")
	if said := session("echo second >> README"); strings.Contains(said, "cannot be undone") {
		t.Errorf("the second session:\n%s", said)
	}
	h.Run(proj, nil, "claudebox", "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != "hello\nfirst\n" {
		t.Errorf("after --undo, README holds %q, want what the second session found", b)
	}
}

// TestReplayReview23SnapshotFillsStateDisk: the launch's undo snapshot
// copies the project's new files into ~/.claudebox. The attack, from
// inside: 30 MiB of new files in the project, with ~/.claudebox on a
// disk of 16 MiB (a small tmpfs). The next launch's snapshot filled that
// disk, kept what it had copied, and every launch after it refused as
// the disk was full, in every project (--gc freed nothing). Proof: the
// launches after the session start, and say nothing of a full disk (a
// disk this small is said to be nearly full, the snapshot keeping no
// file's content there).
func TestReplayReview23SnapshotFillsStateDisk(t *testing.T) {
	h, proj, _ := harness.SmallStateDisk(t)
	h.Inside(proj, nil, "for i in $(seq 30); do head -c 1048576 /dev/urandom > new$i.bin; done")
	for i := range 2 {
		var stderr strings.Builder
		c := h.Command(proj, nil, "claudebox", "--shell", "-c", "sleep 1")
		c.Stderr = &stderr
		if err := c.Run(); err != nil || strings.Contains(stderr.String(), "is full") || strings.Contains(stderr.String(), "cannot be undone") {
			t.Errorf("launch %d after the session: %v\n%s", i+1, err, stderr.String())
		}
	}
}

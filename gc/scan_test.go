package gc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/unprivileged"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// makeInstance makes the instance of root in state as a launch leaves it,
// with one session transcript of its root, and returns its directory.
func makeInstance(t testing.TB, state, root string) string {
	t.Helper()
	dir := instance.Dir(state, root)
	sessions := filepath.Join(dir, ClaudeProjectDir(root))
	must(t, os.MkdirAll(sessions, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, instance.RootFile), []byte(root+"\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(sessions, "s1.jsonl"), []byte(`{"cwd":"`+root+`"}`+"\n"), 0o600))
	return dir
}

// withinTime fails the test if f does not return soon: a FIFO the sandbox
// left must not hang a host-side command.
func withinTime(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s hangs", what)
	}
}

// TestScanHostile: every entry of the projects directory the sandbox could
// have shaped is skipped with its reason, never followed, never hung on.
func TestScanHostile(t *testing.T) {
	const hash = "00000000000000aa"
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "root"), []byte("/gone/elsewhere\n"), 0o600))
	for _, tc := range []struct {
		name   string
		make   func(projects string) // makes projects/<hash> (or other entries)
		reason string                // of the one skipped entry
	}{
		{"symlink to an instance", func(p string) {
			other := makeInstance(t, outside, "/gone/linked")
			must(t, os.Symlink(other, filepath.Join(p, instance.Hash("/gone/linked"))))
		}, "is a symlink, not followed"},
		{"not a hash", func(p string) { must(t, os.Mkdir(filepath.Join(p, "notes"), 0o700)) }, "is not an instance directory"},
		{"upper-case hash", func(p string) { must(t, os.Mkdir(filepath.Join(p, "00000000000000AA"), 0o700)) }, "is not an instance directory"},
		{"file named as a hash", func(p string) { must(t, os.WriteFile(filepath.Join(p, hash), nil, 0o600)) }, "is not an instance directory"},
		{"no project-root", func(p string) { must(t, os.Mkdir(filepath.Join(p, hash), 0o700)) }, "has no project-root"},
		{"empty", rootFile(hash, ""), "project-root is empty"},
		{"only a newline", rootFile(hash, "\n"), "project-root is empty"},
		{"relative", rootFile(hash, "some/project\n"), "project-root is not an absolute path"},
		{"two lines", rootFile(hash, "/one\n/two\n"), "project-root is not one line"},
		{"NUL", rootFile(hash, "/one\x00/two\n"), "project-root is not one line"},
		{"other hash", rootFile(hash, "/gone/project\n"), "project-root names /gone/project, whose instance is elsewhere"},
		{"directory", func(p string) { must(t, os.MkdirAll(filepath.Join(p, hash, instance.RootFile), 0o700)) }, "project-root is not a regular file"},
		{"FIFO", func(p string) {
			must(t, os.Mkdir(filepath.Join(p, hash), 0o700))
			must(t, unix.Mkfifo(filepath.Join(p, hash, instance.RootFile), 0o600))
		}, "project-root is not a regular file"},
		{"symlink to a root", func(p string) {
			must(t, os.Mkdir(filepath.Join(p, hash), 0o700))
			must(t, os.Symlink(filepath.Join(outside, "root"), filepath.Join(p, hash, instance.RootFile)))
		}, "project-root is not a regular file"},
		{"huge sparse", func(p string) {
			must(t, os.Mkdir(filepath.Join(p, hash), 0o700))
			f, err := os.Create(filepath.Join(p, hash, instance.RootFile))
			must(t, err)
			must(t, f.Truncate(1<<40))
			f.Close()
		}, "project-root is unreadable: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			projects := ProjectsDir(state)
			must(t, os.Mkdir(projects, 0o700))
			tc.make(projects)
			var insts []Instance
			var skipped []Skipped
			withinTime(t, "Scan", func() {
				var err error
				insts, skipped, _, err = Scan(state, Mounts{})
				if err != nil {
					t.Error(err)
				}
			})
			if len(insts) != 0 || len(skipped) != 1 || !strings.HasPrefix(skipped[0].Reason, tc.reason) {
				t.Fatalf("got %+v, skipped %+v; want one skipped: %s", insts, skipped, tc.reason)
			}
		})
	}
}

func rootFile(hash, content string) func(string) {
	return func(projects string) {
		if err := os.Mkdir(filepath.Join(projects, hash), 0o700); err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(projects, hash, instance.RootFile), []byte(content), 0o600); err != nil {
			panic(err)
		}
	}
}

// TestScanUnreadable: an instance the sandbox made mode 000 is skipped as
// unreadable (for the chmod hint that gives it back), also as root.
func TestScanUnreadable(t *testing.T) {
	state := t.TempDir()
	dir := makeInstance(t, state, "/gone/project")
	must(t, os.Chmod(dir, 0))
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	unprivileged.Do(t, func() {
		insts, skipped, _, err := Scan(state, Mounts{})
		if err != nil || len(insts) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "is not readable") || skipped[0].Cause != Unreadable {
			t.Errorf("got %+v, %+v, %v", insts, skipped, err)
		}
	})
}

// TestScanStates: a root that exists is live; one that does not is gone,
// unless its filesystem is not mounted now; the usage of each instance is
// counted without following the sandbox's symlinks.
func TestScanStates(t *testing.T) {
	state := t.TempDir()
	live := t.TempDir()
	file := filepath.Join(t.TempDir(), "a-file")
	must(t, os.WriteFile(file, nil, 0o600))
	roots := map[string]State{
		live:                        Live,
		"/nonexistent/claudebox/p":  Gone,
		file + "/below-a-file":      Gone, // ENOTDIR
		"/srv/share/p":              Unmounted,
		"/mnt/usb/p":                Unmounted,
		"/home/someone/adhoc-mnt/p": Unmounted, // its recorded mount point is away
	}
	for root := range roots {
		makeInstance(t, state, root)
	}
	m := Mounts{mounted: []string{"/", "/home/someone/adhoc-mnt"}, expected: []string{"/", "/srv/share"}}
	must(t, RecordHolder(state, "/home/someone/adhoc-mnt/p", m))
	m.mounted = []string{"/"}

	// The sandbox links a big tree and a transcript of elsewhere into the
	// live instance: neither counts.
	liveDir := instance.Dir(state, live)
	big := t.TempDir()
	must(t, os.WriteFile(filepath.Join(big, "big.jsonl"), make([]byte, 1<<20), 0o600))
	must(t, os.Symlink(big, filepath.Join(liveDir, "linked")))
	must(t, os.Symlink(filepath.Join(big, "big.jsonl"), filepath.Join(liveDir, ClaudeProjectDir(live), "s2.jsonl")))
	must(t, os.WriteFile(filepath.Join(liveDir, ClaudeProjectDir(live), "s3.jsonl"), []byte("{}\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(liveDir, "notes.jsonl"), nil, 0o600)) // not in a project directory
	newest := time.Date(2100, 1, 2, 3, 4, 5, 0, time.UTC)
	must(t, os.Chtimes(filepath.Join(liveDir, "notes.jsonl"), newest, newest))

	insts, skipped, trash, err := Scan(state, m)
	if err != nil || len(skipped) != 0 || len(trash) != 0 {
		t.Fatal(err, skipped, trash)
	}
	if len(insts) != len(roots) {
		t.Fatalf("got %d instances, want %d", len(insts), len(roots))
	}
	for _, in := range insts {
		if in.State != roots[in.Root] || in.Hash != instance.Hash(in.Root) || in.Dir != instance.Dir(state, in.Root) || in.InUse {
			t.Errorf("%s: %+v, want %s", in.Root, in, roots[in.Root])
		}
		if in.Root != live {
			continue
		}
		if in.Transcripts != 2 {
			t.Errorf("live: %d sessions, want 2 (a linked transcript is not one)", in.Transcripts)
		}
		if in.Bytes >= 1<<20 {
			t.Errorf("live: %d bytes: the linked tree was counted", in.Bytes)
		}
		if !in.LastUsed.Equal(newest) {
			t.Errorf("live: last used %v, want the newest modification", in.LastUsed)
		}
	}
}

// TestScanMissing: no projects directory yet is no instance, not an error.
func TestScanMissing(t *testing.T) {
	insts, skipped, trash, err := Scan(t.TempDir(), Mounts{})
	if err != nil || insts != nil || skipped != nil || trash != nil {
		t.Errorf("%v %v %v %v", insts, skipped, trash, err)
	}
	file := filepath.Join(t.TempDir(), "state")
	must(t, os.WriteFile(file, nil, 0o600))
	if _, _, _, err := Scan(file, Mounts{}); err == nil {
		t.Error("a state directory that is a file: no error")
	}
}

func TestSort(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	insts := []Instance{
		{Hash: "l2", State: Live, LastUsed: t0.Add(2)},
		{Hash: "u1", State: Unmounted, LastUsed: t0.Add(1)},
		{Hash: "l1", State: Live, LastUsed: t0.Add(1)},
		{Hash: "gb", State: Gone, LastUsed: t0.Add(5)},
		{Hash: "ga", State: Gone, LastUsed: t0.Add(5)},
		{Hash: "g0", State: Gone, LastUsed: t0},
	}
	Sort(insts)
	var got []string
	for _, in := range insts {
		got = append(got, in.Hash)
	}
	if want := "g0 ga gb u1 l1 l2"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

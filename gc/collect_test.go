package gc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/unprivileged"
)

type gcRun struct {
	sum     Summary
	events  []string // kind and directory
	skipped []string // directory and reason
}

func collect(t *testing.T, state string, dryRun bool) gcRun {
	t.Helper()
	var r gcRun
	var err error
	r.sum, err = Collect(state, Mounts{}, dryRun,
		func(e Event) { r.events = append(r.events, e.Kind+" "+e.Instance.Dir) },
		func(s Skipped) { r.skipped = append(r.skipped, s.Dir+": "+s.Reason) })
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(r.events)
	return r
}

// snapshot lists every path under dir with its type, mode and content, as
// far as it can read them.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	must(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			out = append(out, p+" "+err.Error())
			return nil
		}
		fi, err := d.Info()
		must(t, err)
		line := p + " " + fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			line += " " + string(b) + fmt.Sprint(err)
		}
		out = append(out, line)
		return nil
	}))
	return out
}

// TestCollect: gone instances are removed whatever the sandbox left in
// them, without following its links; live ones, one a session holds, an
// interrupted removal's leftover and malformed entries each get their due;
// a dry run changes nothing.
func TestCollect(t *testing.T) {
	state := t.TempDir()
	projects := ProjectsDir(state)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("mine"), 0o600))

	live := makeInstance(t, state, t.TempDir())
	gone := makeInstance(t, state, "/nonexistent/claudebox/gone")
	// What a hostile session leaves: links out, a FIFO, mode-000 directories.
	must(t, os.Symlink(outside, filepath.Join(gone, "out")))
	must(t, os.Symlink(filepath.Join(outside, "keep"), filepath.Join(gone, "keep")))
	must(t, unix.Mkfifo(filepath.Join(gone, "fifo"), 0o600))
	must(t, os.MkdirAll(filepath.Join(gone, "locked", "deeper"), 0o700))
	must(t, os.WriteFile(filepath.Join(gone, "locked", "deeper", "f"), []byte("x"), 0))
	must(t, os.Chmod(filepath.Join(gone, "locked", "deeper"), 0))
	must(t, os.Chmod(filepath.Join(gone, "locked"), 0))
	held := makeInstance(t, state, "/nonexistent/claudebox/held")
	lock, err := instance.OpenLock(held)
	must(t, err)
	defer lock.Close()
	must(t, instance.LockShared(lock))
	trash := filepath.Join(projects, ".gc-00000000deadbeef")
	must(t, os.MkdirAll(filepath.Join(trash, "-half"), 0o700))
	must(t, os.WriteFile(filepath.Join(trash, "-half", "s.jsonl"), []byte("12345"), 0o600))
	must(t, os.Chmod(filepath.Join(trash, "-half"), 0))
	must(t, os.Symlink(outside, filepath.Join(projects, ".gc-0000000000000bad")))
	must(t, os.Mkdir(filepath.Join(projects, "0000000000000001"), 0o700)) // no project-root

	// A placeholder a killed supervisor left for the live instance.
	placeholder := filepath.Join(t.TempDir(), ".envrc")
	must(t, os.WriteFile(placeholder, nil, 0))
	liveLock, err := instance.OpenLock(live)
	must(t, err)
	liveLock.Close()
	must(t, instance.RecordPlaceholders(live, []string{placeholder}))
	// And one the gone instance's killed supervisor left outside its root
	// (in a git directory elsewhere).
	goneStandIn := filepath.Join(t.TempDir(), "config.worktree")
	must(t, os.WriteFile(goneStandIn, nil, 0))
	must(t, instance.RecordPlaceholders(gone, []string{goneStandIn}))
	// Its start record: it would date the first session of a project made
	// anew at the gone one's path.
	goneStart := filepath.Join(state, "live", filepath.Base(gone)+".since")
	must(t, os.WriteFile(goneStart, nil, 0o600))
	// And its last audited session's record, which a record of a project
	// made anew there would build on.
	goneBase := filepath.Join(state, "live", filepath.Base(gone)+".base")
	must(t, os.WriteFile(goneBase, nil, 0o600))

	before, outsideBefore := snapshot(t, state), snapshot(t, outside)
	dry := collect(t, state, true)
	if got := snapshot(t, state); !slices.Equal(got, before) {
		t.Errorf("the dry run changed the state:\n%q\nwant\n%q", got, before)
	}
	for _, p := range []string{placeholder, goneStandIn} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("the dry run swept a placeholder: %v", err)
		}
	}

	wet := collect(t, state, false)
	for _, r := range []gcRun{dry, wet} {
		if r.sum.Removed != 1 || r.sum.Kept != 2 || r.sum.Skipped != 2 || r.sum.Freed < 5 {
			t.Errorf("summary %+v", r.sum)
		}
		if want := []string{"finish " + trash, "keep " + held, "remove " + gone}; !slices.Equal(r.events, want) {
			t.Errorf("events %q, want %q", r.events, want)
		}
		if len(r.skipped) != 2 || !strings.Contains(r.skipped[0]+r.skipped[1], ".gc-0000000000000bad: is a symlink") {
			t.Errorf("skipped %q", r.skipped)
		}
	}
	for _, p := range []string{gone, trash, filepath.Join(projects, ".gc-"+filepath.Base(gone))} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range []string{live, held, filepath.Join(projects, ".gc-0000000000000bad"), filepath.Join(projects, "0000000000000001")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if got := snapshot(t, outside); !slices.Equal(got, outsideBefore) {
		t.Errorf("a link's target changed:\n%q", got)
	}
	if _, err := os.Lstat(placeholder); err == nil {
		t.Error("the idle live instance's placeholder is still there")
	}
	if _, err := os.Lstat(goneStandIn); err == nil {
		t.Error("the gone instance's placeholder is still there")
	}
	if _, err := os.Lstat(goneStart); err == nil {
		t.Error("the gone instance's start record is still there")
	}
	if _, err := os.Lstat(goneBase); err == nil {
		t.Error("the gone instance's last audited record is still there")
	}
}

// TestCollectGoesOn: an instance that cannot be removed is reported, and
// the next is removed all the same.
func TestCollectGoesOn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making another user's directory takes root")
	}
	state := t.TempDir()
	stuck := makeInstance(t, state, "/nonexistent/claudebox/stuck")
	gone := makeInstance(t, state, "/nonexistent/claudebox/gone")
	if filepath.Base(gone) < filepath.Base(stuck) {
		t.Fatal("setup: the stuck instance must come first")
	}
	// A directory of another user's, which claudebox may not empty.
	foreign := filepath.Join(stuck, "foreign")
	must(t, os.Mkdir(foreign, 0o700))
	must(t, os.WriteFile(filepath.Join(foreign, "f"), nil, 0o600))
	must(t, os.Chmod(foreign, 0o500))
	must(t, os.Chown(foreign, 65534, 65534))
	var r gcRun
	unprivileged.Do(t, func() {
		var err error
		r.sum, err = Collect(state, Mounts{}, false,
			func(e Event) { r.events = append(r.events, e.Kind+" "+e.Instance.Dir) },
			func(s Skipped) { r.skipped = append(r.skipped, s.Dir+": "+s.Reason) })
		if err != nil {
			t.Error(err)
		}
	})
	if r.sum.Removed != 1 || r.sum.Skipped != 1 || len(r.skipped) != 1 || !strings.HasPrefix(r.skipped[0], stuck+": cannot remove it: ") {
		t.Errorf("%+v", r)
	}
	if _, err := os.Lstat(gone); err == nil {
		t.Error("the second instance was not removed")
	}
	// What is left is out of the way, for the next run to finish.
	if _, err := os.Lstat(filepath.Join(foreign, "f")); err == nil {
		t.Error("the stuck instance still looks alive")
	}
}

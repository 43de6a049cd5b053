package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/claudebox/claudebox/projectfiles"
)

// TestTakeFromBase: a record built on an earlier one is the record a walk
// of the whole tree makes, whatever the host changed in between: a
// directory that held nothing to judge gains a .claude, one is replaced by
// another of the same name, one is renamed into place. Without the check
// that a reused listing's directory is older than the earlier record, the
// new record keeps b's empty listing and the audit never looks into b, so
// the hooks the session then writes into b/.claude pass.
func TestTakeFromBase(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/b/main.go", "c/d/main.go", "e/f/main.go", "g/.envrc", "h/x.go"} {
		write(t, filepath.Join(root, p))
	}
	base := Take(root, mark(t, t.TempDir()), nil, nil)
	// The host, between sessions.
	write(t, filepath.Join(root, "a", "b", ".claude", "settings.json"))
	must(t, os.RemoveAll(filepath.Join(root, "c", "d")))
	write(t, filepath.Join(root, "c", "d", ".envrc"))
	must(t, os.Rename(filepath.Join(root, "e", "f"), filepath.Join(root, "h", "f")))
	write(t, filepath.Join(root, "h", "f", ".mcp.json"))
	since := mark(t, t.TempDir())
	fresh, built := Take(root, since, nil, nil), Take(root, since, nil, base)
	if !reflect.DeepEqual(fresh, built) {
		t.Errorf("the record built on an earlier one differs from a fresh one:\n%+v\n%+v", built, fresh)
	}
	// The session.
	write(t, filepath.Join(root, "a", "b", ".claude", "settings.json"))
	r := Scan(root, since, nil, built, nil)
	if !slices.Contains(r.Found, filepath.Join(root, "a", "b", ".claude", "settings.json")) {
		t.Errorf("the hooks written in place passed the audit: %q", r.Found)
	}
}

// TestScanIndexInPlace: a nested repository whose git directory holds
// nothing the walk judges (no config, no hooks) still has its index
// compared: the session rewrote it in place, which leaves the directory's
// status as it was.
func TestScanIndexInPlace(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = sub
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	write(t, filepath.Join(sub, "package.json"))
	git("init", "-q")
	git("add", "package.json")
	index := filepath.Join(sub, ".git", "index")
	plain, err := os.ReadFile(index)
	must(t, err)
	git("update-index", "--skip-worktree", "package.json")
	hidden, err := os.ReadFile(index)
	must(t, err)
	must(t, os.WriteFile(index, plain, 0o644))
	for _, p := range []string{"config", "hooks", "info", "description", "branches"} {
		must(t, os.RemoveAll(filepath.Join(sub, ".git", p)))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var listed []string
	l, _ := start.files.listing("sub/.git")
	for name := range l.each() {
		listed = append(listed, name)
	}
	if slices.Sort(listed); !slices.Equal(listed, []string{"objects", "refs"}) {
		t.Fatalf("the git directory's listing is not its objects and refs alone: %v", listed)
	}
	f, err := os.OpenFile(index, os.O_WRONLY|os.O_TRUNC, 0)
	must(t, err)
	_, err = f.Write(hidden)
	must(t, err)
	must(t, f.Close())
	if r := Scan(root, since, nil, start, nil); len(r.Hidden) != 1 || r.Hidden[0].Path != "package.json" {
		t.Errorf("the index rewritten in place was not compared: %+v", r)
	}
}

// TestTakeFromBaseClockStep: the clock stepped back between sessions (NTP
// at boot setting right a clock that ran ahead, as a dual boot's local-time
// RTC leaves it), so what the host changed after the last audited record
// has a status older than when that record was taken. The user adds Claude
// Code's local settings beside theirs; the session then writes a hook into
// them in place, which changes neither .claude nor a/b. Were .claude's old
// listing reused because its status is older than the record, the audit
// would never look at settings.local.json.
func TestTakeFromBaseClockStep(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "b", ".claude", "settings.json"))
	// The record taken while the clock ran an hour ahead.
	base := Take(root, time.Now().Add(time.Hour), nil, nil)
	// The host, between sessions, once the clock was set right.
	local := filepath.Join(root, "a", "b", ".claude", "settings.local.json")
	write(t, local)
	since := mark(t, t.TempDir())
	built := Take(root, since, nil, base)
	// The session.
	write(t, local)
	if r := Scan(root, since, nil, built, nil); !slices.Contains(r.Found, local) {
		t.Errorf("the hook written in place passed the audit: %q", r.Found)
	}
}

// TestTakeFromBaseOtherRules: the last audited record was made by a
// claudebox that did not judge a name this one does (a tool's file added
// to the list since), so its listing of a holds nothing, though a holds
// that file. The session writes into the file in place, which leaves a's
// status as it was; were the old listing reused, a would not even be
// opened.
func TestTakeFromBaseOtherRules(t *testing.T) {
	root := t.TempDir()
	tool := filepath.Join(root, "a", ".newtoolrc")
	write(t, tool)
	base := Take(root, mark(t, t.TempDir()), nil, nil)
	// The upgrade, between sessions.
	defer registryGains(".newtoolrc")()
	since := mark(t, t.TempDir())
	built := Take(root, since, nil, base)
	// The session.
	write(t, tool)
	if r := Scan(root, since, nil, built, nil); !slices.Contains(r.Found, tool) {
		t.Errorf("the file written in place passed the audit: %q", r.Found)
	}
}

// TestScanStartOtherRules: the start record was made by a claudebox that
// did not judge a name this one does, and this one audits (its supervisor
// was killed; the next launch, upgraded since, audits what it left). Were
// its listing of a, which holds nothing, trusted, a would not be opened.
func TestScanStartOtherRules(t *testing.T) {
	root := t.TempDir()
	tool := filepath.Join(root, "a", ".newtoolrc")
	write(t, tool)
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	write(t, tool)
	defer registryGains(".newtoolrc")()
	if r := Scan(root, since, nil, start, nil); !slices.Contains(r.Found, tool) {
		t.Errorf("the file written in place passed the audit: %q", r.Found)
	}
}

// TestScanRootSymlink: a symlink where the audit's top should be (one the
// sandbox made in the repository's git directory, swapped in after the
// host looked) is not followed: what it leads to is no tree of the
// project's, and the user's own files there are not moved aside.
func TestScanRootSymlink(t *testing.T) {
	dir := t.TempDir()
	since := mark(t, t.TempDir())
	write(t, filepath.Join(dir, "elsewhere", ".envrc"))
	must(t, os.Symlink("elsewhere", filepath.Join(dir, "modules")))
	if r := Scan(filepath.Join(dir, "modules"), since, nil, nil, nil); len(r.Found) != 0 || len(r.NotExamined) != 1 {
		t.Errorf("the audit followed the symlink at its top: %+v", r)
	}
}

// registryGains gives the registry an entry, as an upgrade would (which
// changes the rules a record was made under), until the returned func.
func registryGains(name string) (undo func()) {
	entries, obeyed := projectfiles.Entries, isObeyed
	projectfiles.Entries = append(slices.Clone(entries), projectfiles.Entry{Name: name})
	isObeyed = func(n string, fold bool) bool { return n == name || obeyed(n, fold) }
	return func() { projectfiles.Entries, isObeyed = entries, obeyed }
}

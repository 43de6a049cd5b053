package audit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/unprivileged"
)

func write(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mark starts a session: what is written after it counts as changed.
func mark(t testing.TB, dir string) time.Time {
	t.Helper()
	time.Sleep(20 * time.Millisecond) // past the coarse clock's tick
	f, err := os.CreateTemp(dir, "mark")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	var st unix.Stat_t
	if err := unix.Stat(f.Name(), &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Ctim.Unix())
}

func TestScan(t *testing.T) {
	root := t.TempDir()
	before := []string{".claude/settings.json", "web/.claude/settings.json", ".envrc", "sub/.git/config", "sub/.git/modules/m/HEAD", "src/main.go"}
	for _, p := range before {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	after := map[string]bool{
		"web/.claude/commands/x.md":              true, // a nested project's command
		"web/.mcp.json":                          true,
		".devcontainer/devcontainer.json":        true,
		"deep/a/b/.envrc":                        true,
		"sub/.git/hooks/pre-commit":              true,  // a nested repository's hook
		"sub/.git/hooks/pre-push.sample":         false, // git never runs these
		"sub/.git/modules/m/hooks/post-checkout": true,  // a submodule's
		"sub/.git/rebase-merge/git-rebase-todo":  false, // no exec line
		"bare/config":                            true,  // a git directory by what it holds
		"bare/hooks/pre-commit":                  true,
		"sub/.git/config.worktree":               true,
		"new/.git":                               true, // a gitfile
		".husky/pre-commit":                      true,
		"lefthook.yml":                           true,
		"frontend/.vscode/tasks.json":            true,
		"web/.kiro/hooks/lint.kiro.hook":         true, // an AI tool's hook
		"web/.roo/mcp.json":                      true,
		"web/opencode.json":                      true,
		"src/other.go":                           false, // project content
		"sub/.git/objects/ab/cdef":               true,  // no object named so
		"node_modules/x/.npmrc":                  false, // dependencies
		"guarded/.envrc":                         false, // its guard stood
	}
	for p := range after {
		write(t, filepath.Join(root, p))
	}
	must(t, os.WriteFile(filepath.Join(root, "sub/.git/rebase-merge/git-rebase-todo"), []byte("pick 1234 x\n"), 0o644))
	write(t, filepath.Join(root, "sub/.git/sequencer/todo")) // x: an exec line
	after["sub/.git/sequencer/todo"] = true
	for _, p := range []string{"sub/.git/modules/m/HEAD", "sub/.git/modules/m/objects/info/packs", "bare/HEAD", "bare/objects/info/packs"} {
		write(t, filepath.Join(root, p))
	}
	if err := os.Symlink("/tmp", filepath.Join(root, "web", ".claude", "agents")); err != nil {
		t.Fatal(err)
	}
	after["web/.claude/agents"] = true
	if err := os.Symlink("/tmp", filepath.Join(root, "linked", ".claude")); err == nil {
		t.Fatal("setup: want the parent missing")
	}
	os.MkdirAll(filepath.Join(root, "linked"), 0o755)
	os.Symlink("/tmp", filepath.Join(root, "linked", ".claude"))
	after["linked/.claude"] = true

	r := Scan(root, since, map[string]bool{filepath.Join(root, "guarded", ".envrc"): true}, start, nil)
	if r.NotExamined != nil {
		t.Fatal(r.NotExamined)
	}
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	var want []string
	for p, host := range after {
		if host {
			want = append(want, p)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

func TestMoveAside(t *testing.T) {
	root, dest := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "web", ".mcp.json"))
	os.Symlink("/etc/passwd", filepath.Join(root, ".envrc"))
	moved, err := MoveAside(root, dest, []string{filepath.Join(root, "web", ".mcp.json"), filepath.Join(root, ".envrc")})
	if err != nil || len(moved) != 2 {
		t.Fatalf("moved %v, %v", moved, err)
	}
	if _, err := os.Lstat(filepath.Join(root, "web", ".mcp.json")); err == nil {
		t.Error("the finding is still in place")
	}
	if target, err := os.Readlink(filepath.Join(dest, ".envrc")); err != nil || target != "/etc/passwd" {
		t.Errorf("the link was not moved as a link: %q, %v", target, err)
	}
}

// tree makes dirs directories of files files each, 100 to a parent.
func tree(b *testing.B, dirs, files int) string {
	root := b.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%d", d/100), fmt.Sprintf("mod%d", d%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkScan is the audit at the end of a session, on a tree of
// 100,000 files in 5,000 directories, and 60,000 in 3,000: after a session
// that wrote a file in one directory, and in every one.
func BenchmarkScan(b *testing.B) {
	for _, size := range []struct{ dirs, files int }{{5000, 20}, {3000, 20}} {
		for _, every := range []bool{false, true} {
			name := fmt.Sprintf("%dfiles/one-written", size.dirs*size.files)
			if every {
				name = fmt.Sprintf("%dfiles/all-written", size.dirs*size.files)
			}
			b.Run(name, func(b *testing.B) {
				root := tree(b, size.dirs, size.files)
				since := mark(b, b.TempDir())
				start := Take(root, since, nil, nil)
				write(b, filepath.Join(root, "pkg1", "mod1", "new.go"))
				if every {
					filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
						if d.IsDir() {
							write(b, filepath.Join(p, "new.go"))
						}
						return nil
					})
				}
				b.ResetTimer()
				for b.Loop() {
					if r := Scan(root, since, nil, start, nil); r.NotExamined != nil || r.Found != nil {
						b.Fatal(r)
					}
				}
			})
		}
	}
}

// BenchmarkTake is the snapshot taken beside the first session's start,
// on 100,000 files in 5,000 directories: the first one, and one built on
// the last audited sessions' record after a session that wrote a file in
// one directory.
func BenchmarkTake(b *testing.B) {
	root := tree(b, 5000, 20)
	base := Take(root, mark(b, b.TempDir()), nil, nil)
	write(b, filepath.Join(root, "pkg1", "mod1", "new.go"))
	since := mark(b, b.TempDir())
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			Take(root, since, nil, nil)
		}
	})
	b.Run("from-record", func(b *testing.B) {
		for b.Loop() {
			Take(root, since, nil, base)
		}
	})
}

// TestScanHostile: what the session can shape in the project to hide a
// finding is a finding itself, or makes the audit say it stopped early.
func TestScanHostile(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "old-locked"), 0o700))
	must(t, os.Chmod(filepath.Join(root, "old-locked"), 0)) // the user's, unchanged
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "old-locked"), 0o700) })
	since := mark(t, t.TempDir())
	// A directory the session locked, hiding a .claude inside.
	write(t, filepath.Join(root, "locked", ".claude", "settings.json"))
	must(t, os.Chmod(filepath.Join(root, "locked"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o700) })
	// Host-run names as a FIFO (never opened: no hang) and with a control
	// character in the directory above.
	must(t, os.Mkdir(filepath.Join(root, "a\x1b[2Jb"), 0o700))
	must(t, unix.Mkfifo(filepath.Join(root, "a\x1b[2Jb", ".envrc"), 0o600))
	var r Report
	unprivileged.Do(t, func() { r = Scan(root, since, nil, nil, nil) })
	want := []string{filepath.Join(root, "a\x1b[2Jb", ".envrc"), filepath.Join(root, "locked")}
	if !slices.Equal(r.Found, want) {
		t.Errorf("found %q; want %q", r.Found, want)
	}
	if len(r.NotExamined) != 1 || !strings.HasPrefix(r.NotExamined[0], filepath.Join(root, "old-locked")+": ") {
		t.Errorf("not examined: %q, want only old-locked", r.NotExamined)
	}
}

// TestScanDeep: a tree deeper than the walk goes is named where it was
// not examined, and a directory made there during the session is a
// finding.
func TestScanDeep(t *testing.T) {
	root := t.TempDir()
	deep := root
	for range maxDepth + 2 {
		deep = filepath.Join(deep, "d")
	}
	old := filepath.Join(root, "old")
	for range maxDepth + 2 {
		old = filepath.Join(old, "d")
	}
	must(t, os.MkdirAll(old, 0o755))
	start := Take(root, time.Now().Add(time.Hour), nil, nil)
	since := mark(t, t.TempDir())
	write(t, filepath.Join(deep, ".envrc"))
	write(t, filepath.Join(old, ".envrc"))
	r := Scan(root, since, nil, start, nil)
	// The walk opens directories down to maxDepth+1 below root.
	depthOf := func(p string) int { rel, _ := filepath.Rel(root, p); return strings.Count(rel, "/") + 1 }
	if len(r.Found) != 1 || !strings.HasPrefix(r.Found[0], filepath.Join(root, "d")) || depthOf(r.Found[0]) != maxDepth+1 {
		t.Errorf("found %d paths (depth %d), want the new directory where the walk stopped", len(r.Found), depthOf(r.Found[0]))
	}
	if len(r.NotExamined) != 1 || !strings.HasPrefix(r.NotExamined[0], filepath.Join(root, "old")) ||
		depthOf(r.NotExamined[0][:strings.Index(r.NotExamined[0], ": deeper than")]) != maxDepth+1 {
		t.Errorf("not examined: %d, want the old directory where the walk stopped", len(r.NotExamined))
	}
}

// Replaced names the guarded regular files whose status changed at or
// after the sessions began, and nothing else: not a file unchanged since,
// a directory, a missing path or a symlink.
func TestReplaced(t *testing.T) {
	dir := t.TempDir()
	file, sub, link := filepath.Join(dir, "file"), filepath.Join(dir, "sub"), filepath.Join(dir, "link")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(sub, 0o700)
	os.Symlink(file, link)
	paths := []string{file, sub, link, filepath.Join(dir, "missing")}
	// ctime cannot be set back: a session that began before, then after.
	if got := Replaced(paths, time.Unix(time.Now().Unix()-1, 0)); len(got) != 1 || got[0] != file {
		t.Errorf("Replaced = %q, want only %s", got, file)
	}
	if got := Replaced(paths, time.Now().Add(time.Hour)); got != nil {
		t.Errorf("Replaced = %q for a session that began after", got)
	}
}

// TestScanRenamed: what was renamed into a host-run place during the
// session counts, though its files kept their ctime: the renamed
// directory's, its parent's or a farther ancestor's changed. The user's
// unchanged files do not count, though the session wrote beside them.
func TestScanRenamed(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"vendor/tool/dotgit/config", "vendor/tool/dotgit/HEAD.x", "vendor/tool/dotgit/objects/info/packs",
		"pkg/claude-x/settings.json",
		"node_modules/dep/.git/config", "node_modules/dep/.git/HEAD", "node_modules/dep/.git/objects/info/packs",
		"web/.claude/settings.json", "web/.git/config", "web/.git/HEAD", "web/.git/objects/info/packs", "web/.git/hooks/pre-commit",
	} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, mv := range [][2]string{
		{"vendor/tool/dotgit/HEAD.x", "vendor/tool/dotgit/HEAD"},
		{"vendor/tool/dotgit", "vendor/tool/.git"},
		{"pkg/claude-x", "pkg/.claude"},
		{"node_modules/dep", "dep"},
	} {
		must(t, os.Rename(filepath.Join(root, mv[0]), filepath.Join(root, mv[1])))
	}
	// Writes beside the user's files change their directories' ctime.
	write(t, filepath.Join(root, "new.go"))
	write(t, filepath.Join(root, "web", "new.go"))
	write(t, filepath.Join(root, "web", ".claude", "notes"))
	write(t, filepath.Join(root, "web", ".git", "hooks", "post-commit"))
	want := []string{
		"dep/.git/config", "pkg/.claude/settings.json", "vendor/tool/.git/config",
		"web/.claude/notes", "web/.git/hooks/post-commit",
	}
	check := func(r Report, want []string) {
		t.Helper()
		var got []string
		for _, f := range r.Found {
			rel, _ := filepath.Rel(root, f)
			got = append(got, rel)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("found %q, want %q", got, want)
		}
	}
	check(Scan(root, since, nil, start, nil), want)
	// Without the snapshot, what lies below a directory the session wrote
	// in cannot be told from what was renamed there: it counts.
	check(Scan(root, since, nil, nil, nil), append(want, "web/.claude/settings.json", "web/.git/config", "web/.git/hooks/pre-commit"))
}

// TestScanSymlinkSwap: a directory swapped for a symlink while the audit
// walks is never followed out of the project.
func TestScanSymlinkSwap(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "swap"), 0o755))
	for i := range 200 {
		write(t, filepath.Join(root, fmt.Sprintf("d%d", i), "f"))
	}
	since := mark(t, t.TempDir())
	write(t, filepath.Join(outside, ".claude", "settings.json"))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		dir, link, tmp := filepath.Join(root, "swap"), filepath.Join(root, "swap-link"), filepath.Join(root, "swap-tmp")
		os.Symlink(outside, link)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Exchange the directory and the symlink, atomically, both ways.
			unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			os.Rename(tmp, tmp) // yield
		}
	}()
	scans := 300
	if testing.Short() {
		scans = 30 // the race still has a tenth of its chances
	}
	for range scans {
		r := Scan(root, since, nil, nil, nil)
		for _, f := range r.Found {
			if strings.Contains(f, "settings.json") {
				t.Errorf("the audit followed a symlink out of the project: %s", f)
			}
		}
	}
	close(stop)
	<-done
}

// TestScanGitlink: a gitlink added to the index sends the host's git into
// a repository where the walk does not go (node_modules); that repository
// is examined.
func TestScanGitlink(t *testing.T) {
	root := t.TempDir()
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git(root, "init", "-q")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	tool := filepath.Join(root, "node_modules", "tool")
	must(t, os.MkdirAll(tool, 0o755))
	git(tool, "init", "-q")
	git(tool, "config", "core.fsmonitor", "touch pwned") // a fresh config alone is inert
	if r := Scan(root, since, nil, start, nil); len(r.Found) != 0 {
		t.Fatalf("node_modules is walked: %q", r.Found)
	}
	git(root, "update-index", "--add", "--cacheinfo", "160000,0000000000000000000000000000000000000001,node_modules/tool")
	r := Scan(root, since, nil, start, nil)
	if !slices.Contains(r.Found, filepath.Join(tool, ".git", "config")) {
		t.Errorf("the gitlink's repository is not examined: %q", r.Found)
	}
}

// TestScanLinkedWorktree: a worktree git worktree add made inside the
// project is no finding: its .git file and the repository point at each
// other. One whose repository side points elsewhere is.
func TestScanLinkedWorktree(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "i")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git("worktree", "add", "-q", ".wt/x")
	git("worktree", "add", "-q", ".wt/y")
	if r := Scan(root, since, nil, start, nil); r.Found != nil {
		t.Errorf("a linked worktree's files are findings: %q", r.Found)
	}
	must(t, os.WriteFile(filepath.Join(root, ".git", "worktrees", "y", "gitdir"), []byte(filepath.Join(root, "elsewhere", ".git")+"\n"), 0o644))
	y := filepath.Join(root, ".git", "worktrees", "y")
	want := []string{filepath.Join(y, "commondir"), filepath.Join(y, "gitdir"), filepath.Join(root, ".wt", "y", ".git")}
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}

// TestScanPastEntryBound: a session that made more entries than the start
// record holds (two million; here none) cannot hide a plant past them: the
// exit audit walks to the end.
func TestScanPastEntryBound(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "src", "main.go"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	defer func(n int64) { maxEntries = n }(maxEntries)
	maxEntries = 0
	for i := range 600 {
		write(t, filepath.Join(root, "flood", fmt.Sprintf("f%d", i)))
	}
	write(t, filepath.Join(root, "src", "deep", ".envrc"))
	r := Scan(root, since, nil, start, nil)
	if !slices.Contains(r.Found, filepath.Join(root, "src", "deep", ".envrc")) {
		t.Errorf("the plant past the bound passed: found %q, not examined %q", r.Found, r.NotExamined)
	}
}

// TestScanGitFIFOs: a FIFO, socket or device the session left anywhere in
// a git directory, or in the work tree where git opens a file, is a
// finding (the host's git would wait on it); new refs and logs are not.
func TestScanGitFIFOs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".git/HEAD", ".git/objects/info/x", ".git/refs/heads/main", ".git/logs/HEAD", ".git/logs/refs/heads/main"} {
		write(t, filepath.Join(root, p))
	}
	must(t, unix.Mkfifo(filepath.Join(root, ".git/refs/heads/old"), 0o600)) // the host's own
	start := Take(root, time.Now().Add(time.Hour), nil, nil)
	since := mark(t, t.TempDir())
	for _, p := range []string{".git/refs/heads/topic", ".git/refs/tags/v1/x", ".git/logs/refs/heads/topic", "src/.gitignore"} {
		write(t, filepath.Join(root, p))
	}
	must(t, os.Remove(filepath.Join(root, ".git/logs/HEAD")))
	fifos := []string{".git/logs/HEAD", ".git/refs/heads/main.lock", ".git/refs/remotes/origin/main", ".git/lost-found/x", ".mailmap", "src/.gitattributes", "src/.gitmodules"}
	for _, p := range fifos {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, unix.Mkfifo(filepath.Join(root, p), 0o600))
	}
	must(t, unix.Mkfifo(filepath.Join(root, "src/data.pipe"), 0o600)) // nothing git opens
	// Sparse, which git reads whole: it fails allocating 100 GB.
	for _, p := range []string{"sparse/.gitignore", "sparse/.mailmap"} {
		write(t, filepath.Join(root, p))
		must(t, os.Truncate(filepath.Join(root, p), 100<<30))
		fifos = append(fifos, p)
	}
	write(t, filepath.Join(root, "sparse/.gitattributes")) // an ordinary one
	r := Scan(root, since, nil, start, nil)
	var want []string
	for _, p := range fifos {
		want = append(want, filepath.Join(root, p))
	}
	slices.Sort(want)
	if !slices.Equal(r.Found, want) {
		t.Errorf("found %q; want %q", r.Found, want)
	}
}

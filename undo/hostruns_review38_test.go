package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A snapshot's git runs none of the user's filters, the checkout's
// .gitattributes naming them, and takes each file as it is, line endings
// and all: it ran the clean filter (a program of the user's the session's
// files reached), and what it kept was the filter's output, which --undo
// would have written back.
func TestTakeRunsNoFilter(t *testing.T) {
	p := repo(t, 1, 1)
	ran := filepath.Join(t.TempDir(), "ran")
	global := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(global, []byte("[filter \"upper\"]\n\tclean = touch "+ran+" && tr a-z A-Z\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	os.WriteFile(filepath.Join(p.Checkout, ".gitattributes"), []byte("*.ipynb filter=upper\n*.txt text eol=lf\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "analysis.ipynb"), []byte("{\"cells\": []}\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "notes.txt"), []byte("windows\r\n"), 0o644)
	state := t.TempDir()
	s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ran); err == nil {
		t.Error("the snapshot ran the user's clean filter")
	}
	if changes, err := Plan(state, p.Root, s); err != nil || len(changes) != 0 {
		t.Errorf("Plan of the tree the snapshot read: %+v, %v", changes, err)
	}
}

// In a folder of repositories, what a repository's git runs as its status
// lists the files (a filter's sh tools/strip.sh, the nbstripout.py at its
// top a filter of the user's "python3" -m nbstripout imports) is a
// finding where the session made it, though that repository's git does
// not ignore it; a new source its git status names first stays.
func TestNestedChangesRunByGit(t *testing.T) {
	base := t.TempDir()
	noUserGitConfig(t, filepath.Join(base, "home"))
	work := filepath.Join(base, "work")
	writeTree(t, work, map[string]string{
		"app/.git/config": "[filter \"strip\"]\n\tclean = sh tools/strip.sh\n",
		"app/.git/HEAD":   "ref: refs/heads/main\n",
		"notes.txt":       "a folder of repositories\n",
	})
	writeTree(t, base, map[string]string{"home/.gitconfig": "[filter \"nbstripout\"]\n\tclean = \\\"python3\\\" -m nbstripout\n"})
	began := time.Now().Add(-time.Second)
	writeTree(t, work, map[string]string{"app/tools/strip.sh": "cat\n", "app/nbstripout.py": "\n", "app/src/new.c": "int x;\n"})
	c := NestedChanges(t.TempDir(), work, began, nil, nil)
	if want := []string{filepath.Join(work, "app", "nbstripout.py"), filepath.Join(work, "app", "tools", "strip.sh")}; !slices.Equal(c.HostRun, want) {
		t.Errorf("HostRun = %q, want %q", c.HostRun, want)
	}
}

// A link the session made leads out of the checkout where what it names,
// its links resolved as the kernel resolves them, lies outside: through
// a link of the user's, or up from one (sub/.. is where sub leads, not
// the checkout), or nowhere outside; or inside, in a git directory or
// what the host's tools obey (.claude), or where the user cannot write
// (a read-only store); not one that stays elsewhere inside.
func TestLinksOut(t *testing.T) {
	base := t.TempDir()
	checkout, outside := filepath.Join(base, "repo"), filepath.Join(base, "home")
	writeTree(t, checkout, map[string]string{"src/main.c": "int x;\n", "file": "x\n"})
	writeTree(t, outside, map[string]string{".local/bin/keep": "x\n"})
	// git-annex's objects, read-only as it keeps them.
	for _, object := range []string{".git/annex/objects/Xk/9P/SHA256E-s4--ab.bin/SHA256E-s4--ab.bin", ".git/annex/objects/Xk/9P/K/K"} {
		writeTree(t, checkout, map[string]string{object: "data"})
		os.Chmod(filepath.Join(checkout, object), 0o444)
	}
	now := tree{recent: map[string]fileStatus{"file": {mode: unix.S_IFREG}}}
	for link, target := range map[string]string{
		"home": outside, "deep": filepath.Join(outside, ".local", "bin"),
		"dist": filepath.Join(outside, ".local", "bin"), "out": "home/.local/bin", "up": "..", "sneaky": "deep/..",
		"gone": "/nonexistent/x", "in": "src", "src/back": "../src/main.c", "missing": "build/later",
		"hooks": ".git/hooks", "settings": "src/.claude", "top": ".",
		"annexed.bin": ".git/annex/objects/Xk/9P/SHA256E-s4--ab.bin/SHA256E-s4--ab.bin", "src/annexed.bin": "../.git/annex/objects/Xk/9P/K/K",
		"annexdir": ".git/annex/objects", "annexup": ".git/annex/objects/../../hooks",
		// Where no one writes, as nix build's result into /nix/store: the
		// sandbox chooses which path of it the host runs.
		"result": "/usr/lib",
	} {
		if err := os.Symlink(target, filepath.Join(checkout, link)); err != nil {
			t.Fatal(err)
		}
		if link != "home" && link != "deep" {
			now.recent[link] = fileStatus{mode: unix.S_IFLNK}
		}
	}
	for path, want := range map[string]bool{
		"dist": true, "out": true, "up": true, "sneaky": true, "gone": true,
		"hooks": true, "settings": true, "annexdir": true, "annexup": true, "result": true,
		"annexed.bin": false, "src/annexed.bin": false, "in": false, "src/back": false, "missing": false, "file": false, "home": false, "top": false,
	} {
		if got := now.linksOut(checkout, path); got != want {
			t.Errorf("%s: leads out %v, want %v", path, got, want)
		}
	}
}

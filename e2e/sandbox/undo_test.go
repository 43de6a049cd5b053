package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// treeBytes reads every file of dir but .git and ignored build output,
// by relative path: a link as "-> target".
func treeBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == ".git" || rel == "build" {
			return filepath.SkipDir
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			files[rel] = "-> " + target
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(path)
			files[rel] = fi.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	return files
}

// A session that edits tracked files (committed and not), deletes one,
// makes one, swaps a directory for a link to the home, and changes an
// ignored file: --undo --dry-run lists it all, --undo -y puts every file
// back byte for byte as the session found it, moves aside what the
// session made (with the mv that puts it back), and leaves the ignored
// file. While a session runs, --undo refuses.
func TestSandboxUndo(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "build/\n")
	h.Write(filepath.Join(proj, "b.txt"), "b\n")
	h.Write(filepath.Join(proj, "dir", "c.txt"), "c\n")
	h.Write(filepath.Join(proj, "run.sh"), "#!/bin/sh\necho ok\n")
	os.Chmod(filepath.Join(proj, "run.sh"), 0o755)
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files")
	h.Write(filepath.Join(proj, "README"), "hello, not committed\n")
	h.Write(filepath.Join(proj, "notes.txt"), "untracked notes\n")
	h.Write(filepath.Join(proj, "build", "out"), "old build\n")
	start := treeBytes(t, proj)

	// (A second first: the snapshot of so small a tree is long written.)
	h.Inside(proj, nil, `
		sleep 1; echo edited > README; echo changed > notes.txt; rm b.txt; echo new > new.txt
		chmod -x run.sh; rm -r dir; ln -s "$HOME" dir; echo new build > build/out
		git -c user.name=t -c user.email=t@example.com commit -qam "session"`)
	if treeBytes(t, proj)["README"] == start["README"] {
		t.Fatal("the session changed nothing")
	}

	out := h.Run(proj, nil, "claudebox", "--undo", "--dry-run")
	for _, want := range []string{"restore    README (changed)", "restore    b.txt (removed)", "move aside new.txt (created)", "restore    dir/c.txt (removed)", "restore    run.sh (changed)", "ignored files"} {
		if !strings.Contains(out, want) {
			t.Errorf("--undo --dry-run lacks %q:\n%s", want, out)
		}
	}
	if treeBytes(t, proj)["README"] == start["README"] {
		t.Fatal("--dry-run changed the tree")
	}
	c := h.Command(proj, nil, "claudebox", "--undo")
	if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "stdin is not a terminal") {
		t.Errorf("--undo without a terminal or -y: %v\n%s", err, out)
	}

	out = h.Run(proj, nil, "claudebox", "--undo", "-y")
	end := treeBytes(t, proj)
	for path, want := range start {
		if end[path] != want {
			t.Errorf("%s after --undo: %q, want %q", path, end[path], want)
		}
	}
	for path := range end {
		if _, ok := start[path]; !ok {
			t.Errorf("%s is still there after --undo", path)
		}
	}
	if !strings.Contains(out, "moved aside "+filepath.Join(proj, "new.txt")+"; to put it back: mv ") {
		t.Errorf("no mv for new.txt:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "build", "out")); string(b) != "new build\n" {
		t.Errorf("the ignored file was changed: %q", b)
	}

	// A session running: --undo refuses and changes nothing.
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", "echo during > README; sleep 30")
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { session.Process.Kill(); session.Wait() }()
	for i := 0; i < 100 && !strings.Contains(treeBytes(t, proj)["README"], "during"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	c = h.Command(proj, nil, "claudebox", "--undo", "-y")
	if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "a session of this project is running") {
		t.Errorf("--undo during a session: %v\n%s", err, out)
	}
}

// The sandbox cannot reach the snapshots, and a session that rewrites the
// repository's objects to change what a file was at its start gets no
// content of its own restored: the start's, a loose object of the
// project's, was copied into the store (a packed one would be named as
// not restored).
func TestReplayUndoTamper(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "b.txt"), "b\n")
	h.Write(filepath.Join(proj, "evil.txt"), "EVIL\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files")
	out := h.Inside(proj, nil, `
		sleep 1; ls -d ~/.claudebox ~/.claudebox/undo 2>&1 | sed 's/^/SEES /'
		b=$(git rev-parse HEAD:b.txt); e=$(git rev-parse HEAD:evil.txt)
		dst=.git/objects/$(echo $b | cut -c1-2)/$(echo $b | cut -c3-)
		chmod u+w $dst; cp .git/objects/$(echo $e | cut -c1-2)/$(echo $e | cut -c3-) $dst
		git cat-file blob $b
		rm b.txt`)
	if strings.Contains(out, "SEES /") && !strings.Contains(out, "No such file") {
		t.Errorf("the sandbox sees the snapshots:\n%s", out)
	}
	if !strings.Contains(out, "EVIL") {
		t.Fatalf("the objects were not rewritten:\n%s", out)
	}
	c := h.Command(proj, nil, "claudebox", "--undo", "-y")
	res, err := c.CombinedOutput()
	if b, _ := os.ReadFile(filepath.Join(proj, "b.txt")); string(b) != "b\n" {
		t.Errorf("--undo after the objects were rewritten restored b.txt as %q: %v\n%s", b, err, res)
	}
}

package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview18ForgedLFSObject: git-lfs keeps a file's content in
// the git directory (lfs/objects/<aa>/<bb>/<sha256>) and its checkout
// (the smudge filter) copies the object of the pointer's name and size
// into the work tree without hashing it. The exit audit checked git's
// own objects against their names, not these: the session rewrites the
// object of the project's committed pre-commit hook (core.hooksPath
// .githooks, kept in LFS) with a script of its own of the same size,
// and the host's next checkout of it (git worktree add, claudebox -w, a
// switch of branches) writes the session's script, while git status
// says nothing. Host-side proof: after the session, a worktree added on
// the host, and a commit there, run nothing the session wrote.
func TestReplayReview18ForgedLFSObject(t *testing.T) {
	harness.RequireTool(t, "git-lfs", "apt-get install git-lfs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "lfs", "install", "--skip-repo")
	hook := "#!/bin/sh\n# " + strings.Repeat("x", 200) + "\nexit 0\n"
	h.Write(filepath.Join(proj, ".gitattributes"), ".githooks/** filter=lfs diff=lfs merge=lfs -text\n")
	h.Write(filepath.Join(proj, ".githooks", "pre-commit"), hook)
	os.Chmod(filepath.Join(proj, ".githooks", "pre-commit"), 0o755)
	h.Run(proj, nil, "git", "add", ".gitattributes", ".githooks")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	sum := sha256.Sum256([]byte(hook))
	oid := hex.EncodeToString(sum[:])
	object := filepath.Join(".git", "lfs", "objects", oid[:2], oid[2:4], oid)
	if _, err := os.Stat(filepath.Join(proj, object)); err != nil {
		t.Fatalf("git-lfs kept no object for the hook: %v", err)
	}
	marker := plantedMarker(h)
	out := runSession(t, h, proj, `set -e
		python3 - `+object+` <<'PY'
import os, sys
p = sys.argv[1]
s = b'#!/bin/sh\ntouch `+marker+`\n'
s += b'#' * (os.path.getsize(p) - len(s) - 1) + b'\n'
open(p + '.new', 'wb').write(s)
os.rename(p + '.new', p)
PY
		test -z "$(git status --porcelain)" && echo FORGED >&2`)
	if !strings.Contains(out, "FORGED") {
		t.Fatalf("the LFS object could not be forged here:\n%s", out)
	}
	wt := filepath.Join(h.Home, "wt")
	added, _ := h.Command(proj, nil, "git", "worktree", "add", "-q", wt).CombinedOutput()
	committed, _ := h.Command(wt, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit in a worktree it added ran the session's forged LFS object:\n%s\n%s%s", out, added, committed)
	}
	if !strings.Contains(out, filepath.Join(proj, object)) {
		t.Errorf("the end did not name the forged object:\n%s", out)
	}
}

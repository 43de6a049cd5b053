package hostcmds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27ClosedUnrecordedDirectories: the session took away
// the permissions of directories of the user's that the start's record
// does not keep (a loose object's directory under .git/objects, a package
// in node_modules: records of trees that large are not taken). The exit
// audit, unable to look in, moved each whole into ~/.claudebox's
// moved-aside area: the host's git log failed (its objects gone) until
// the user ran the `mv` that put them back. Host-side proof: after the
// exit each is in place, its owner's to enter, the exit says so, git log
// reads the history. A package the session changed (its permissions) is
// moved aside whole, as any it changed, but open to its owner there, to
// read before putting it back; one the session made and closed is taken
// whole, planted file and all.
func TestReplayReview27ClosedUnrecordedDirectories(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "index.js"), "module.exports = 1\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "package.json"), `{"name":"left-pad"}`+"\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Chown()
	loose, err := filepath.Glob(filepath.Join(proj, ".git", "objects", "[0-9a-f][0-9a-f]"))
	if err != nil || len(loose) == 0 {
		t.Fatalf("no loose objects' directories: %v", err)
	}
	var closed []string
	for _, d := range loose {
		closed = append(closed, strings.TrimPrefix(d, proj+"/"))
	}
	t.Cleanup(func() {
		filepath.WalkDir(proj, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	script := `set -e
mkdir node_modules/evil && echo 'touch "$HOME/PLANTED"' > node_modules/evil/install.js
chmod 000 node_modules/evil node_modules/left-pad .git/objects/[0-9a-f][0-9a-f]`
	out, err := harness.ShellAfterSnapshot(t, h, proj, script)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for _, d := range closed {
		p := filepath.Join(proj, d)
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s: not in place, open to its owner, after the exit (%v):\n%s", d, err, out)
		}
		if !strings.Contains(out, "gave "+p+" its owner's permissions back (the session had made it 000)") {
			t.Errorf("the exit does not say it gave %s its permissions back:\n%s", d, out)
		}
	}
	if len(closed)+1 > 10 {
		t.Fatalf("%d directories closed: the exit names ten", len(closed)+1)
	}
	if got := strings.TrimSpace(h.Run(proj, nil, "git", "log", "-1", "--format=%s")); got != "ignore" {
		t.Errorf("git log -1 after the exit: %q:\n%s", got, out)
	}
	aside, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "moved-aside", "*", "*", "node_modules", "left-pad"))
	if len(aside) != 1 {
		t.Errorf("the user's package, changed, is not moved aside: %v\n%s", aside, out)
	} else if fi, err := os.Lstat(aside[0]); err != nil || fi.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("the user's package moved aside, closed (%v):\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(proj, "node_modules", "evil")); err == nil {
		t.Errorf("the session's closed package stays in the project:\n%s", out)
	}
}

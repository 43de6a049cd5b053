package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayHardLinkedStores: what the host's tools leave in a project as
// hard links to files outside it, as they do by default on one
// filesystem: pnpm's node_modules/.pnpm (links into its store, which every
// other project using the package runs), a uv virtualenv's site-packages
// (links into uv's cache), and a local git clone's objects (links into the
// source repository's, which its next checkout writes). The session
// appends to and rewrites in place the project's name of each, never
// renaming. Host-side proof: each file outside the project is byte for
// byte what it was, and the launch said what it copied.
func TestReplayHardLinkedStores(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	other, proj := filepath.Join(code, "other"), filepath.Join(code, "p")
	// The other repository: a pack and a loose object, then a local clone,
	// whose objects git links.
	h.GitRepo(other)
	h.Run(other, nil, "git", "gc", "-q")
	h.Write(filepath.Join(other, "b.txt"), "second\n")
	h.Run(other, nil, "git", "add", "b.txt")
	h.Run(other, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "second")
	h.Run(code, nil, "git", "clone", "-q", "other", "p")

	store := filepath.Join(h.Home, ".local", "share", "pnpm", "store", "v3", "files")
	uvCache := filepath.Join(h.Home, ".cache", "uv", "archive-v0", "Xq3")
	outside := map[string]string{
		filepath.Join(store, "1a", "index"):            "node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js",
		filepath.Join(store, "2b", "package"):          "node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/package.json",
		filepath.Join(store, "3c", "scoped"):           "node_modules/.pnpm/@types+node@20.1.0/node_modules/@types/node/index.d.ts",
		filepath.Join(store, "4d", "scopedpackage"):    "node_modules/.pnpm/@types+node@20.1.0/node_modules/@types/node/package.json",
		filepath.Join(uvCache, "six.py"):               ".venv/lib/python3.12/site-packages/six.py",
		filepath.Join(uvCache, "six-1.16.0.dist-info"): ".venv/lib/python3.12/site-packages/six-1.16.0.dist-info/METADATA",
	}
	for src, dst := range outside {
		h.Write(src, "the store's "+filepath.Base(src)+"\n")
		if err := os.MkdirAll(filepath.Join(proj, filepath.Dir(dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(src, filepath.Join(proj, dst)); err != nil {
			t.Fatal(err)
		}
	}
	h.Write(filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
	if err := os.Symlink(".pnpm/left-pad@1.3.0/node_modules/left-pad", filepath.Join(proj, "node_modules", "left-pad")); err != nil {
		t.Fatal(err)
	}
	var objects []string
	filepath.Walk(filepath.Join(other, ".git", "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(other, p)
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
				objects = append(objects, rel)
				outside[p] = rel
			}
		}
		return nil
	})
	if !strings.Contains(strings.Join(objects, " "), ".pack") || len(objects) < 4 {
		t.Fatalf("the clone links too few of the other repository's objects: %q", objects)
	}
	h.Chown()
	var paths []string
	for src := range outside {
		paths = append(paths, src)
	}
	before := harness.Snapshots(paths)

	var script strings.Builder
	for _, dst := range outside {
		// In place: an append, and a rewrite of the first bytes.
		script.WriteString("chmod u+w '" + dst + "' && printf 'PLANTED\\n' >> '" + dst + "' && printf 'XX' | dd of='" + dst + "' conv=notrunc status=none && grep -q PLANTED '" + dst + "' || echo FAILED " + dst + "\n")
	}
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", script.String())
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "FAILED") {
		t.Fatalf("the session could not write the project's files:\n%s", out)
	}
	harness.CompareSnapshots(t, before)
	if !strings.Contains(string(out), "are hard links into") {
		t.Errorf("the launch did not say what it copied:\n%s", out)
	}
	// Nothing is copied twice: the next launch finds no link.
	again := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
	if out, err := again.CombinedOutput(); err != nil || strings.Contains(string(out), "are hard links into") {
		t.Errorf("the second launch: %v\n%s", err, out)
	}
	h.Run(other, nil, "git", "fsck", "--no-progress")
}

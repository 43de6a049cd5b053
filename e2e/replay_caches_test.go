package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// cachePlant writes a payload into every tool cache inside, and lists what
// it finds there from before.
const cachePlant = `for d in ~/.cache/go-build ~/go/pkg/mod ~/.npm ~/.cargo/registry ~/.cargo/git ~/.m2/repository ~/.gradle/caches; do
	ls -A "$d" 2>/dev/null | sed "s|^|SEEN $d/|"
	mkdir -p "$d" && printf '#!/bin/sh\necho PWNED\n' > "$d/planted" && chmod +x "$d/planted" || echo "CANNOT $d"
done`

// TestReplayCachesPerProject: the attack: the agent poisons its tool
// caches (a build cache entry, a module, an npm tarball, a crate), hoping
// that a later build on the host, or in another project's sandbox, takes
// them up and runs them. The proof, on the host side: each project's
// caches are a directory of its own under ~/.claudebox/caches, which the
// host never reads: the next session of the same project finds them (they
// persist), another project's session does not, the host's own ~/.cache,
// ~/go, ~/.npm, ~/.cargo, ~/.m2 and ~/.gradle stay byte-identical and
// unseen inside; --list counts them and --gc --caches, or --gc once the
// project is gone, removes them.
func TestReplayCachesPerProject(t *testing.T) {
	h := newE2EHost(t)
	a := filepath.Join(h.home, "code", "a")
	b := filepath.Join(h.home, "code", "b")
	h.gitRepo(a)
	h.gitRepo(b)
	for _, d := range []string{".cache/go-build", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches"} {
		h.write(filepath.Join(h.home, d, "host-entry"), "the host's own cache\n")
	}
	hostCaches := func() string {
		sum := sha256.New()
		for _, d := range []string{".cache", "go", ".npm", ".cargo", ".m2", ".gradle"} {
			filepath.WalkDir(filepath.Join(h.home, d), func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				b, _ := os.ReadFile(p)
				fi, _ := e.Info()
				fmt.Fprintf(sum, "%s %v %x\n", p, fi.Mode(), sha256.Sum256(b))
				return nil
			})
		}
		return fmt.Sprintf("%x", sum.Sum(nil))
	}
	before := hostCaches()

	out := h.inside(a, nil, cachePlant)
	if strings.Contains(out, "SEEN") || strings.Contains(out, "CANNOT") {
		t.Fatalf("the first session of a saw or could not write:\n%s", out)
	}
	state := filepath.Join(h.home, ".claudebox")
	if !paths.Exists(filepath.Join(instance.CachesDir(state, a), "go-mod", "planted")) {
		t.Fatalf("no cache of a under %s", instance.CachesDir(state, a))
	}
	out = h.inside(a, nil, cachePlant)
	for _, d := range []string{".cache/go-build", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches"} {
		if !strings.Contains(out, "SEEN "+filepath.Join(h.home, d)+"/planted") {
			t.Errorf("the second session of a does not find its ~/%s:\n%s", d, out)
		}
	}
	if out := h.inside(b, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("project b sees a cache it did not write:\n%s", out)
	}
	if after := hostCaches(); after != before {
		t.Error("the host's own caches changed")
	}

	var insts []gc.Instance
	if err := json.Unmarshal([]byte(h.run(h.home, nil, "claudebox", "--list", "--json")), &insts); err != nil {
		t.Fatal(err)
	}
	for _, in := range insts {
		if in.CacheBytes == 0 {
			t.Errorf("--list shows no caches for %s", in.Root)
		}
	}
	// What the host's removal meets: a module cache's read-only
	// directories (Go makes them so), one without any permission, links to
	// the host's files and directories.
	keep := filepath.Join(h.home, "keep")
	h.write(filepath.Join(keep, "file"), "the host's\n")
	h.inside(a, nil, `mkdir -p ~/go/pkg/mod/ro/sub ~/.cache/none && touch ~/go/pkg/mod/ro/sub/f && chmod 555 ~/go/pkg/mod/ro/sub ~/go/pkg/mod/ro && chmod 0 ~/.cache/none
		ln -s `+keep+` ~/.npm/dirlink && ln -s `+keep+`/file ~/.npm/filelink`)
	if out := h.runBoth(h.home, "claudebox", "--gc", "--caches"); !strings.Contains(out, "2 removed") {
		t.Errorf("--gc --caches: %s", out)
	}
	if out := h.inside(a, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("after --gc --caches a still finds:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(keep, "file")); err != nil || string(b) != "the host's\n" {
		t.Errorf("--gc --caches followed a link to the host's files: %q %v", b, err)
	}
	os.RemoveAll(b)
	h.runBoth(h.home, "claudebox", "--gc")
	if paths.Exists(instance.CachesDir(state, b)) || !paths.Exists(instance.CachesDir(state, a)) {
		t.Error("--gc did not remove the caches of the project gone, or removed another's")
	}
}

// runBoth runs a command that must succeed and returns its stdout and
// stderr together.
func (h *e2eHost) runBoth(dir, name string, args ...string) string {
	h.t.Helper()
	out, err := h.command(dir, nil, name, args...).CombinedOutput()
	if err != nil {
		h.t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestSandboxCachesOff: caches = false in config.toml turns the project's
// caches off: what a session writes there is lost, as in the rest of the
// private home, and no caches directory is made. A repository's
// .claudebox.toml may not say it.
func TestSandboxCachesOff(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "p")
	h.gitRepo(proj)
	h.write(filepath.Join(h.home, ".config", "claudebox", "config.toml"), "caches = false\n")
	h.inside(proj, nil, cachePlant)
	if out := h.inside(proj, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("with caches = false, a session finds:\n%s", out)
	}
	if paths.Exists(filepath.Join(h.home, ".claudebox", instance.CacheRecords)) {
		t.Error("with caches = false, a caches directory was made")
	}
	h.write(filepath.Join(proj, ".claudebox.toml"), "caches = false\n")
	if out, err := h.command(proj, nil, "claudebox", "--shell", "-c", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "caches is yours to set") {
		t.Errorf("a repository's caches = false: %v\n%s", err, out)
	}
}

// TestReplayCachesHostileTree: the agent leaves in its caches what the
// host's walks meet later (--list's and --check's sizes, --gc --caches's
// removal): a FIFO, a symlink loop, a link to the host's root, a tree
// whose paths run past PATH_MAX and a directory without permissions at
// its bottom.
// Host-side proof: --list and --check end (no FIFO opened, no link
// followed), and --gc --caches removes the whole tree, the host's files
// untouched.
func TestReplayCachesHostileTree(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "a")
	h.gitRepo(proj)
	keep := filepath.Join(h.home, "keep")
	h.write(filepath.Join(keep, "file"), "the host's\n")
	h.inside(proj, nil, `set -e; cd ~/.cache && mkfifo fifo && ln -s loop loop && ln -s / root && ln -s `+keep+` keep
		n=$(printf 'd%.0s' $(seq 200)); mkdir deep && cd deep && for i in $(seq 40); do mkdir $n; cd $n; done; mkdir locked; touch locked/f; chmod 0 locked`)
	var insts []gc.Instance
	if err := json.Unmarshal([]byte(h.run(h.home, nil, "claudebox", "--list", "--json")), &insts); err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 || insts[0].CacheBytes == 0 {
		t.Errorf("--list: %+v", insts)
	}
	h.command(proj, nil, "claudebox", "--check").Run()
	if out := h.runBoth(h.home, "claudebox", "--gc", "--caches"); !strings.Contains(out, "1 removed") {
		t.Errorf("--gc --caches: %s", out)
	}
	if paths.Exists(instance.CachesDir(filepath.Join(h.home, ".claudebox"), proj)) {
		t.Error("--gc --caches left the hostile tree")
	}
	if b, err := os.ReadFile(filepath.Join(keep, "file")); err != nil || string(b) != "the host's\n" {
		t.Errorf("--gc --caches followed a link to the host's files: %q %v", b, err)
	}
}

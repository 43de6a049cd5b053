package replay

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

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
	h := harness.NewHost(t)
	a := filepath.Join(h.Home, "code", "a")
	b := filepath.Join(h.Home, "code", "b")
	h.GitRepo(a)
	h.GitRepo(b)
	for _, d := range []string{".cache/go-build", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches"} {
		h.Write(filepath.Join(h.Home, d, "host-entry"), "the host's own cache\n")
	}
	hostCaches := func() string {
		sum := sha256.New()
		for _, d := range []string{".cache", "go", ".npm", ".cargo", ".m2", ".gradle"} {
			filepath.WalkDir(filepath.Join(h.Home, d), func(p string, e fs.DirEntry, err error) error {
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

	out := h.Inside(a, nil, cachePlant)
	if strings.Contains(out, "SEEN") || strings.Contains(out, "CANNOT") {
		t.Fatalf("the first session of a saw or could not write:\n%s", out)
	}
	state := filepath.Join(h.Home, ".claudebox")
	if !paths.Exists(filepath.Join(instance.CachesDir(state, a), "go-mod", "planted")) {
		t.Fatalf("no cache of a under %s", instance.CachesDir(state, a))
	}
	out = h.Inside(a, nil, cachePlant)
	for _, d := range []string{".cache/go-build", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches"} {
		if !strings.Contains(out, "SEEN "+filepath.Join(h.Home, d)+"/planted") {
			t.Errorf("the second session of a does not find its ~/%s:\n%s", d, out)
		}
	}
	if out := h.Inside(b, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("project b sees a cache it did not write:\n%s", out)
	}
	if after := hostCaches(); after != before {
		t.Error("the host's own caches changed")
	}

	var insts []gc.Instance
	if err := json.Unmarshal([]byte(h.Run(h.Home, nil, "claudebox", "--list", "--json")), &insts); err != nil {
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
	keep := filepath.Join(h.Home, "keep")
	h.Write(filepath.Join(keep, "file"), "the host's\n")
	h.Inside(a, nil, `mkdir -p ~/go/pkg/mod/ro/sub ~/.cache/none && touch ~/go/pkg/mod/ro/sub/f && chmod 555 ~/go/pkg/mod/ro/sub ~/go/pkg/mod/ro && chmod 0 ~/.cache/none
		ln -s `+keep+` ~/.npm/dirlink && ln -s `+keep+`/file ~/.npm/filelink`)
	if out := h.RunBoth(h.Home, "claudebox", "--gc", "--caches"); !strings.Contains(out, "2 removed") {
		t.Errorf("--gc --caches: %s", out)
	}
	if out := h.Inside(a, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("after --gc --caches a still finds:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(keep, "file")); err != nil || string(b) != "the host's\n" {
		t.Errorf("--gc --caches followed a link to the host's files: %q %v", b, err)
	}
	os.RemoveAll(b)
	h.RunBoth(h.Home, "claudebox", "--gc")
	if paths.Exists(instance.CachesDir(state, b)) || !paths.Exists(instance.CachesDir(state, a)) {
		t.Error("--gc did not remove the caches of the project gone, or removed another's")
	}
}

// TestSandboxCachesOff: caches = false in config.toml turns the project's
// caches off: what a session writes there is lost, as in the rest of the
// private home, and no caches directory is made. A repository's
// .claudebox.toml may not say it.
func TestSandboxCachesOff(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "caches = false\n")
	h.Inside(proj, nil, cachePlant)
	if out := h.Inside(proj, nil, cachePlant); strings.Contains(out, "SEEN") {
		t.Errorf("with caches = false, a session finds:\n%s", out)
	}
	if paths.Exists(filepath.Join(h.Home, ".claudebox", instance.CacheRecords)) {
		t.Error("with caches = false, a caches directory was made")
	}
	h.Write(filepath.Join(proj, ".claudebox.toml"), "caches = false\n")
	if out, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "caches is yours to set") {
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
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "a")
	h.GitRepo(proj)
	keep := filepath.Join(h.Home, "keep")
	h.Write(filepath.Join(keep, "file"), "the host's\n")
	h.Inside(proj, nil, `set -e; cd ~/.cache && mkfifo fifo && ln -s loop loop && ln -s / root && ln -s `+keep+` keep
		n=$(printf 'd%.0s' $(seq 200)); mkdir deep && cd deep && for i in $(seq 40); do mkdir $n; cd $n; done; mkdir locked; touch locked/f; chmod 0 locked`)
	var insts []gc.Instance
	if err := json.Unmarshal([]byte(h.Run(h.Home, nil, "claudebox", "--list", "--json")), &insts); err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 || insts[0].CacheBytes == 0 {
		t.Errorf("--list: %+v", insts)
	}
	h.Command(proj, nil, "claudebox", "--check").Run()
	if out := h.RunBoth(h.Home, "claudebox", "--gc", "--caches"); !strings.Contains(out, "1 removed") {
		t.Errorf("--gc --caches: %s", out)
	}
	if paths.Exists(instance.CachesDir(filepath.Join(h.Home, ".claudebox"), proj)) {
		t.Error("--gc --caches left the hostile tree")
	}
	if b, err := os.ReadFile(filepath.Join(keep, "file")); err != nil || string(b) != "the host's\n" {
		t.Errorf("--gc --caches followed a link to the host's files: %q %v", b, err)
	}
}

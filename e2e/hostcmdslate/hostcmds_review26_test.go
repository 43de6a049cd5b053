package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26PackageAsideInPart: across filesystems the exit audit
// moved a directory aside (a package the session installed) file by file,
// copying and removing each; one it could not copy (over the bound of
// what it copies, or the disk full) stopped it part way, and what
// remained was renamed beside itself: the files already copied were gone
// from the project, and the exit said the package was moved aside to
// ~/.claudebox, where a part of it was, and nowhere named the rest.
// Host-side proof: with ~/.claudebox on a filesystem of its own, the
// package's files are together, whole, in a directory the exit names.
func TestReplayReview26PackageAsideInPart(t *testing.T) {
	h, proj, _ := harness.SmallStateDisk(t)
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e; mkdir -p node_modules/evil; echo '{"a":1}' > node_modules/evil/a.json; echo '{"b":2}' > node_modules/evil/b.json; truncate -s 2G node_modules/evil/zz.bin`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if !namesWhole(out, "evil") {
		t.Errorf("no directory the exit names holds the package whole:\n%s", out)
	}
}

// namesWhole says a directory out names, or its entry pkg, holds the
// package the session left: a.json and b.json with their content and
// zz.bin of 2 GiB.
func namesWhole(out, pkg string) bool {
	for _, word := range strings.Fields(out) {
		word = strings.TrimRight(word, ":,")
		if !filepath.IsAbs(word) {
			continue
		}
		for _, dir := range []string{word, filepath.Join(word, pkg)} {
			a, _ := os.ReadFile(filepath.Join(dir, "a.json"))
			b, _ := os.ReadFile(filepath.Join(dir, "b.json"))
			zz, err := os.Stat(filepath.Join(dir, "zz.bin"))
			if string(a) == "{\"a\":1}\n" && string(b) == "{\"b\":2}\n" && err == nil && zz.Size() == 2<<30 {
				return true
			}
		}
	}
	return false
}

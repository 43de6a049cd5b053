package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview39PackDirectoryEntries: of what a session wrote in
// .git/objects/pack, the exit judged packs, their indexes and the
// multi-pack-index, and passed over every other name, though git reads
// more there and trusts it: a pack's reverse index (.rev, which git
// 2.31 reads where it finds one and git 2.41 writes at every repack), a
// bitmap, and git 2.47's incremental multi-pack index
// (multi-pack-index.d/multi-pack-index-chain and its layers), which maps
// object names to packs and offsets as a multi-pack-index does. The
// session reverses the reverse index of the project's pack in place and
// plants a chain: git status says nothing, and the host's next git gc
// (the auto gc a commit starts) failed ("bad offset for revindex", the
// repack fatal), and failed again at every commit. Now every name there but a pack, its indexes
// checked, and what git reads only as a flag or never reads is a finding:
// moved aside, named. Host-side proof: after the session git gc and git
// fsck succeed, and nothing but git's own names is left in the pack
// directory.
func TestReplayReview39PackDirectoryEntries(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	for i := 1; i <= 4; i++ {
		h.Write(filepath.Join(proj, "notes.txt"), strings.Repeat("a line of notes\n", 200*i))
		h.Run(proj, nil, "git", "add", "notes.txt")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "notes")
	}
	h.Run(proj, nil, "git", "-c", "pack.writeReverseIndex=true", "repack", "-adq")
	said, _ := h.Command(proj, nil, "claudebox", "--shell", "-c", `set -e
		cd .git/objects/pack
		rev=$(ls pack-*.rev)
		chmod u+w "$rev"
		python3 - "$rev" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, 'rb').read())
n = (len(b) - 12 - 40) // 4
order = [struct.unpack('>I', b[12 + 4 * i:16 + 4 * i])[0] for i in range(n)]
order.reverse()
for i, v in enumerate(order):
    b[12 + 4 * i:16 + 4 * i] = struct.pack('>I', v)
open(path, 'r+b').write(b)
PY
		mkdir multi-pack-index.d
		layer=$(printf layer | sha1sum | cut -c1-40)
		echo $layer > multi-pack-index.d/multi-pack-index-chain
		printf MIDX > multi-pack-index.d/multi-pack-index-$layer.midx
		printf BITM > "${rev%.rev}.bitmap"
		cd ../../..
		test -z "$(git status --porcelain)" && echo PLANTED`).CombinedOutput()
	out := string(said)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the pack directory could not be written here:\n%s", out)
	}
	var left []string
	filepath.WalkDir(filepath.Join(proj, ".git", "objects", "pack"), func(path string, d os.DirEntry, err error) error {
		if name := filepath.Base(path); err == nil && !d.IsDir() && (strings.HasPrefix(name, "multi-pack-index") || strings.HasSuffix(name, ".bitmap")) {
			left = append(left, path)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("the session's %q are left in the pack directory:\n%s", left, out)
	}
	gc, gcErr := h.Command(proj, nil, "git", "gc", "-q").CombinedOutput()
	fsck, fsckErr := h.Command(proj, nil, "git", "fsck", "--no-progress").CombinedOutput()
	if gcErr != nil || fsckErr != nil {
		t.Errorf("the host's git gc (%v) or git fsck (%v) failed after the session:\n%s\n%s", gcErr, fsckErr, gc, fsck)
	}
	if !strings.Contains(out, "multi-pack-index-chain") || !strings.Contains(out, "hint: git works without a commit-graph, multi-pack-index, bitmap or reverse index") {
		t.Errorf("the end does not name the chain it moved aside, nor say git makes it again:\n%s", out)
	}
}

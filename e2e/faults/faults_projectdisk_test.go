package faults

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayFaultsProjectDiskFull: the project on a full filesystem (a
// small tmpfs, full of blocks, or of inodes), the launch, which makes its
// stand-ins and the keeper of .git/worktrees there, fails. Host-side
// proof: it refuses in one line naming the project's disk, the session
// never ran, nothing is moved aside or left behind (a keeper it made half,
// its lock file empty, was taken by the failed launch's cleanup for what
// the session left, moved aside and named with the mv that put it back);
// once there is room the next launch works.
func TestReplayFaultsProjectDiskFull(t *testing.T) {
	for _, fill := range []string{"blocks", "inodes"} {
		t.Run(fill, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			harness.Must(t, os.MkdirAll(proj, 0o700))
			if err := syscall.Mount("tmpfs", proj, "tmpfs", 0, "size=8m,nr_inodes=400,mode=700"); err != nil {
				t.Skipf("cannot mount a tmpfs (needs root): %v", err)
			}
			t.Cleanup(func() { syscall.Unmount(proj, syscall.MNT_DETACH) })
			h.Write(filepath.Join(proj, "README"), "hi\n")
			h.GitRepo(proj)
			full := filepath.Join(proj, "full")
			harness.Must(t, os.Mkdir(full, 0o700))
			if fill == "blocks" {
				if f, err := os.Create(filepath.Join(full, "big")); err == nil {
					for _, err := f.Write(make([]byte, 1<<16)); err == nil; _, err = f.Write(make([]byte, 1<<16)) {
					}
					f.Close()
				}
			} else {
				for i := 0; os.WriteFile(filepath.Join(full, strconv.Itoa(i)), nil, 0o600) == nil; i++ {
				}
			}
			h.Chown()
			var out harness.Output
			s := h.Command(proj, nil, "claudebox", "--shell", "-c", "echo SESSION-COMMAND-RAN")
			s.Stdout, s.Stderr = &out, &out
			if err := s.Run(); err == nil || strings.Contains(out.String(), "SESSION-COMMAND-RAN") {
				t.Fatalf("a launch on a full project disk went ahead: %v\n%s", err, out.String())
			}
			said := out.String()
			if !strings.Contains(said, "claudebox: the disk holding "+proj+" is full") || strings.Count(said, "claudebox: ") != 1 {
				t.Errorf("the refusal is not one line naming the project's disk:\n%s", said)
			}
			if strings.Contains(said, "moved aside") || len(harness.Globs(filepath.Join(h.Home, ".claudebox", "moved-aside"), "*")) > 0 {
				t.Errorf("the failed launch moved something aside:\n%s", said)
			}
			for _, n := range append(guard.WorkTreeNames(), ".git/worktrees/"+instance.WorktreesKeeper) {
				if p := filepath.Join(proj, n); paths.Exists(p) && (instance.IsPlaceholder(p) || strings.HasSuffix(n, instance.WorktreesKeeper)) {
					t.Errorf("the failed launch left %s", n)
				}
			}
			os.RemoveAll(full)
			if got := h.Inside(proj, nil, "echo the next ran"); !strings.Contains(got, "the next ran") {
				t.Errorf("the next launch: %s", got)
			}
		})
	}
}

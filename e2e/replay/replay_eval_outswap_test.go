package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayEvalOutSwapped: the user keeps an eval's output (--out) in
// another project, where a session of that project runs. Its agent
// (played here by a goroutine, which can do only what it can: rename and
// make symlinks in its project) swaps every directory of the run's folder
// for a symlink to the user's home-like victim directory, over and over,
// while the run writes plan.sh, its transcript, session/ and artifacts/,
// and removes from them what the host would obey (a .bashrc, planted by
// the run's own agent). Written by path from the root, those writes and
// removals went through the links.
// Host-side proof: the victim directory stays byte-identical: nothing
// written, removed or added there.
func TestReplayEvalOutSwapped(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	victim := filepath.Join(h.Home, "victim")
	h.Write(filepath.Join(victim, ".bashrc"), "# the user's\n")
	h.Write(filepath.Join(victim, "keep.txt"), "mine\n")
	out := filepath.Join(h.Home, "code", "other", "evals")
	h.Write(filepath.Join(out, ".keep"), "")
	before, listed := harness.TreeDigest(t, victim), harness.TreeListing(t, victim)
	plant := "mkdir -p d1/d2 && printf 'touch PWNED\\n' > .bashrc && echo x > d1/d2/planted.txt && echo y > planted.txt && mkdir -p ~/.claude/projects/x && printf 'touch PWNED\\n' > ~/.claude/projects/x/.bashrc"
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !stop.Load(); n++ {
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err != nil || p == out || !d.IsDir() || strings.Contains(filepath.Base(p), ".moved") {
					return nil
				}
				if os.Rename(p, fmt.Sprintf("%s.moved%d", p, n)) == nil && os.Symlink(victim, p) == nil {
					swaps.Add(1)
				}
				return filepath.SkipDir
			})
		}
	}()
	b, _ := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--permission-mode", "bypassPermissions").CombinedOutput()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d swaps:\n%s", swaps.Load(), b)
	if swaps.Load() == 0 {
		t.Fatalf("no directory of the run's folder was swapped:\n%s", b)
	}
	if harness.TreeDigest(t, victim) != before {
		var names []string
		filepath.WalkDir(victim, func(p string, _ os.DirEntry, _ error) error {
			names = append(names, p)
			return nil
		})
		t.Errorf("the victim directory changed (%d swaps); it holds:\n%s\nit held:\n%s\nthe run:\n%s", swaps.Load(), strings.Join(names, "\n"), listed, b)
	}
}

package hostcmds

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
)

// TestReplaySparseIndexesTracked: the exit audit reads one index at a
// time (TestReplayReview13hSparseIndexes), but its look at whether a
// changed makefile is tracked read the nearest repository's index apart
// from that bound, in each walker of the project's top directories at
// once. The project has a Makefile in each of four top directories; the
// session makes each of them a repository whose index is a sparse file of
// 256 MiB, and changes the Makefiles: the audit held an index for each
// walker at once. Host-side proof: the session (its supervisor given 4
// processors) ends having used under 768 MiB.
func TestReplaySparseIndexesTracked(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	for i := 1; i <= 4; i++ {
		h.Write(filepath.Join(proj, "d"+strconv.Itoa(i), "Makefile"), "all:\n")
	}
	h.Chown()
	h.GitRepo(proj)
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(h.Bin, "maxrss"), 0o755)
	session := h.Command(proj, []string{"GOMAXPROCS=4"}, "maxrss", "claudebox", "--shell", "-c", `set -e
		until [ -e go ]; do sleep 0.05; done
		for i in 1 2 3 4; do
			mkdir -p d$i/.git/objects
			echo 'ref: refs/heads/main' > d$i/.git/HEAD
			truncate -s 268435456 d$i/.git/index
			echo 'x:' >> d$i/Makefile
		done
		echo MADE`)
	var out strings.Builder
	session.Stdout, session.Stderr = &out, &out
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	defer session.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- session.Wait() }()
	// The start's record, which says the Makefiles were there.
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	record := filepath.Join(filepath.Dir(filepath.Dir(inst)), "live", filepath.Base(inst)+".snapshot")
	harness.WaitFor(t, "the start's record", func() bool { _, err := os.Stat(record); return err == nil || len(exited) > 0 })
	if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := <-exited
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	rss, perr := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "maxrss "))
	if err != nil || perr != nil || !strings.Contains(out.String(), "MADE") {
		t.Fatalf("the session: %v %v\n%s", err, perr, out.String())
	}
	if rss > 768<<10 {
		t.Errorf("the exit audit took %d MiB of memory for the indexes it read to tell what is tracked:\n%s", rss>>10, out.String())
	}
	if !strings.Contains(out.String(), "d1/Makefile") {
		t.Errorf("the changed Makefile is no finding:\n%s", out.String())
	}
}

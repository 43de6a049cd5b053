package hostcmds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// listedBytes runs --list --json in dir: the size it reports of the
// instance of root, with the run's time and peak memory (KiB).
func listedBytes(t *testing.T, h *harness.Host, dir, root string) (int64, time.Duration, int64) {
	t.Helper()
	c := h.Command(dir, nil, "claudebox", "--list", "--json")
	start := time.Now()
	out, err := c.Output()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("--list --json: %v\n%s", err, out)
	}
	var insts []struct {
		Root  string `json:"root"`
		Bytes int64  `json:"bytes"`
	}
	harness.Must(t, json.Unmarshal(out, &insts))
	for _, in := range insts {
		if in.Root == root {
			return in.Bytes, took, c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
		}
	}
	t.Fatalf("--list --json does not list %s:\n%s", root, out)
	return 0, 0, 0
}

// TestReplayReview21ListSizesAllocated: --list and --gc report each
// instance's size, from what the sandbox left in it. The attack, from
// inside: a sparse file of 1 TiB and 400 hard links to a 4 MiB file
// (--list said 2.0 TiB; links and holes cost the disk nothing). Proof:
// the size is what the instance takes on disk, about 4 MiB.
func TestReplayReview21ListSizesAllocated(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		truncate -s 1T $d/sparse
		head -c 4194304 /dev/urandom > $d/real
	`)
	// Hard links the sandbox can no longer make (seccomp answers link
	// with EXDEV), as one before that rule left them.
	planted := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "-planted")
	for i := 1; i <= 400; i++ {
		harness.Must(t, os.Link(filepath.Join(planted, "real"), filepath.Join(planted, fmt.Sprintf("link-%d", i))))
	}
	bytes, took, peak := listedBytes(t, h, proj, proj)
	t.Logf("--list: %d bytes, %v, peak %d KiB", bytes, took, peak)
	if bytes < 4<<20 || bytes > 16<<20 {
		t.Errorf("--list sizes the instance at %d bytes, want about the 4 MiB it takes on disk", bytes)
	}
}

// TestReplayReview21DeepInstance: --list sizes an instance by walking it,
// and --gc removes it when its project is gone. The attack, from inside:
// 30,000 directories one in another, 32 MiB at the bottom (--list stopped
// at about 2,000 levels, where the path it opened by grew past the
// kernel's limit: it counted 8 MiB, those levels' own). Proof: --list
// counts the 32 MiB, and --gc, once the project is gone, removes it all.
func TestReplayReview21DeepInstance(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Inside(proj, nil, `python3 -c '
import os
os.chdir(os.path.expanduser("~/.claude/projects"))
for i in range(30000):
    os.mkdir("d")
    os.chdir("d")
with open("bottom", "wb") as f:
    f.write(os.urandom(32 << 20))
'`)
	bytes, took, peak := listedBytes(t, h, h.Home, proj)
	t.Logf("--list: %d bytes, %v, peak %d KiB", bytes, took, peak)
	if bytes < 32<<20 {
		t.Errorf("--list sizes the instance at %d bytes, without the 32 MiB at its bottom", bytes)
	}
	harness.Must(t, os.RemoveAll(proj))
	start := time.Now()
	out, err := h.Bounded(h.Home, "--gc")
	t.Logf("--gc: %v", time.Since(start))
	if err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("--gc: %v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "projects", "*")); len(left) != 0 {
		t.Errorf("--gc left %v", left)
	}
}

// TestReplayReview21MergeBounded: --move --merge carries an old
// instance's sessions into the new root's, each entry both hold left in
// the old one and named. The attack, from sessions in both projects:
// 200,000 names in one of Claude Code's project directories of each
// (links to a few files: they cost no disk): the merge read each listing
// whole and named every entry it left, in one error of 200,000 lines.
// Proof: the merge says how many it left, naming a few, in a bounded
// output, its peak memory within 16 MiB of --list's.
func TestReplayReview21MergeBounded(t *testing.T) {
	h := harness.NewHost(t)
	old, proj := filepath.Join(h.Home, "code", "old"), filepath.Join(h.Home, "code", "new")
	h.GitRepo(old)
	h.GitRepo(proj)
	flood := `
import os
os.chdir(os.path.expanduser("~/.claude/projects"))
os.mkdir("-flood")
for i in range(200000):
    if i % 50000 == 0:
        open("-flood/f%d" % i, "w").close()
    os.link("-flood/f%d" % (i - i % 50000), "-flood/%06d-%s" % (i, "n" * 60))
`
	linkInInstance(h, old, flood)
	linkInInstance(h, proj, flood)
	harness.Must(t, os.RemoveAll(old))
	_, _, base := listedBytes(t, h, proj, proj)
	c := h.Command(proj, nil, "claudebox", "--move", old, "--merge")
	start := time.Now()
	out, err := c.CombinedOutput()
	peak := c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("--move --merge: %v, peak %d KiB (--list %d KiB), %d bytes of output", time.Since(start), peak, base, len(out))
	if err == nil || !strings.Contains(string(out), "200004 entries") {
		t.Errorf("--move --merge does not say it left the 200,000 entries: %v\n%.2000s", err, out)
	}
	if len(out) > 16<<10 {
		t.Errorf("--move --merge printed %d bytes", len(out))
	}
	if peak-base > 16<<10 {
		t.Errorf("--move --merge took %d KiB at its peak, --list %d", peak, base)
	}
}

// TestReplayReview21MoveTopListing: --move renames, in the instance, each
// of Claude Code's directories named after a working directory under the
// old root. The attack, from inside: 300,000 names beside them (links to
// a few files: they cost no disk): the move read the instance's listing
// whole. Proof: its peak memory stays within 16 MiB of --list's.
func TestReplayReview21MoveTopListing(t *testing.T) {
	h := harness.NewHost(t)
	old, proj := filepath.Join(h.Home, "code", "old"), filepath.Join(h.Home, "code", "new")
	h.GitRepo(old)
	h.GitRepo(proj)
	linkInInstance(h, old, `
import os
os.chdir(os.path.expanduser("~/.claude/projects"))
for i in range(300000):
    if i % 50000 == 0:
        open("f%d" % i, "w").close()
    os.link("f%d" % (i - i % 50000), "%06d-%s" % (i, "n" * 60))
`)
	harness.Must(t, os.RemoveAll(old))
	_, _, base := listedBytes(t, h, h.Home, old)
	c := h.Command(proj, nil, "claudebox", "--move", old)
	start := time.Now()
	out, err := c.CombinedOutput()
	peak := c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("--move: %v, peak %d KiB (--list %d KiB)", time.Since(start), peak, base)
	if err != nil {
		t.Fatalf("--move: %v\n%.2000s", err, out)
	}
	if peak-base > 16<<10 {
		t.Errorf("--move took %d KiB at its peak, --list %d", peak, base)
	}
}

// TestReplayReview21ExportSubagentsBounded: --export, and the export at
// a session's end, render each subagent's transcript after the session's.
// The attack, from inside: one session with 400 subagents, each a name of
// one transcript of 20,000 records (links: they cost no disk); every
// subagent was read and rendered, without a bound on how many.
// Proof: the export reads the subagents' transcripts up to one
// transcript's bound in all, and says it left the rest out.
func TestReplayReview21ExportSubagentsBounded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	linkInInstance(h, proj, `
import os
d = os.path.expanduser("~/.claude/projects/-planted")
s = "00000000-0000-4000-8000-000000000007"
os.makedirs(d + "/" + s + "/subagents")
with open(d + "/" + s + ".jsonl", "w") as f:
    f.write("{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n")
a = d + "/" + s + "/subagents/agent-a0.jsonl"
with open(a, "w") as f:
    p = "null"
    for i in range(20000):
        f.write("{\"type\":\"assistant\",\"uuid\":\"x%d\",\"parentUuid\":%s,\"message\":{\"id\":\"m%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"line %d\"}]}}\n" % (i, p, i, i))
        p = "\"x%d\"" % i
for i in range(1, 400):
    os.link(a, d + "/" + s + "/subagents/agent-a%d.jsonl" % i)
`)
	out := filepath.Join(h.Home, "export.md")
	start := time.Now()
	msg, err := h.Bounded(proj, "--export", "00000000-0000-4000-8000-000000000007", "-o", out)
	fi, _ := os.Stat(out)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	t.Logf("--export: %v, %d bytes written", time.Since(start), size)
	if err != nil {
		t.Fatalf("--export: %v\n%.2000s", err, msg)
	}
	if size > 16<<20 {
		t.Errorf("--export wrote %d bytes", size)
	}
	if md, _ := os.ReadFile(out); !strings.Contains(string(md), "more subagents were left out") {
		t.Errorf("--export does not say it left subagents out")
	}
}

// linkInInstance runs the python3 script, which makes hard links in the
// sandbox's ~/.claude/projects, on the host as the user, in the instance
// of proj that is that directory inside: the sandbox can no longer link
// (seccomp answers EXDEV), and this is what a claudebox before that rule
// let it leave.
func linkInInstance(h *harness.Host, proj, script string) {
	h.T.Helper()
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	if _, err := os.Stat(inst); err != nil {
		h.Inside(proj, nil, "true")
	}
	h.Run(proj, nil, "python3", "-c", strings.ReplaceAll(script, `os.path.expanduser("~/.claude/projects`, `("`+inst))
}

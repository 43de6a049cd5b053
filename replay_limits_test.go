package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// forkUpTo is a script for inside the sandbox: it forks children that
// sleep until it has N or a fork fails, says how many it started, and
// ends them.
const forkUpTo = `perl -e 'my @kids; for (1..$ARGV[0]) { my $p = fork(); last unless defined $p; if (!$p) { sleep 30; exit 0 } push @kids, $p } print "started ", scalar(@kids), "\n"; kill "KILL", @kids' `

// A fork bomb inside stops at the sandbox's bound on tasks, and the
// host's own processes of the same user do not count against it: with
// sixty of them already running, the sandbox still starts up to its bound
// and no further.
func TestReplayLimitsPids(t *testing.T) {
	h := newE2EHost(t)
	requireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	for range 60 {
		c := h.command(proj, nil, "sleep", "60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	for _, network := range []string{"filtered", "host"} {
		out := h.run(proj, nil, "claudebox", "--network", network, "--pids", "50", "--shell", "-c", forkUpTo+"80")
		n := startedCount(t, out)
		if n >= 50 || n < 30 {
			t.Errorf("--network %s --pids 50: the sandbox started %d processes beside the host's sixty, want 30-49:\n%s", network, n, out)
		}
	}
	// The default bound: far above what the host's processes make, so the
	// eighty start.
	if out := h.run(proj, nil, "claudebox", "--shell", "-c", forkUpTo+"80"); startedCount(t, out) != 80 {
		t.Errorf("the default bound stopped eighty processes:\n%s", out)
	}
}

// A process inside cannot take more memory than --memory gives it, nor
// run on more processors than --cpus, nor raise either bound.
func TestReplayLimitsMemoryCPUs(t *testing.T) {
	h := newE2EHost(t)
	requireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	start := time.Now()
	out := h.run(proj, nil, "claudebox", "--memory", "64M", "--cpus", "1", "--shell", "-c", `
		perl -e '$x = "x" x (200 * 1024 * 1024); print "HOG ALLOCATED\n"' 2>&1 || echo "hog refused"
		echo "cpus $(nproc)"
		ulimit -d unlimited 2>/dev/null && echo "RAISED DATA" || echo "data stays"
		ulimit -u unlimited 2>/dev/null && echo "RAISED NPROC" || echo "nproc stays"
	`)
	for _, want := range []string{"hog refused", "cpus 1", "data stays", "nproc stays"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q inside:\n%s", want, out)
		}
	}
	t.Logf("session with a refused 200 MiB hog: %v", time.Since(start))
}

// startedCount reads forkUpTo's answer.
func startedCount(t *testing.T, out string) int {
	t.Helper()
	var n int
	for _, line := range strings.Split(out, "\n") {
		if _, err := fmt.Sscanf(line, "started %d", &n); err == nil {
			return n
		}
	}
	t.Fatalf("no count in:\n%s", out)
	return 0
}

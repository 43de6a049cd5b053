package hostcmds

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
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
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	for range 60 {
		c := h.Command(proj, nil, "sleep", "60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	for _, network := range []string{"filtered", "host"} {
		out := h.Run(proj, nil, "claudebox", "--network", network, "--pids", "50", "--shell", "-c", forkUpTo+"80")
		n := startedCount(t, out)
		if n >= 50 || n < 30 {
			t.Errorf("--network %s --pids 50: the sandbox started %d processes beside the host's sixty, want 30-49:\n%s", network, n, out)
		}
	}
	// The default bound: far above what the host's processes make, so the
	// eighty start.
	if out := h.Run(proj, nil, "claudebox", "--shell", "-c", forkUpTo+"80"); startedCount(t, out) != 80 {
		t.Errorf("the default bound stopped eighty processes:\n%s", out)
	}
}

// A process inside cannot take more memory than --memory gives it, nor
// run on more processors than --cpus, nor raise either bound, nor mount
// the cgroup file system where a cgroup's bounds are written.
func TestReplayLimitsMemoryCPUs(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	start := time.Now()
	out := h.Run(proj, nil, "claudebox", "--memory", "64M", "--cpus", "1", "--shell", "-c", `
		perl -e '$x = "x" x (200 * 1024 * 1024); print "HOG ALLOCATED\n"' 2>&1 || echo "hog refused"
		echo "cpus $(nproc)"
		ulimit -d unlimited 2>/dev/null && echo "RAISED DATA" || echo "data stays"
		ulimit -u unlimited 2>/dev/null && echo "RAISED NPROC" || echo "nproc stays"
		mkdir -p /tmp/cg && mount -t cgroup2 none /tmp/cg 2>/dev/null && echo "MOUNTED CGROUP" || echo "no cgroup mount"
	`)
	for _, want := range []string{"hog refused", "cpus 1", "data stays", "nproc stays", "no cgroup mount"} {
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

// A memory hog that is the session's command, under --memory with no
// cgroup (the e2e user is delegated none): the session ends with its
// failure, and a message naming the bound and how to raise it.
func TestReplayLimitsMemoryMessage(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--memory", "64M", "--shell", "-c", `perl -e '$x = "x" x (200 * 1024 * 1024)'`)
	c.Stderr = &stderr
	if err := c.Run(); err == nil {
		t.Fatalf("the hog's session succeeded:\n%s", stderr.String())
	}
	for _, want := range []string{
		"claudebox: the sandbox's command failed (status ",
		"); if it ran out of memory, each process inside may use 64M (--memory)\n",
		"hint: give it more: claudebox --memory 128M, or memory = \"128M\" in config.toml\n",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("want %q in:\n%s", want, stderr.String())
		}
	}
}

// delegatedCgroup delegates a cgroup v2 tree to the e2e user, as a system
// without systemd would (chown), and returns a leaf for its processes to
// start in, and the tree; it skips where the machine has no cgroup v2
// hierarchy or the test cannot delegate one.
func delegatedCgroup(t *testing.T, h *harness.Host) (leaf *os.File, tree string) {
	t.Helper()
	if h.UID < 0 {
		t.Skip("delegating a cgroup to the e2e user needs root")
	}
	mountinfo, _ := os.ReadFile("/proc/self/mountinfo")
	mount := ""
	for _, line := range strings.Split(string(mountinfo), "\n") {
		before, after, _ := strings.Cut(line, " - ")
		if f := strings.Fields(before); len(f) >= 5 && strings.HasPrefix(after, "cgroup2 ") {
			mount = f[4]
			break
		}
	}
	own, _ := os.ReadFile("/proc/self/cgroup")
	path := ""
	for _, line := range strings.Split(string(own), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if mount == "" || path == "" {
		t.Skip("the machine has no cgroup v2 hierarchy: the delegated cgroup is not tried")
	}
	tree = filepath.Join(mount, path, fmt.Sprintf("claudebox-test-%d", os.Getpid()))
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Skipf("cannot make a cgroup to delegate: %v", err)
	}
	t.Cleanup(func() {
		sub, _ := filepath.Glob(filepath.Join(tree, "*", "cgroup.procs"))
		for _, p := range sub {
			os.Remove(filepath.Dir(p))
		}
		os.Remove(tree)
	})
	if err := os.Mkdir(filepath.Join(tree, "session"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads", "session", "session/cgroup.procs", "session/cgroup.threads"} {
		if err := os.Chown(filepath.Join(tree, p), h.UID, h.GID); err != nil {
			t.Fatal(err)
		}
	}
	leaf, err := os.Open(filepath.Join(tree, "session"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { leaf.Close() })
	return leaf, tree
}

// inCgroup runs claudebox as the e2e user in cgroup leaf, and returns its
// output and error.
func inCgroup(h *harness.Host, leaf *os.File, dir string, args ...string) (string, string, error) {
	var stdout, stderr strings.Builder
	c := h.Command(dir, nil, "claudebox", args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	c.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(leaf.Fd())}
	err := c.Run()
	return stdout.String(), stderr.String(), err
}

// Where the system delegates a cgroup v2 tree to the user, the sandbox
// gets a cgroup of its own in it: --check says so; a fork bomb stops at
// --pids and a memory hog is killed at --memory, in total, each ending the
// session with a message naming the bound, while claudebox's own
// processes, outside, clean up. Where the tree lacks a controller (this
// machine's are cgroup v1's), --check names it and the rlimits apply.
func TestReplayLimitsCgroup(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	leaf, tree := delegatedCgroup(t, h)
	controllers, _ := os.ReadFile(filepath.Join(tree, "cgroup.controllers"))
	have := strings.Fields(string(controllers))
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "pids = 50\nmemory = \"64M\"\n")
	out, stderr, err := inCgroup(h, leaf, proj, "--check")
	var missing []string
	for _, c := range []string{"memory", "pids"} {
		if !slices.Contains(have, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		want := "the delegated cgroup v2 tree " + tree + " has no " + strings.Join(missing, ", ") + " controller"
		if !strings.Contains(out, want) {
			t.Fatalf("--check (%v) does not say %q:\n%s%s", err, want, out, stderr)
		}
		t.Skipf("the delegated cgroup v2 tree has no %s controller here (%q): the rlimits apply, and the cgroup's bounds are not tried", strings.Join(missing, ", "), have)
	}
	if want := "✓ limits: pids 50, memory 64M in total (through a cgroup in the delegated cgroup v2 tree " + tree + ", which claudebox's own processes stay outside)"; !strings.Contains(out, want) {
		t.Fatalf("--check (%v) does not say %q:\n%s%s", err, want, out, stderr)
	}

	_, stderr, err = inCgroup(h, leaf, proj, "--pids", "50", "--shell", "-c", forkUpTo+"80")
	if err != nil || !strings.Contains(stderr, "claudebox: the sandbox reached its bound of 50 processes and threads: ") {
		t.Errorf("a fork bomb under --pids 50 (%v):\n%s", err, stderr)
	}
	_, stderr, err = inCgroup(h, leaf, proj, "--memory", "64M", "--shell", "-c", `perl -e '$x = "x" x (200 * 1024 * 1024)'`)
	if err == nil || !strings.Contains(stderr, "claudebox: the kernel killed 1 process(es) inside for memory: the sandbox may use 64M in total (--memory)\n") {
		t.Errorf("a memory hog under --memory 64M (%v):\n%s", err, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tree, "claudebox-*")); len(left) > 0 {
		t.Errorf("the sandboxes' cgroups are left: %q", left)
	}
}

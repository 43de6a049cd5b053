package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/limits"
)

// user owns the cgroup trees cgroupHost lays out: root's are no one's.
var user = func() int {
	if os.Getuid() == 0 {
		return 12345
	}
	return os.Getuid()
}()

// cgroupHost lays out a host's view of its cgroups: mountinfo with a
// cgroup2 mount at root (unless root is ""), the process's own cgroup own,
// and the parent's controllers, owned by user.
func cgroupHost(t *testing.T, root, own, controllers string) (mountinfo, self string) {
	t.Helper()
	dir := t.TempDir()
	mountinfo, self = filepath.Join(dir, "mountinfo"), filepath.Join(dir, "cgroup")
	info := "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	if root != "" {
		info += fmt.Sprintf("30 22 0:26 / %s rw,relatime - cgroup2 cgroup2 rw\n", strings.ReplaceAll(root, " ", `\040`))
		parent := filepath.Join(root, filepath.Dir(own))
		if err := os.MkdirAll(filepath.Join(root, own), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"cgroup.controllers": controllers + "\n", "cgroup.procs": "", "cgroup.subtree_control": "\n"} {
			if err := os.WriteFile(filepath.Join(parent, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if os.Getuid() == 0 {
				os.Chown(filepath.Join(parent, name), user, user)
			}
		}
		if os.Getuid() == 0 {
			os.Chown(parent, user, user)
		}
	}
	if err := os.WriteFile(mountinfo, []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(self, []byte("4:memory:/x\n0::"+own+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return mountinfo, self
}

// The sandbox gets a cgroup of its own in the tree above claudebox's own
// cgroup only where that tree is the user's and offers the controllers
// the limits need; otherwise the reason says why not.
func TestFind(t *testing.T) {
	all := limits.Limits{Tasks: 100, Memory: 64 << 20, CPUs: 1}
	root := filepath.Join(t.TempDir(), "cgroup v2")
	mountinfo, self := cgroupHost(t, root, "/delegated/session", "cpuset cpu memory pids")
	cg, why := find(all, mountinfo, self, "", user)
	if cg == nil || cg.Parent != filepath.Join(root, "delegated") || cg.Systemd() {
		t.Fatalf("a delegated tree: %+v, %q", cg, why)
	}
	if got := cg.String(); got != "a cgroup in the delegated cgroup v2 tree "+filepath.Join(root, "delegated") {
		t.Error(got)
	}
	if cg, why := find(limits.Limits{}, mountinfo, self, "", user); cg != nil || why != "no limits asked for" {
		t.Errorf("no limits: %+v, %q", cg, why)
	}

	mountinfo, self = cgroupHost(t, filepath.Join(t.TempDir(), "v2"), "/delegated/session", "hugetlb pids")
	if cg, why := find(all, mountinfo, self, "", user); cg != nil || !strings.HasSuffix(why, "has no memory, cpu controller") {
		t.Errorf("a tree without memory and cpu: %+v, %q", cg, why)
	}
	if cg, why := find(limits.Limits{Tasks: 10}, mountinfo, self, "", user); cg == nil {
		t.Errorf("pids alone, which the tree offers: %q", why)
	}

	mountinfo, self = cgroupHost(t, "", "/", "")
	if cg, why := find(all, mountinfo, self, "", user); cg != nil || why != "no cgroup v2 hierarchy is mounted" {
		t.Errorf("no cgroup2: %+v, %q", cg, why)
	}
	mountinfo, self = cgroupHost(t, filepath.Join(t.TempDir(), "v2"), "/", "memory pids cpu")
	if cg, why := find(all, mountinfo, self, "", user); cg != nil || !strings.Contains(why, "runs in the cgroup v2 root") {
		t.Errorf("the root: %+v, %q", cg, why)
	}

	// A systemd user manager: its tree is delegated to the user.
	manager := fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service", user, user)
	v2 := filepath.Join(t.TempDir(), "v2")
	mountinfo, self = cgroupHost(t, v2, manager+"/app.slice", "memory pids cpu")
	if cg, why := find(all, mountinfo, self, "/run/user/bus", user); cg == nil || !cg.Systemd() || cg.String() != "a systemd user scope" {
		t.Errorf("a systemd user manager: %+v, %q", cg, why)
	}
}

// The tree above is someone else's, or root runs claudebox: no cgroup.
func TestFindNotDelegated(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving the tree to another user needs root")
	}
	root := filepath.Join(t.TempDir(), "v2")
	mountinfo, self := cgroupHost(t, root, "/theirs/session", "memory pids cpu")
	if err := os.Chown(filepath.Join(root, "theirs", "cgroup.subtree_control"), 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if cg, why := find(limits.Limits{Tasks: 1}, mountinfo, self, "", user); cg != nil || !strings.Contains(why, "is not delegated to you") {
		t.Errorf("%+v, %q", cg, why)
	}
	if cg, why := find(limits.Limits{Tasks: 1}, mountinfo, self, "", 0); cg != nil || !strings.Contains(why, "runs as root") {
		t.Errorf("root: %+v, %q", cg, why)
	}
}

func TestScopeArgs(t *testing.T) {
	got := ScopeArgs(42, limits.Limits{Tasks: 100, Memory: 64 << 20, CPUs: 2, Cgroup: true})
	want := []string{
		"--user", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))", "claudebox-42.scope", "fail",
		"5", "PIDs", "au", "1", "42", "MemoryMax", "t", "67108864", "MemorySwapMax", "t", "0", "TasksMax", "t", "100", "CPUQuotaPerSecUSec", "t", "2000000", "0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ScopeArgs:\n got %q\nwant %q", got, want)
	}
}

func TestEvents(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "memory.events"), []byte("low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pids.events"), []byte("max 7\n"), 0o644)
	if got := (&Group{Dir: dir}).Events(); got != (Events{OOMKills: 1, ForksRefused: 7}) {
		t.Errorf("%+v", got)
	}
}

// TestFindRemovesLeftGroups: a sandbox whose supervisor was killed leaves
// its cgroup's directory, empty; the next launch's Find removes it. A
// group whose process runs, one that holds something (the kernel refuses
// to remove a cgroup with processes; a directory with a file stands in),
// and what is not claudebox's stay.
func TestFindRemovesLeftGroups(t *testing.T) {
	root := filepath.Join(t.TempDir(), "v2")
	mountinfo, self := cgroupHost(t, root, "/delegated/session", "memory pids cpu")
	parent := filepath.Join(root, "delegated")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(parent, fmt.Sprintf("claudebox-%d", gone.ProcessState.Pid()))
	running := filepath.Join(parent, fmt.Sprintf("claudebox-%d", os.Getpid()))
	held := filepath.Join(parent, "claudebox-999999999")
	other := filepath.Join(parent, "claudebox-other")
	for _, d := range []string{dead, running, held, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(held, "cgroup.procs"), []byte("1234\n"), 0o644)
	if cg, why := find(limits.Limits{Tasks: 10}, mountinfo, self, "", user); cg == nil {
		t.Fatal(why)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead sandbox's empty cgroup stays: %v", err)
	}
	for _, d := range []string{running, held, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s went: %v", filepath.Base(d), err)
		}
	}
}

// Package cgroup gives a sandbox a cgroup of its own where the system
// delegates one to the user: its limits (package limits) then bound it as
// a whole. Apart from limits, which the pure plan imports, because it
// runs a program (busctl).
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/limits"
)

// Place is where the sandbox gets a cgroup of its own, which bounds it as
// a whole (its memory in total, not per process): a transient scope of the
// user's systemd manager, or a directory of a cgroup v2 tree delegated to
// the user. Only the sandbox's first process is moved in, before it runs
// its command: bwrap's outer process, the supervisor and the guard watcher
// stay outside, so a sandbox at its bounds never keeps them from cleaning
// up.
type Place struct {
	// Parent is the delegated directory the sandbox's cgroup is made in;
	// empty where the systemd manager makes it.
	Parent string
	// mount is the cgroup v2 hierarchy's mount point.
	mount string
}

// Systemd says whether the user's systemd manager makes the cgroup.
func (c *Place) Systemd() bool { return c.Parent == "" }

// String says the mechanism, for --check.
func (c *Place) String() string {
	if c.Systemd() {
		return "a systemd user scope"
	}
	return "a cgroup in the delegated cgroup v2 tree " + c.Parent
}

// controllers are the cgroup controllers the limits need.
func controllers(l limits.Limits) []string {
	var need []string
	if l.Memory > 0 {
		need = append(need, "memory")
	}
	if l.Tasks > 0 {
		need = append(need, "pids")
	}
	if l.CPUs > 0 {
		need = append(need, "cpu")
	}
	return need
}

// Find returns where the sandbox can get a cgroup with the limits
// l, or nil and why it cannot (then the limits set on its first process bound it).
func Find(l limits.Limits) (*Place, string) {
	return find(l, "/proc/self/mountinfo", "/proc/self/cgroup", userBus(), os.Getuid())
}

// userBus is the socket of the user's D-Bus, where a systemd user
// manager answers, or "".
func userBus() string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = fmt.Sprintf("/run/user/%d", os.Getuid())
	}
	bus := filepath.Join(dir, "bus")
	if fi, err := os.Stat(bus); err != nil || fi.Mode().Type() != os.ModeSocket {
		return ""
	}
	if _, err := exec.LookPath("busctl"); err != nil {
		return ""
	}
	return bus
}

func find(l limits.Limits, mountinfo, self, bus string, uid int) (*Place, string) {
	need := controllers(l)
	if len(need) == 0 {
		return nil, "no limits asked for"
	}
	mount := cgroup2Mount(mountinfo)
	if mount == "" {
		return nil, "no cgroup v2 hierarchy is mounted"
	}
	own := ownCgroup(self)
	if own == "" {
		return nil, "claudebox's process is in no cgroup v2 group"
	}
	// systemd's user manager runs in user@UID.service, the tree it is
	// delegated; a session's processes run beside it, in its scopes.
	if bus != "" {
		manager := fmt.Sprintf("/user@%d.service", uid)
		dir := filepath.Join(mount, "user.slice", fmt.Sprintf("user-%d.slice", uid), manager)
		if i := strings.Index(own, manager); i >= 0 {
			dir = filepath.Join(mount, own[:i+len(manager)])
		}
		if missing := lacking(dir, need); len(missing) == 0 {
			return &Place{mount: mount}, ""
		}
	}
	if own == "/" {
		return nil, "claudebox runs in the cgroup v2 root, and no systemd user manager answers"
	}
	// root owns every cgroup, delegated or not: its own is the system's.
	if uid == 0 {
		return nil, "claudebox runs as root, to whom no cgroup v2 tree is delegated, and no systemd user manager answers"
	}
	parent := filepath.Join(mount, filepath.Dir(own))
	for _, name := range []string{"", "cgroup.procs", "cgroup.subtree_control"} {
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(parent, name), &st); err != nil {
			return nil, fmt.Sprintf("cannot read the cgroup v2 tree %s: %v", parent, err)
		}
		if int(st.Uid) != uid {
			return nil, fmt.Sprintf("the cgroup v2 tree %s is not delegated to you, and no systemd user manager answers", parent)
		}
	}
	if missing := lacking(parent, need); len(missing) > 0 {
		return nil, fmt.Sprintf("the delegated cgroup v2 tree %s has no %s controller", parent, strings.Join(missing, ", "))
	}
	removeLeft(parent)
	return &Place{Parent: parent, mount: mount}, ""
}

// removeLeft removes the cgroups that sandboxes whose supervisor was
// killed left in parent: a claudebox-PID directory whose process is gone.
// The kernel removes none that still holds a process.
func removeLeft(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "claudebox-*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "claudebox-"))
		if err == nil && pid > 0 && unix.Kill(pid, 0) == unix.ESRCH {
			os.Remove(dir)
		}
	}
}

// lacking returns which of need cgroup dir does not offer its children.
func lacking(dir string, need []string) []string {
	has, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	offered := strings.Fields(string(has))
	var missing []string
	for _, c := range need {
		if !slices.Contains(offered, c) {
			missing = append(missing, c)
		}
	}
	return missing
}

// cgroup2Mount is the first cgroup2 mount point in mountinfo.
func cgroup2Mount(mountinfo string) string {
	f, err := os.Open(mountinfo)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		before, after, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(before)
		if ok && len(fields) >= 5 && strings.HasPrefix(after, "cgroup2 ") {
			return unescapeMount(fields[4])
		}
	}
	return ""
}

// unescapeMount reads mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroup is the process's cgroup v2 path, from /proc/PID/cgroup.
func ownCgroup(path string) string {
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// Group is a sandbox's own cgroup.
type Group struct {
	// Dir is its directory.
	Dir string
	// made: claudebox made the directory, and removes it.
	made bool
}

// Enter moves process pid, the sandbox's first, into a cgroup of its own
// with the limits l. Its processes are all started after, so all of them
// are inside.
func (c *Place) Enter(pid int, l limits.Limits) (*Group, error) {
	if c.Systemd() {
		return c.enterScope(pid, l)
	}
	return c.enterDelegated(pid, l)
}

func (c *Place) enterDelegated(pid int, l limits.Limits) (*Group, error) {
	enabled, _ := os.ReadFile(filepath.Join(c.Parent, "cgroup.subtree_control"))
	for _, ctl := range controllers(l) {
		if !slices.Contains(strings.Fields(string(enabled)), ctl) {
			if err := writeFile(filepath.Join(c.Parent, "cgroup.subtree_control"), "+"+ctl); err != nil {
				return nil, fmt.Errorf("cannot give the sandbox's cgroup the %s controller: %w", ctl, err)
			}
		}
	}
	g := &Group{Dir: filepath.Join(c.Parent, fmt.Sprintf("claudebox-%d", pid)), made: true}
	if err := os.Mkdir(g.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make the sandbox's cgroup: %w", err)
	}
	settings := [][2]string{}
	if l.Memory > 0 {
		// Without a bound on swap, what memory.max refuses goes to swap.
		settings = append(settings, [2]string{"memory.max", strconv.FormatInt(l.Memory, 10)}, [2]string{"memory.swap.max", "0"})
	}
	if l.Tasks > 0 {
		settings = append(settings, [2]string{"pids.max", strconv.Itoa(l.Tasks)})
	}
	if l.CPUs > 0 {
		settings = append(settings, [2]string{"cpu.max", fmt.Sprintf("%d 100000", l.CPUs*100000)})
	}
	settings = append(settings, [2]string{"cgroup.procs", strconv.Itoa(pid)})
	for _, s := range settings {
		err := writeFile(filepath.Join(g.Dir, s[0]), s[1])
		if err != nil && !(s[0] == "memory.swap.max" && errors.Is(err, os.ErrNotExist)) {
			g.Remove()
			return nil, fmt.Errorf("cannot limit the sandbox's cgroup: %s: %w", s[0], err)
		}
	}
	return g, nil
}

// ScopeArgs are busctl's arguments that ask the user's systemd manager
// for a transient scope holding process pid, with the limits l.
func ScopeArgs(pid int, l limits.Limits) []string {
	args := []string{"--user", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))", fmt.Sprintf("claudebox-%d.scope", pid), "fail"}
	props := [][]string{{"PIDs", "au", "1", strconv.Itoa(pid)}}
	if l.Memory > 0 {
		props = append(props, []string{"MemoryMax", "t", strconv.FormatInt(l.Memory, 10)}, []string{"MemorySwapMax", "t", "0"})
	}
	if l.Tasks > 0 {
		props = append(props, []string{"TasksMax", "t", strconv.Itoa(l.Tasks)})
	}
	if l.CPUs > 0 {
		props = append(props, []string{"CPUQuotaPerSecUSec", "t", strconv.Itoa(l.CPUs * 1000000)})
	}
	args = append(args, strconv.Itoa(len(props)))
	for _, p := range props {
		args = append(args, p...)
	}
	return append(args, "0")
}

// enterScope asks the user's systemd manager for the scope, and waits
// until the process is in it: the sandbox runs its command only then.
func (c *Place) enterScope(pid int, l limits.Limits) (*Group, error) {
	out, err := exec.Command("busctl", ScopeArgs(pid, l)...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("cannot make the sandbox's systemd scope: %s", strings.TrimSpace(string(out)))
	}
	scope := fmt.Sprintf("/claudebox-%d.scope", pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if own := ownCgroup(fmt.Sprintf("/proc/%d/cgroup", pid)); strings.HasSuffix(own, scope) {
			return &Group{Dir: filepath.Join(c.mount, own)}, nil
		}
	}
	return nil, fmt.Errorf("the systemd scope %s did not take the sandbox", scope[1:])
}

func writeFile(path, value string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Events are what the kernel did at a group's bounds.
type Events struct {
	// OOMKills is how many processes it killed for memory.
	OOMKills int
	// ForksRefused is how many forks it refused at pids.max.
	ForksRefused int
}

// Events reads the group's counters.
func (g *Group) Events() Events {
	return Events{
		OOMKills:     counter(filepath.Join(g.Dir, "memory.events"), "oom_kill"),
		ForksRefused: counter(filepath.Join(g.Dir, "pids.events"), "max"),
	}
}

func counter(path, key string) int {
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// Remove removes the group's directory, once its processes are gone (a
// systemd scope goes by itself).
func (g *Group) Remove() {
	if g.made {
		os.Remove(g.Dir)
	}
}

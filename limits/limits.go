// Package limits bounds what a sandbox may take of the host: its tasks,
// each process's memory, its processors. They are not mounts: they are
// set on the process that runs the sandbox's command before it runs it,
// and every process inside inherits them.
package limits

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Limits are a sandbox's bounds; a zero field is no bound.
type Limits struct {
	// Tasks bounds the sandbox's processes and threads together.
	Tasks int
	// Memory bounds each process's data (its heap and private writable
	// mappings), in bytes.
	Memory int64
	// CPUs is how many of the host's processors its processes run on.
	CPUs int
	// Cgroup: a cgroup of the sandbox's own bounds its memory, in total,
	// and its processors' time (see Cgroup); the limits set on its
	// processes bound only its tasks, again.
	Cgroup bool
}

// DefaultTasks is the bound on the sandbox's processes and threads when
// the user sets none: far above what a build or a test suite starts, low
// enough that a fork bomb inside stops there.
const DefaultTasks = 4096

// String says the limits as the user sets them, "none" without any.
func (l Limits) String() string {
	var parts []string
	if l.Tasks > 0 {
		parts = append(parts, fmt.Sprintf("pids %d", l.Tasks))
	}
	if l.Memory > 0 && l.Cgroup {
		parts = append(parts, "memory "+FormatSize(l.Memory)+" in total")
	} else if l.Memory > 0 {
		parts = append(parts, "memory "+FormatSize(l.Memory)+" per process")
	}
	if l.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("cpus %d", l.CPUs))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Flag carries the limits to the sandbox's first process (claudebox),
// which sets them on itself, on the filtered network after it started its
// relay, and before it runs the command.
const Flag = "--limits"

// Args are Flag and the limits, or nothing when there are none.
func (l Limits) Args() []string {
	l = l.onProcesses()
	if l == (Limits{}) {
		return nil
	}
	return []string{Flag, fmt.Sprintf("%d,%d,%d", l.Tasks, l.Memory, l.CPUs)}
}

// Parse reads what Args writes at the start of args.
func Parse(args []string) (Limits, []string, error) {
	if len(args) < 2 || args[0] != Flag {
		return Limits{}, args, nil
	}
	var l Limits
	f := strings.Split(args[1], ",")
	if len(f) != 3 {
		return l, nil, fmt.Errorf("%s %q: not TASKS,MEMORY,CPUS", Flag, args[1])
	}
	var err [3]error
	l.Tasks, err[0] = strconv.Atoi(f[0])
	l.Memory, err[1] = strconv.ParseInt(f[1], 10, 64)
	l.CPUs, err[2] = strconv.Atoi(f[2])
	for _, e := range err {
		if e != nil {
			return l, nil, fmt.Errorf("%s %q: %v", Flag, args[1], e)
		}
	}
	return l, args[2:], nil
}

// apply sets the limits on the caller, which must then exec on the thread
// it called apply on (see Exec). Nothing inside can raise them: a hard limit goes up only with CAP_SYS_RESOURCE in the
// host's user namespace.
//
// Tasks is RLIMIT_NPROC. The kernel checks a fork against the count of the
// user's tasks in the forking task's own user namespace, the sandbox's,
// with this limit, and against the user's whole count only with the limit
// the user had when that namespace was made: the host's own processes never
// make the sandbox's forks fail, and the sandbox's stop at the bound.
func apply(l Limits) error {
	l = l.onProcesses()
	for _, r := range []struct {
		resource int
		value    int64
	}{{unix.RLIMIT_NPROC, int64(l.Tasks)}, {unix.RLIMIT_DATA, l.Memory}} {
		if r.value <= 0 {
			continue
		}
		lim := unix.Rlimit{Cur: uint64(r.value), Max: uint64(r.value)}
		if err := unix.Prlimit(0, r.resource, &lim, nil); err != nil {
			return fmt.Errorf("cannot limit the sandbox: %w", err)
		}
	}
	if l.CPUs > 0 {
		var allowed, set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &allowed); err != nil {
			return fmt.Errorf("cannot limit the sandbox's processors: %w", err)
		}
		for cpu, n := 0, 0; cpu < len(allowed)*64 && n < l.CPUs; cpu++ {
			if allowed.IsSet(cpu) {
				set.Set(cpu)
				n++
			}
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("cannot limit the sandbox's processors: %w", err)
		}
	}
	return nil
}

// NoCores bounds the caller's core dumps, and so every process it
// starts, at one byte, soft and hard, which nothing inside can raise: a
// crash's memory would otherwise go where the host's core_pattern says,
// a file, or a pipe to a program of the host's (systemd-coredump, apport)
// run as root outside the sandbox, which keeps the image. The kernel runs
// no pipe handler for a limit of one byte, a sentinel it keeps for the
// handlers' own crashes, and no core fits in it. A process may still lower
// its soft limit to 0, for which the kernel runs a pipe handler;
// systemd-coredump then keeps no image, only that it crashed.
func NoCores() error {
	lim := unix.Rlimit{Cur: 1, Max: 1}
	if err := unix.Prlimit(0, unix.RLIMIT_CORE, &lim, nil); err != nil {
		return fmt.Errorf("cannot bound the sandbox's core dumps: %w", err)
	}
	return nil
}

// onProcesses are the limits set on the sandbox's processes: with a
// cgroup, only the bound on tasks.
func (l Limits) onProcesses() Limits {
	if l.Cgroup {
		return Limits{Tasks: l.Tasks}
	}
	return l
}

// Exec sets the limits on the calling process and execs path: the
// processors are a thread's, so both happen on one thread. Exec's strings
// are made before the limits are set, and the exec itself allocates
// nothing: under a memory bound below what the Go runtime already holds,
// its next allocation fails, and the runtime dies.
func Exec(l Limits, path string, argv, env []string) error {
	pathp, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	argvp, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return err
	}
	envp, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	if err := apply(l); err != nil {
		return err
	}
	_, _, errno := unix.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(pathp)), uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])))
	return errno
}

// FormatSize writes a size in bytes with the largest binary unit that
// divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseSize reads a size in bytes: a number, with K, M, G or T (powers of
// 1024), optionally followed by B or iB.
func ParseSize(s string) (int64, bool) {
	upper := strings.ToUpper(strings.TrimSpace(s))
	upper = strings.TrimSuffix(strings.TrimSuffix(upper, "IB"), "B")
	shift := 0
	if upper != "" {
		if i := strings.IndexByte("KMGT", upper[len(upper)-1]); i >= 0 {
			shift = 10 * (i + 1)
			upper = upper[:len(upper)-1]
		}
	}
	n, err := strconv.ParseInt(upper, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, false
	}
	return n << shift, true
}

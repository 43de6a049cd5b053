// Package seccomp builds the filter bwrap installs before running the command. It denies
// only what the namespaces cannot:
//   - TIOCSTI and TIOCLINUX ioctls, which push keystrokes into the terminal
//     the sandbox shares with the user's shell (CVE-2017-5226). bwrap's
//     --new-session would block them too, but it detaches Claude from the
//     terminal's foreground group, so a resize never reaches it;
//   - new user namespaces (clone or unshare with CLONE_NEWUSER), inside
//     which the sandbox could remount its read-only binds writable. clone3
//     passes its flags in memory a filter cannot read, so it answers ENOSYS
//     and the C library falls back to clone;
//   - the kernel key syscalls (keyctl, add_key, request_key): keyrings are
//     not namespaced, so the sandbox would read the keys the user's session
//     holds (Kerberos KEYRING: caches, others' tokens) and add its own;
//   - io_uring (setup, enter, register): a second path to the kernel's file
//     and network operations, beside the system calls, with a history of
//     local privilege escalations, closed by other sandboxes too. It
//     answers ENOSYS, as on a kernel built without it, which is what
//     libraries (libuv, liburing's users) take as "fall back to syscalls".
//   - new hard links (link, linkat), answered EXDEV, as between two
//     mounts: a file the sandbox links into another directory of the
//     project it could write through that name, and remove it, with no
//     event in the first name's directory, where the exit looks for what
//     changed. git (a local clone, its objects), cargo, pnpm and uv take
//     EXDEV for "copy (or rename) instead"; across the sandbox's binds
//     (the project, the instance, the caches) link fails so already;
//   - leases (fcntl F_SETLEASE): a process holding a write lease on a file
//     of its own holds every other open of it, the host's too, until the
//     kernel breaks the lease (45 s by default), file after file: the
//     host's git status, editor and claudebox's undo snapshot waited on
//     the project's files. Only file servers (Samba, NFS) take them.
//
// Every ABI the kernel accepts on this machine is covered: a 32-bit program
// calls ioctl by another number.
package seccomp

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// abi is one system call table.
type abi struct {
	arch                          uint32
	ioctl, unshare, clone, clone3 uint32
	keys                          [3]uint32 // add_key, request_key, keyctl
	links                         []uint32  // link (where the ABI has it), linkat
	fcntl                         []uint32  // fcntl, fcntl64 (where the ABI has it)
	// x32 rejects the x32 ABI, which shares the x86-64 arch value.
	x32 bool
}

var abis = map[string][]abi{
	"amd64": {
		{arch: unix.AUDIT_ARCH_X86_64, ioctl: 16, unshare: 272, clone: 56, clone3: 435, keys: [3]uint32{248, 249, 250}, links: []uint32{86, 265}, fcntl: []uint32{72}, x32: true},
		{arch: unix.AUDIT_ARCH_I386, ioctl: 54, unshare: 310, clone: 120, clone3: 435, keys: [3]uint32{286, 287, 288}, links: []uint32{9, 303}, fcntl: []uint32{55, 221}},
	},
	"arm64": {
		{arch: unix.AUDIT_ARCH_AARCH64, ioctl: 29, unshare: 97, clone: 220, clone3: 435, keys: [3]uint32{217, 218, 219}, links: []uint32{37}, fcntl: []uint32{25}},
		{arch: unix.AUDIT_ARCH_ARM, ioctl: 54, unshare: 337, clone: 120, clone3: 435, keys: [3]uint32{309, 310, 311}, links: []uint32{9, 330}, fcntl: []uint32{55, 221}},
	},
}

// Offsets in struct seccomp_data (little-endian: an argument's low 32 bits
// come first; ioctl's request, fcntl's command and the clone flags fit in
// them).
const (
	offNr    = 0
	offArch  = 4
	offArg0  = 16
	offArg1  = 24
	x32Bit   = 0x40000000
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retNOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retEXDEV = unix.SECCOMP_RET_ERRNO | uint32(unix.EXDEV)
)

// ioURing are io_uring_setup, io_uring_enter and io_uring_register, the
// same numbers on every ABI above.
var ioURing = []uint32{425, 426, 427}

// Filter returns the filter for this machine as bwrap reads it: an
// array of struct sock_filter.
func Filter() ([]byte, error) {
	table, ok := abis[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	var a asm
	for i, t := range table {
		next := fmt.Sprint("abi", i+1)
		a.load(offArch)
		a.jumpIf(unix.BPF_JEQ, t.arch, "", next)
		a.load(offNr)
		if t.x32 {
			a.jumpIf(unix.BPF_JGE, x32Bit, "nosys", "")
		}
		a.jumpIf(unix.BPF_JEQ, t.ioctl, "ioctl", "")
		a.jumpIf(unix.BPF_JEQ, t.unshare, "flags", "")
		a.jumpIf(unix.BPF_JEQ, t.clone, "flags", "")
		a.jumpIf(unix.BPF_JEQ, t.clone3, "nosys", "")
		for _, nr := range ioURing {
			a.jumpIf(unix.BPF_JEQ, nr, "nosys", "")
		}
		for _, nr := range t.keys {
			a.jumpIf(unix.BPF_JEQ, nr, "eperm", "")
		}
		for _, nr := range t.links {
			a.jumpIf(unix.BPF_JEQ, nr, "exdev", "")
		}
		for _, nr := range t.fcntl {
			a.jumpIf(unix.BPF_JEQ, nr, "fcntl", "")
		}
		a.ret(retAllow)
		a.label(next)
	}
	// An ABI this machine does not have: nothing legitimate uses it.
	a.ret(retEPERM)
	a.label("ioctl")
	a.load(offArg1)
	a.jumpIf(unix.BPF_JEQ, unix.TIOCSTI, "eperm", "")
	a.jumpIf(unix.BPF_JEQ, unix.TIOCLINUX, "eperm", "")
	a.ret(retAllow)
	a.label("fcntl")
	a.load(offArg1)
	a.jumpIf(unix.BPF_JEQ, unix.F_SETLEASE, "eperm", "")
	a.ret(retAllow)
	a.label("flags")
	a.load(offArg0)
	a.jumpIf(unix.BPF_JSET, unix.CLONE_NEWUSER, "eperm", "")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retEPERM)
	a.label("nosys")
	a.ret(retNOSYS)
	a.label("exdev")
	a.ret(retEXDEV)
	return a.assemble()
}

// asm assembles classic BPF with forward jumps to labels.
type asm struct {
	insns  []unix.SockFilter
	jumps  map[int][2]string // instruction index → true, false labels
	labels map[string]int
}

func (a *asm) load(off uint32) {
	a.insns = append(a.insns, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *asm) ret(k uint32) {
	a.insns = append(a.insns, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

// jumpIf compares the accumulator with k; an empty label falls through.
func (a *asm) jumpIf(op uint16, k uint32, ifTrue, ifFalse string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[len(a.insns)] = [2]string{ifTrue, ifFalse}
	a.insns = append(a.insns, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insns)
}

func (a *asm) assemble() ([]byte, error) {
	for i, targets := range a.jumps {
		offs := [2]uint8{}
		for j, name := range targets {
			if name == "" {
				continue
			}
			to, ok := a.labels[name]
			if !ok || to <= i || to-i-1 > 255 {
				return nil, fmt.Errorf("seccomp: bad jump to %q", name)
			}
			offs[j] = uint8(to - i - 1)
		}
		a.insns[i].Jt, a.insns[i].Jf = offs[0], offs[1]
	}
	b := make([]byte, 0, 8*len(a.insns))
	for _, in := range a.insns {
		b = binary.LittleEndian.AppendUint16(b, in.Code)
		b = append(b, in.Jt, in.Jf)
		b = binary.LittleEndian.AppendUint32(b, in.K)
	}
	return b, nil
}

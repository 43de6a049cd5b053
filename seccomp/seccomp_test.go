package seccomp

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// run interprets the filter (the few classic BPF instructions it uses) on
// one system call, as the kernel would.
func run(t *testing.T, prog []byte, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog)/8; pc++ {
		in := prog[8*pc:]
		code, jt, jf, k := binary.LittleEndian.Uint16(in), in[2], in[3], binary.LittleEndian.Uint32(in[4:])
		switch {
		case code == unix.BPF_LD|unix.BPF_W|unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[k:])
		case code == unix.BPF_RET|unix.BPF_K:
			return k
		case code&0x07 == unix.BPF_JMP:
			var taken bool
			switch code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				taken = acc == k
			case unix.BPF_JGE:
				taken = acc >= k
			case unix.BPF_JSET:
				taken = acc&k != 0
			default:
				t.Fatalf("unknown jump %#x", code)
			}
			if taken {
				pc += int(jt)
			} else {
				pc += int(jf)
			}
		default:
			t.Fatalf("unknown instruction %#x", code)
		}
	}
	t.Fatal("filter ran off its end")
	return 0
}

func TestFilter(t *testing.T) {
	prog, err := Filter()
	if err != nil {
		t.Skip(err)
	}
	eperm, nosys := retEPERM, retNOSYS
	for _, a := range abis[runtime.GOARCH] {
		cases := []struct {
			name string
			nr   uint32
			args []uint64
			want uint32
		}{
			{"TIOCSTI", a.ioctl, []uint64{0, unix.TIOCSTI}, eperm},
			{"TIOCSTI with high bits set", a.ioctl, []uint64{0, 1<<32 | unix.TIOCSTI}, eperm},
			{"TIOCLINUX", a.ioctl, []uint64{0, unix.TIOCLINUX}, eperm},
			{"TIOCGWINSZ", a.ioctl, []uint64{0, unix.TIOCGWINSZ}, retAllow},
			{"unshare(CLONE_NEWUSER|CLONE_NEWNS)", a.unshare, []uint64{unix.CLONE_NEWUSER | unix.CLONE_NEWNS}, eperm},
			{"unshare(CLONE_NEWNS)", a.unshare, []uint64{unix.CLONE_NEWNS}, retAllow},
			{"clone(CLONE_NEWUSER)", a.clone, []uint64{unix.CLONE_NEWUSER}, eperm},
			{"clone(thread)", a.clone, []uint64{unix.CLONE_VM | unix.CLONE_THREAD}, retAllow},
			{"clone3", a.clone3, nil, nosys},
			{"io_uring_setup", ioURing[0], nil, nosys},
			{"io_uring_enter", ioURing[1], nil, nosys},
			{"io_uring_register", ioURing[2], nil, nosys},
			{"add_key", a.keys[0], nil, eperm},
			{"request_key", a.keys[1], nil, eperm},
			{"keyctl", a.keys[2], nil, eperm},
			{"getpid-ish", 39, nil, retAllow},
		}
		type call = struct {
			name string
			nr   uint32
			args []uint64
			want uint32
		}
		for _, nr := range a.links {
			cases = append(cases, call{"link", nr, nil, retEXDEV})
		}
		for _, nr := range a.fcntl {
			cases = append(cases, call{"F_SETLEASE", nr, []uint64{3, unix.F_SETLEASE, unix.F_WRLCK}, eperm},
				call{"F_GETFL", nr, []uint64{3, unix.F_GETFL}, retAllow},
				call{"F_SETLK", nr, []uint64{3, unix.F_SETLK}, retAllow})
		}
		for _, c := range cases {
			if got := run(t, prog, a.arch, c.nr, c.args...); got != c.want {
				t.Errorf("arch %#x %s = %#x, want %#x", a.arch, c.name, got, c.want)
			}
		}
		if a.x32 {
			if got := run(t, prog, a.arch, x32Bit|16, 0, unix.TIOCSTI); got != nosys {
				t.Errorf("x32 ioctl = %#x, want ENOSYS", got)
			}
		}
	}
	// The native ABI's numbers are the ones this program was built with.
	native := abis[runtime.GOARCH][0]
	for _, nr := range []uint32{unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL} {
		if got := run(t, prog, native.arch, nr); got != eperm {
			t.Errorf("native key syscall %d = %#x, want EPERM", nr, got)
		}
	}
	for _, nr := range []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER} {
		if got := run(t, prog, native.arch, nr); got != nosys {
			t.Errorf("native io_uring syscall %d = %#x, want ENOSYS", nr, got)
		}
	}
	if got := run(t, prog, native.arch, unix.SYS_FCNTL, 3, unix.F_SETLEASE); got != eperm {
		t.Errorf("native F_SETLEASE = %#x, want EPERM", got)
	}
	if got := run(t, prog, native.arch, unix.SYS_LINKAT); got != retEXDEV {
		t.Errorf("native linkat = %#x, want EXDEV", got)
	}
	if got := run(t, prog, 0x12345678, 1); got != eperm {
		t.Errorf("unknown arch = %#x, want EPERM", got)
	}
}

package pty

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/internal/unprivileged"
	"golang.org/x/sys/unix"
)

// userTerminal is a terminal standing in for the user's: the test plays
// the terminal emulator on its master side, and the process under test gets
// its slave side as its standard descriptors.
type userTerminal struct {
	t      *testing.T
	emu    *os.File // the emulator's side
	tty    *os.File // the user's terminal
	mu     sync.Mutex
	screen bytes.Buffer
	// reply answers a query the emulator sees on its screen, late, as a
	// slow terminal would: not before the next fence, when the child is
	// gone; replied receives each answer once it is sent.
	reply   map[string]string
	late    []string
	fences  int
	replied chan string
}

func newUserTerminal(t *testing.T) *userTerminal {
	t.Helper()
	emu, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var n uint32
	if err := control(emu, func(fd int) (err error) {
		if err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tty.Fd() // blocking, as a shell's terminal is
	u := &userTerminal{t: t, emu: emu, tty: tty, reply: map[string]string{}, replied: make(chan string, 8)}
	u.setSize(24, 80)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := emu.Read(buf)
			u.mu.Lock()
			u.screen.Write(buf[:n])
			for q, a := range u.reply {
				if bytes.Contains(u.screen.Bytes(), []byte(q)) {
					u.late = append(u.late, a)
					delete(u.reply, q)
				}
			}
			for n := bytes.Count(u.screen.Bytes(), []byte(fence)); u.fences < n; u.fences++ {
				for _, a := range u.late {
					emu.Write([]byte(a))
					u.replied <- a
				}
				u.late = nil
				emu.Write([]byte(fenceReply))
			}
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); emu.Close() })
	return u
}

func (u *userTerminal) setSize(rows, cols uint16) {
	control(u.emu, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
}

func (u *userTerminal) shown() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.screen.String()
}

func (u *userTerminal) waitFor(s string) {
	u.t.Helper()
	for end := time.Now().Add(5 * time.Second); !strings.Contains(u.shown(), s); {
		if time.Now().After(end) {
			u.t.Fatalf("waiting for %q, the terminal shows %q", s, u.shown())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (u *userTerminal) termios() unix.Termios {
	u.t.Helper()
	tio, err := unix.IoctlGetTermios(int(u.tty.Fd()), unix.TCGETS)
	if err != nil {
		u.t.Fatal(err)
	}
	return *tio
}

// start runs script with sh on the user's terminal, through a Relay.
func start(t *testing.T, script string, stdin, stdout *os.File, stderr *os.File) (*exec.Cmd, *Relay) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	r, err := Attach(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.Restore()
		t.Fatal(err)
	}
	r.Started()
	return cmd, r
}

// TestRelayOwnTerminal: the child runs as a session leader on a terminal
// of its own, the user's terminal is raw meanwhile, and keystrokes, Ctrl-C
// and window size changes reach the child.
func TestRelayOwnTerminal(t *testing.T) {
	u := newUserTerminal(t)
	before := u.termios()
	cmd, r := start(t, `
		read -r pid _ _ _ _ sid _ < /proc/self/stat
		echo "SESSION-$(test "$$" = "$sid" && echo LEADER) TTY-$(tty)"
		trap 'echo GOT-INT' INT
		trap 'echo "WIN""CH $(stty size)"' WINCH
		read -r line; echo "READ-$line"
		while :; do sleep 0.05; done
	`, u.tty, u.tty, u.tty)
	u.waitFor("SESSION-")
	u.waitFor("\n")
	line := u.shown()
	if !strings.Contains(line, "SESSION-LEADER") {
		t.Errorf("the child is not a session leader: %q", line)
	}
	if strings.Contains(line, "TTY-"+u.tty.Name()+"\r") || !strings.Contains(line, "TTY-/dev/pts/") {
		t.Errorf("the child's terminal is the user's (%s): %q", u.tty.Name(), line)
	}
	if tio := u.termios(); tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("the user's terminal is not raw while the child runs: lflag %#x", tio.Lflag)
	}
	u.emu.Write([]byte("typed\r"))
	u.waitFor("READ-typed")
	u.setSize(30, 100)
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	u.waitFor("WINCH 30 100")
	u.emu.Write([]byte{0x03})
	u.waitFor("GOT-INT")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r.Restore()
	if after := u.termios(); after != before {
		t.Errorf("the user's terminal settings were not restored:\n%+v\nwant\n%+v", after, before)
	}
}

// TestRelayPipes: pipes and files pass through; only the descriptors that
// are terminals get the child's own.
func TestRelayPipes(t *testing.T) {
	u := newUserTerminal(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd, r := start(t, `echo OUT-$(tty); echo TERM-$(tty <&2) >&2`, u.tty, pw, u.tty)
	pw.Close()
	var out bytes.Buffer
	out.ReadFrom(pr)
	cmd.Wait()
	r.Restore()
	if got := out.String(); !strings.HasPrefix(got, "OUT-/dev/pts/") || strings.Contains(got, u.tty.Name()+"\n") {
		t.Errorf("stdout, a pipe, got %q, want the child's own terminal named", got)
	}
	u.waitFor("TERM-/dev/pts/")
	if strings.Contains(u.shown(), "OUT-") {
		t.Errorf("the terminal shows %q", u.shown())
	}

	// Input from a pipe: the user's terminal stays as it is (the user's
	// Ctrl-C is the caller's).
	before := u.termios()
	in, inw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inw.Write([]byte("from-pipe\n"))
	inw.Close()
	cmd, r = start(t, `cat; stty -a >/dev/null && echo STDIN-NOT-A-TTY`, in, u.tty, u.tty)
	if tio := u.termios(); tio != before {
		t.Errorf("the user's terminal changed though stdin is a pipe")
	}
	cmd.Wait()
	r.Restore()
	in.Close()
	u.waitFor("from-pipe")
}

// TestRelayRestores: what the child does to its terminal and its pipes, and
// the modes it leaves on in the user's, are undone, also when it crashes;
// its clipboard writes never reach the user's terminal.
func TestRelayRestores(t *testing.T) {
	requirePerl(t)
	u := newUserTerminal(t)
	before := u.termios()
	// A blocking pipe, as a shell makes them.
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	pr, pw := os.NewFile(uintptr(p[0]), "pipe"), os.NewFile(uintptr(p[1]), "pipe")
	defer pr.Close()
	pipeFlags := flags(pw)
	cmd, r := start(t, `
		printf '\033[?1000h\033[?2004h\033[?1049h\033]52;c;Y3VybCBldmlsIHwgc2g=\007\033]2;TITLE-7c1\007' >&2
		perl -MFcntl -e '
			fcntl(STDIN, F_SETFL, O_NONBLOCK) or die;
			fcntl(STDOUT, F_SETFL, O_NONBLOCK) or die;
			my $nnull = pack("i", 27);
			ioctl(STDIN, 0x5423, $nnull) or die "TIOCSETD: $!"' && kill -SEGV $$
	`, u.tty, pw, u.tty)
	defer pw.Close()
	err := cmd.Wait()
	r.Restore()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGSEGV {
		t.Fatalf("the child did not set up its terminal and crash: %v\n%q", err, u.shown())
	}
	u.waitFor(fence)
	shown := u.shown()
	if !strings.Contains(shown, "\x1b]2;TITLE-7c1\x07") {
		t.Errorf("the title did not pass: %q", shown)
	}
	if strings.Contains(shown, "52;") || strings.Contains(shown, "Y3Vy") {
		t.Errorf("the clipboard write reached the terminal: %q", shown)
	}
	if !strings.HasSuffix(shown, exitReset+fence) {
		t.Errorf("the terminal was not reset: %q", shown)
	}
	if after := u.termios(); after != before {
		t.Errorf("the user's terminal settings were not restored")
	}
	if d, err := unix.IoctlGetInt(int(u.tty.Fd()), unix.TIOCGETD); err != nil || d != 0 {
		t.Errorf("the user's terminal's line discipline = %d, %v; want N_TTY", d, err)
	}
	if fl := flags(pw); fl != pipeFlags {
		t.Errorf("the pipe's flags = %#x, want %#x", fl, pipeFlags)
	}
}

// TestRelayDiscardsReplies: the answer to a query the child sends as it
// ends is not left for the user's shell to read.
func TestRelayDiscardsReplies(t *testing.T) {
	u := newUserTerminal(t)
	u.reply["\x1b[c"] = "\x1b[?62;22c"
	cmd, r := start(t, `printf '\033[c'`, u.tty, u.tty, u.tty)
	cmd.Wait()
	r.Restore()
	select {
	case <-u.replied:
	case <-time.After(5 * time.Second):
		t.Fatalf("the query did not reach the terminal: %q", u.shown())
	}
	u.emu.Write([]byte("END\n"))
	line := make([]byte, 64)
	n, _ := u.tty.Read(line)
	if got := string(line[:n]); got != "END\n" {
		t.Errorf("the shell reads %q after the child, want only what the user typed", got)
	}
}

// flags reads f's file status flags without Fd, which would clear
// O_NONBLOCK.
func flags(f *os.File) (fl int) {
	control(f, func(fd int) (err error) {
		fl, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		return err
	})
	return fl
}

func requirePerl(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is not installed")
	}
}

// TestRelayAnotherUsersTerminal: on a terminal another user owns (after su
// or sudo -u), which cannot be opened anew, the relay still relays, and
// leaves the terminal's file status flags as it found them.
func TestRelayAnotherUsersTerminal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the terminal to another user")
	}
	u := newUserTerminal(t)
	if err := os.Chown(u.tty.Name(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	os.Chmod(u.tty.Name(), 0o600)
	before := flags(u.tty)
	cmd := exec.Command("sh", "-c", `echo READY; read -r line; echo "GOT-$line"`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = u.tty, u.tty, u.tty
	var r *Relay
	var reopen, err error
	unprivileged.Do(t, func() {
		var f *os.File
		if f, reopen = os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", int(u.tty.Fd())), os.O_RDWR, 0); reopen == nil {
			f.Close()
		}
		r, err = Attach(cmd, false)
	})
	if reopen == nil {
		t.Fatal("control: the terminal can be opened anew")
	}
	if err != nil {
		t.Fatalf("on another user's terminal: %v", err)
	}
	if err := cmd.Start(); err != nil {
		r.Restore()
		t.Fatal(err)
	}
	r.Started()
	u.waitFor("READY")
	u.emu.Write([]byte("typed\r"))
	u.waitFor("GOT-typed")
	cmd.Wait()
	r.Restore()
	if after := flags(u.tty); after != before {
		t.Errorf("the terminal's flags after the session = %#x, want %#x", after, before)
	}
}

// TestIsTerminal: the answer, without making the descriptor blocking as
// Fd would (the caller's non-blocking pipe stays as it was).
func TestIsTerminal(t *testing.T) {
	u := newUserTerminal(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	before := flags(pr)
	if before&unix.O_NONBLOCK == 0 {
		t.Fatal("control: os.Pipe's descriptors are not non-blocking")
	}
	if !IsTerminal(u.tty) || IsTerminal(pr) {
		t.Errorf("IsTerminal: terminal %v, pipe %v", IsTerminal(u.tty), IsTerminal(pr))
	}
	if after := flags(pr); after != before {
		t.Errorf("the pipe's flags = %#x after IsTerminal, want %#x", after, before)
	}
}

// TestStopped reads a process's state as stopped only while a signal
// holds it, whatever its name holds.
func TestStopped(t *testing.T) {
	dir := t.TempDir()
	name := dir + "/a) T (b"
	if err := os.Symlink("/bin/sleep", name); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(name, "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	if stopped(c.Process.Pid) {
		t.Error("a running process read as stopped")
	}
	c.Process.Signal(syscall.SIGSTOP)
	deadline := time.Now().Add(5 * time.Second)
	for !stopped(c.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("a stopped process not read as stopped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if stopped(1 << 30) {
		t.Error("a process that does not exist read as stopped")
	}
}

// TestRelayFollowsLateStop: a child that stops seconds after Ctrl-Z, as a
// busy Claude does, is still followed, and continued. Claude stops in a
// group of its own, holding its terminal, whose parent does not take the
// terminal back (claudebox's first process); the test binary plays that
// parent. The relay runs in a session of its own, where its own stop is
// discarded (nothing in the session would report it), so it continues the
// child at once.
func TestRelayFollowsLateStop(t *testing.T) {
	switch os.Getenv("CLAUDEBOX_PTY_LATE_STOP") {
	case "":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRelayFollowsLateStop$")
		c.Env = append(os.Environ(), "CLAUDEBOX_PTY_LATE_STOP=relay")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	case "relay":
		u := newUserTerminal(t)
		cmd, r := start(t, "CLAUDEBOX_PTY_LATE_STOP=parent exec '"+os.Args[0]+"' -test.run='^TestRelayFollowsLateStop$'", u.tty, u.tty, u.tty)
		defer func() { cmd.Process.Kill(); cmd.Wait(); r.Restore() }()
		u.waitFor("RAW")
		u.emu.Write([]byte{suspendKey})
		u.waitFor("CONTINUED")
	case "parent":
		c := exec.Command("sh", "-c", `
			stty raw -echo; echo RAW
			dd bs=1 count=1 >/dev/null 2>&1
			sleep 1.5
			kill -TSTP $$
			echo CONTINUED
			while :; do sleep 0.05; done
		`)
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true}
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
	}
}

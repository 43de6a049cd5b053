package network

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/e2e/harness"
)

// kernelHeld is what the kernel holds for a process's sockets and pipes:
// the bytes queued in them and reserved for them (ss's skmem r, w and f),
// and the bytes in its pipes (the splices of its tunnels).
type kernelHeld struct {
	sockets, pipes int64
	socketCount    int
}

// kernelHeldBy reads what the kernel holds for pid's descriptors: its
// sockets in every network namespace its process tree is in (the
// supervisor accepts the sandbox's connections in the sandbox's).
func kernelHeldBy(t *testing.T, pid int) kernelHeld {
	t.Helper()
	harness.RequireTool(t, "ss", "apt-get install iproute2")
	harness.RequireTool(t, "nsenter", "apt-get install util-linux")
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	var held kernelHeld
	sockets := map[string]bool{}
	pipes := map[string]bool{}
	for _, fd := range fds {
		path := fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())
		link, err := os.Readlink(path)
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			sockets[strings.TrimSuffix(ino, "]")] = true
		}
		if strings.HasPrefix(link, "pipe:[") && !pipes[link] {
			pipes[link] = true
			// Opened anew as a FIFO, without waiting for a writer.
			f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
			if err != nil {
				continue
			}
			if n, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ); err == nil {
				held.pipes += int64(n)
			}
			f.Close()
		}
	}
	for _, ns := range netNamespaces(t, pid) {
		ss := exec.Command("nsenter", "--net=/proc/self/fd/3", "ss", "-tmenaH")
		ss.ExtraFiles = []*os.File{ns}
		out, err := ss.Output()
		ns.Close()
		if err != nil {
			t.Fatalf("ss in %s: %v", ns.Name(), err)
		}
		for _, entry := range regexp.MustCompile(`\n(?:\S)`).Split(string(out), -1) {
			ino := regexp.MustCompile(`\bino:(\d+)`).FindStringSubmatch(entry)
			mem := regexp.MustCompile(`skmem:\(r(\d+),rb\d+,t\d+,tb\d+,f(\d+),w(\d+)`).FindStringSubmatch(entry)
			if ino == nil || mem == nil || !sockets[ino[1]] {
				continue
			}
			held.socketCount++
			for _, v := range mem[1:] {
				n, _ := strconv.ParseInt(v, 10, 64)
				held.sockets += n
			}
		}
	}
	return held
}

// netNamespaces are the network namespaces of pid and of the processes
// below it, each once, held open (the process may end before nsenter
// enters it: a sandbox's sleep).
func netNamespaces(t *testing.T, pid int) []*os.File {
	t.Helper()
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for line := range strings.SplitSeq(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				parent[p], _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	seen := map[string]bool{}
	var held []*os.File
	for p := range parent {
		below := false
		for q, hops := p, 0; q > 1 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				below = true
				break
			}
		}
		if !below {
			continue
		}
		f, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", p))
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil || seen[strconv.FormatUint(st.Ino, 10)] {
			f.Close()
			continue
		}
		seen[strconv.FormatUint(st.Ino, 10)] = true
		held = append(held, f)
	}
	return held
}

// streamingServer is a server on loopback that sends to every connection
// as fast as it is read, and reads nothing; open counts the connections,
// sent the bytes.
func streamingServer(t *testing.T) (net.Listener, *atomic.Int32, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open, sent := new(atomic.Int32), new(atomic.Int64)
	chunk := make([]byte, 64<<10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			open.Add(1)
			go func() {
				defer c.Close()
				for {
					n, err := c.Write(chunk)
					sent.Add(int64(n))
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln, open, sent
}

// TestReplayReview17TunnelBuffers: a tunnel's bytes wait in the kernel
// on the supervisor's side while either end does not read: in its
// socket from the sandbox (what the sandbox sent), its socket to the
// server (what the server sent), their send queues and the pipe each
// direction splices through. The kernel sizes those buffers to the
// traffic (a few MiB a socket once a download went fast), and the
// sandbox chooses the traffic: it reads fast, then stops, and uploads to
// a server that does not read. The attack, from inside: 32 tunnels to
// an allowed server that sends without end and reads nothing, each read
// fast for 8 MiB and then left, 16 MiB uploaded into each. The proof, on
// the host: what the kernel holds for the supervisor's sockets and pipes
// stays under 4 MiB a tunnel (3.2 MiB measured; 27 MiB before, with
// net.ipv4.tcp_rmem's most at 32 MiB; about 20 MiB with the usual 6 MiB),
// but for the few whose server's connection keeps the kernel's sizing
// (the proxy's kernelSizedTunnels, 4), each of which may take tcp_rmem's
// most more (all 32 so sized held 10 MiB a tunnel).
func TestReplayReview17TunnelBuffers(t *testing.T) {
	h := harness.NewHost(t)
	ln, open, sent := streamingServer(t)
	defer ln.Close()
	target := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	const tunnels = 32
	cmd := h.Command(proj, nil, "claudebox", "--shell", "--allow-host", target, "-c", `
		for i in $(seq `+strconv.Itoa(tunnels)+`); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			printf 'CONNECT `+target+` HTTP/1.1\r\nHost: `+target+`\r\n\r\n' >&$fd
			head -c 8M <&$fd >/dev/null
			head -c 16M /dev/zero >&$fd &
		done
		touch flooded
		for i in $(seq 1200); do test -e done && break; sleep 0.1; done
	`)
	f := startFlood(t, cmd, proj)
	defer f.stop()
	f.waitFor("flooded")
	// Every tunnel is open, and the supervisor's buffers hold still.
	var held kernelHeld
	f.waitStill(func() bool { return open.Load() == tunnels }, func() int64 {
		held = kernelHeldBy(t, cmd.Process.Pid)
		return held.sockets + held.pipes
	}, fmt.Sprintf("%d tunnels held", tunnels))
	rss, _ := harness.SupervisorKB(t, cmd.Process.Pid)
	t.Logf("kernel, for the supervisor: %d KiB in %d sockets, %d KiB in pipes; supervisor %d KiB resident; the server sent %d MiB",
		held.sockets>>10, held.socketCount, held.pipes>>10, rss, sent.Load()>>20)
	const kernelSized = 4
	if bound := tunnels*int64(4<<20) + kernelSized*tcpReceiveMost(t); held.sockets+held.pipes > bound {
		t.Errorf("the kernel holds %d KiB for the supervisor (%d KiB in sockets, %d KiB in pipes over %d tunnels), over %d KiB", (held.sockets+held.pipes)>>10, held.sockets>>10, held.pipes>>10, tunnels, bound>>10)
	}
}

// descriptors counts pid's open descriptors.
func descriptors(t *testing.T, pid int) int {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// TestReplayReview17SlotsFilled: the proxy serves 256 connections at
// once, and the sandbox can take them all, each a tunnel to an allowed
// server that holds on, with what it uploaded waiting in it. That harms
// the sandbox alone: its next connection waits (in its own listener's
// queue) for one of its own to end. The proof, on the host, while 300
// tunnels wait (every slot taken, the rest queued): the supervisor's
// resident memory grows by less than 64 MiB, the kernel holds less than
// 128 MiB for its sockets and pipes, its descriptors stay a few a
// tunnel; it still serves `claudebox --allow-host --live` (its control
// socket is no slot's), another project's session reaches a server
// through its own proxy, and the flooded session ends when its command
// does, claudebox exiting cleanly.
func TestReplayReview17SlotsFilled(t *testing.T) {
	h := harness.NewHost(t)
	ln, open := holdingServer(t)
	defer ln.Close()
	target := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	go http.Serve(plain, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "REACHED\n") }))
	other := plain.Addr().String()
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	proj2 := filepath.Join(h.Home, "code", "proj2")
	h.Write(filepath.Join(proj2, "x"), "x\n")
	cmd := h.Command(proj, nil, "claudebox", "--shell", "--allow-host", target, "-c", `
		touch started
		for i in $(seq 600); do test -e measured && break; sleep 0.1; done
		for i in $(seq 300); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			{ printf 'CONNECT `+target+` HTTP/1.1\r\nHost: `+target+`\r\n\r\n'; head -c 256K /dev/zero; } >&$fd &
		done
		touch flooded
		for i in $(seq 1200); do test -e done && break; sleep 0.1; done
	`)
	f := startFlood(t, cmd, proj)
	defer f.stop()
	f.waitFor("started")
	idle, _ := harness.SupervisorKB(t, cmd.Process.Pid)
	idleFDs := descriptors(t, cmd.Process.Pid)
	os.WriteFile(filepath.Join(proj, "measured"), nil, 0o644)
	f.waitFor("flooded")
	// Every slot holds a tunnel, and what they hold is still.
	var held kernelHeld
	f.waitStill(func() bool { return open.Load() >= 250 }, func() int64 {
		held = kernelHeldBy(t, cmd.Process.Pid)
		return held.sockets + held.pipes + int64(open.Load())
	}, "the slots taken")
	rss, hwm := harness.SupervisorKB(t, cmd.Process.Pid)
	fds := descriptors(t, cmd.Process.Pid)
	t.Logf("%d tunnels: supervisor %d KiB resident (%d KiB idle, peak %d KiB), %d descriptors (%d idle); kernel, for it: %d KiB in %d sockets, %d KiB in pipes",
		open.Load(), rss, idle, hwm, fds, idleFDs, held.sockets>>10, held.socketCount, held.pipes>>10)
	if grew := rss - idle; grew > 64<<10 {
		t.Errorf("the slots taken grew the supervisor's resident memory by %d MiB", grew>>10)
	}
	if total := held.sockets + held.pipes; total > 128<<20 {
		t.Errorf("with the slots taken, the kernel holds %d MiB for the supervisor", total>>20)
	}
	if fds-idleFDs > 8*256 {
		t.Errorf("the slots taken hold %d of the supervisor's descriptors", fds-idleFDs)
	}
	// The supervisor still serves the host, and another session its own.
	h.Run(proj, nil, "claudebox", "--allow-host", other, "--live")
	if got := h.Run(proj2, nil, "claudebox", "--shell", "--allow-host", other, "-c", `curl -sS --max-time 60 --proxy http://127.0.0.1:3128 --noproxy "" http://`+other+`/`); got != "REACHED\n" {
		t.Errorf("another project's session, through its own proxy: %q, want REACHED", got)
	}
	f.stop()
	if !cmd.ProcessState.Success() {
		t.Errorf("the flooded session did not end cleanly: %v\n%s", cmd.ProcessState, f.out.String())
	}
}

// tcpReceiveMost is the most the kernel sizes a connection's receive
// buffer to by itself (net.ipv4.tcp_rmem's third field).
func tcpReceiveMost(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_rmem")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	most, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return most
}

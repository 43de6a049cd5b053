package flood

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview19EmptyDirectories: the record a session's start takes
// of the project (what the exit audit compares with) held each directory
// as two map entries of its path and an entry in its parent's listing,
// about 220 bytes a directory, for the whole session. The attack, from
// inside: make 300,000 empty directories, which the next launch's record
// then holds. Host-side proof: the next session's supervisor, a second
// after its record is written, holds under 48 MiB (236 MiB before, 31
// after, at a load of 12), and its peak then is under 128 MiB (251 MiB
// before, 94 after).
func TestReplayReview19EmptyDirectories(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "main.go"), "package main\n")
	h.Chown()
	h.GitRepo(proj)
	began := time.Now()
	h.Inside(proj, nil, `cd "$(mktemp -d -p .)" && for i in $(seq 300); do mkdir d$i && (cd d$i && mkdir $(seq -f e%g 1000)); done`)
	t.Logf("the flood's session: %v", time.Since(began))
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(h.Bin, "maxrss"), 0o755)
	began = time.Now()
	session := h.Command(proj, nil, "maxrss", "claudebox", "--shell", "-c", `until [ -e go ]; do sleep 0.05; done`)
	var out strings.Builder
	session.Stdout, session.Stderr = &out, &out
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	defer session.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- session.Wait() }()
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	record := filepath.Join(filepath.Dir(filepath.Dir(inst)), "live", filepath.Base(inst)+".snapshot")
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if st, err := os.Stat(record); err == nil && st.Size() > 0 {
			break
		}
		if len(exited) > 0 || time.Now().After(deadline) {
			t.Fatalf("no start record written:\n%s", out.String())
		}
	}
	t.Logf("the record written: %v after the launch", time.Since(began))
	supervisor := 0
	for _, pid := range harness.Descendants(session.Process.Pid) {
		if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.HasPrefix(string(cmd), "claudebox\x00--shell") {
			supervisor = pid
		}
	}
	if supervisor == 0 {
		t.Fatal("no supervisor")
	}
	// What the record's walk used is given back once the record is
	// written; what is held then is the record's.
	time.Sleep(time.Second)
	held, launchPeak := harness.SupervisorKB(t, supervisor)
	if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The supervisor's peak at the end, as last read before it exits.
	exitPeak := launchPeak
	var err error
	for ended := false; !ended; {
		select {
		case err = <-exited:
			ended = true
		case <-time.After(20 * time.Millisecond):
			status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", supervisor))
			for line := range strings.SplitSeq(string(status), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					fmt.Sscan(v, &exitPeak)
				}
			}
		}
	}
	t.Logf("the session: %v", time.Since(began))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	peak, perr := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "maxrss "))
	if err != nil || perr != nil {
		t.Fatalf("the session: %v %v\n%s", err, perr, out.String())
	}
	t.Logf("the supervisor held %d KiB with its record, %d KiB at its peak then, %d KiB at the end; the peak of the session's processes: %d KiB", held, launchPeak, exitPeak, peak)
	if held > 48<<10 || launchPeak > 128<<10 {
		t.Errorf("the supervisor held %d MiB for the record of 300,000 empty directories (%d MiB at its peak)", held>>10, launchPeak>>10)
	}
}

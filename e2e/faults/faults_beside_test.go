package faults

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayFaultsKilledBesideAnother: a kill -9 of one session's
// supervisor (starting, running, in its exit audit) while another session
// of the same project runs. The stand-ins are the project's, shared by
// both: the killed one's end, and a claudebox command on the host after
// it (--list in another project), must leave them standing for the
// session that runs, which still cannot write the files they guard; its
// end removes them, and the records. Host-side proof: the running
// session's .envrc write is refused while it runs after the kill; --list
// says it removed nothing; the running session ends with its command's
// status; both prompts are in the history; no stand-in, record or process
// is left; the next launch works.
func TestReplayFaultsKilledBesideAnother(t *testing.T) {
	for i, hold := range []string{"instance and placeholders", "", "exit audit and cleanup"} {
		name := "running"
		if hold != "" {
			name = "after " + hold
		}
		t.Run(name, func(t *testing.T) { killedBesideAnother(t, i, hold) })
	}
}

func killedBesideAnother(t *testing.T, i int, hold string) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "other")
	h.GitRepo(other)
	h.Inside(other, nil, "true")
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	hash := filepath.Base(inst)

	// The session that runs on: it tries to write the .envrc the stand-in
	// guards once told to, and says what came of it.
	var beside harness.Output
	b := h.Command(proj, nil, "claudebox", "--shell", "-c", `echo '{"display":"prompt beside"}' >> "$HOME/.claude/history.jsonl"; touch started-beside
		while ! test -e try; do sleep 0.05; done
		if echo 'export X=1' > .envrc 2>/dev/null; then echo WROTE-ENVRC; else echo envrc refused; fi
		while ! test -e done; do sleep 0.05; done`)
	b.Stdout, b.Stderr = &beside, &beside
	harness.Must(t, b.Start())
	defer b.Process.Kill()
	besideExited := make(chan error, 1)
	go func() { besideExited <- b.Wait() }()
	harness.WaitFor(t, "the session beside to start", func() bool {
		return paths.Exists(filepath.Join(proj, "started-beside")) || len(besideExited) > 0
	})
	if len(besideExited) > 0 {
		t.Fatalf("the session beside ended early: %v\n%s", <-besideExited, beside.String())
	}

	sleep := fmt.Sprintf("60.%d", 700+i)
	script := `echo '{"display":"prompt killed"}' >> "$HOME/.claude/history.jsonl"; touch started-killed`
	atExit := hold == "exit audit and cleanup"
	if !atExit {
		script += "; exec sleep " + sleep
	}
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", "--shell", "-c", script)
	s.Stderr = &stderr
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	if hold != "" {
		harness.WaitFor(t, "the supervisor to hold", func() bool { return strings.Contains(stderr.String(), "holding after "+hold) || len(exited) > 0 })
	} else {
		harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started-killed")) || len(exited) > 0 })
	}
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %v\n%s", <-exited, stderr.String())
	}
	s.Process.Signal(syscall.SIGKILL)
	<-exited
	harness.WaitFor(t, "the killed session's sandbox to end", func() bool { return !harness.Running("sleep\x00" + sleep + "\x00") })
	if ps := harness.Descendants(s.Process.Pid); len(ps) > 0 {
		t.Errorf("processes outlived the killed session: %v", ps)
	}

	out, err := h.Bounded(other, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	if strings.Contains(out, "left by a session that was killed") {
		t.Errorf("--list removed stand-ins a running session stands behind:\n%s", out)
	}
	for _, n := range []string{".envrc", ".mcp.json"} {
		if !instance.IsPlaceholder(filepath.Join(proj, n)) {
			t.Errorf("the stand-in %s is gone while the session beside runs", n)
		}
	}
	if !paths.Exists(filepath.Join(state, "live", hash+".placeholders")) {
		t.Error("the record of the stand-ins is gone while the session beside runs")
	}
	h.Write(filepath.Join(proj, "try"), "")
	harness.WaitFor(t, "the session beside to try .envrc", func() bool {
		return strings.Contains(beside.String(), "envrc refused") || strings.Contains(beside.String(), "WROTE-ENVRC") || len(besideExited) > 0
	})
	if strings.Contains(beside.String(), "WROTE-ENVRC") {
		t.Errorf("the session beside wrote .envrc after the other's kill:\n%s", beside.String())
	}
	h.Write(filepath.Join(proj, "done"), "")
	if err := <-besideExited; err != nil {
		t.Errorf("the session beside: %v\n%s", err, beside.String())
	}
	if ps := harness.Descendants(b.Process.Pid); len(ps) > 0 {
		t.Errorf("processes outlived the session beside: %v", ps)
	}
	noneHolding(t, proj)
	held, _ := os.ReadFile(filepath.Join(inst, "history.jsonl"))
	history := string(held)
	for _, p := range []string{"prompt beside", "prompt killed"} {
		// Killed before its sandbox ran, the session wrote no prompt.
		if !strings.Contains(history, p) && (p == "prompt beside" || hold != "instance and placeholders") {
			t.Errorf("the history lost %q:\n%s", p, history)
		}
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived the last session\n%s", n, beside.String())
		}
	}
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the last session left %s", hash+ext)
		}
	}
	if out, err := h.Bounded(proj, "--shell", "-c", "true"); err != nil {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
}

// TestReplayFaultsKilledTwice: the supervisor killed once it made its
// stand-ins, and the next launch in the project killed at the same point
// before any other claudebox command ran; then a third killed while its
// sandbox runs. Host-side proof: the next claudebox command (--list in
// another project) removes the stand-ins and says so in one line; no
// record or process is left; the prompt history holds the one session
// that ran; the next launch works and leaves nothing behind.
func TestReplayFaultsKilledTwice(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "other")
	h.GitRepo(other)
	h.Inside(other, nil, "true")
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	hash := filepath.Base(inst)
	killedAt(t, h, proj, "instance and placeholders", "--shell", "-c", "true")
	killedAt(t, h, proj, "instance and placeholders", "--shell", "-c", "true")
	s := h.Command(proj, nil, "claudebox", "--shell", "-c", `echo '{"display":"prompt of the third"}' >> "$HOME/.claude/history.jsonl"; touch started; exec sleep 60.901`)
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the third session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the third session ended early: %v", <-exited)
	}
	s.Process.Signal(syscall.SIGKILL)
	<-exited
	harness.WaitFor(t, "the sandbox to end", func() bool { return !instance.InUse(inst) && !harness.Running("sleep\x0060.901\x00") })
	noneHolding(t, proj)
	out, err := h.Bounded(other, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	if n := strings.Count(out, "left by a session that was killed"); n != 1 {
		t.Errorf("--list said %d times what it cleaned up, not once:\n%s", n, out)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived --list", n)
		}
	}
	if paths.Exists(filepath.Join(state, "live", hash+".placeholders")) {
		t.Error("the killed sessions' record of their stand-ins outlived --list")
	}
	if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); !strings.Contains(string(b), "prompt of the third") {
		t.Errorf("the history lost the session's prompt:\n%s", b)
	}
	if out, err := h.Bounded(proj, "--shell", "-c", "true"); err != nil {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the next session left %s", hash+ext)
		}
	}
}

// TestReplayFaultsDiskFillsAtSnapshot: ~/.claudebox's disk (a small
// tmpfs) fills while the snapshot for --undo, beside the session, is
// between its list of the checkout's files and its git add, which must
// write the new files' content into the undo store. Host-side proof: the
// session ends with its command's status and says it cannot be undone;
// the user's files are as the session left them, the prompt is in the
// history, no stand-in, record or snapshot's work file is left; with room
// again, the next session's snapshot is taken and --undo puts back what
// that session changed.
func TestReplayFaultsDiskFillsAtSnapshot(t *testing.T) {
	h, proj, state := harness.StateDisk(t, 40)
	h.Inside(proj, nil, "true")
	readme, _ := os.ReadFile(filepath.Join(proj, "README"))
	inst := instance.Dir(state, proj)
	hash := filepath.Base(inst)
	// New files for git add to write into the store: 2 MiB that do not
	// compress.
	random := make([]byte, 2<<20)
	rand.Read(random)
	harness.Must(t, os.WriteFile(filepath.Join(proj, "data.bin"), random, 0o644))
	h.Chown()
	const hold = "snapshot listed"
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", "--shell", "-c",
		`echo '{"display":"prompt at a full disk"}' >> "$HOME/.claude/history.jsonl"; echo mine > work; touch started; while ! test -e done; do sleep 0.05; done; exit 3`)
	s.Stderr = &stderr
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the snapshot to hold and the session to start", func() bool {
		return strings.Contains(stderr.String(), "holding after "+hold) && paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended before its snapshot held: %v\n%s", <-exited, stderr.String())
	}
	fill := filepath.Join(state, "fill")
	if f, err := os.Create(fill); err == nil {
		for _, err := f.Write(make([]byte, 1<<16)); err == nil; _, err = f.Write(make([]byte, 1<<16)) {
		}
		f.Close()
	}
	s.Process.Signal(syscall.SIGUSR1)
	harness.WaitFor(t, "the snapshot to end", func() bool {
		return strings.Contains(stderr.String(), "cannot be undone") || len(harness.Globs(filepath.Join(state, instance.UndoRecords, hash), "*.snapshot")) > 1 || len(exited) > 0
	})
	h.Write(filepath.Join(proj, "done"), "")
	var exit *exec.ExitError
	if err := <-exited; !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("the session's status: %v, want its command's, 3\n%s", err, stderr.String())
	}
	said := stderr.String()
	if !strings.Contains(said, "claudebox: this session cannot be undone") {
		t.Errorf("the session did not say its snapshot failed:\n%s", said)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "work")); string(b) != "mine\n" {
		t.Errorf("the session's file: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "data.bin")); !bytes.Equal(b, random) {
		t.Error("the user's data.bin changed")
	}
	if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); !strings.Contains(string(b), "prompt at a full disk") {
		t.Errorf("the prompt history lost the session's prompt:\n%s", b)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived the session", n)
		}
	}
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the session left %s", hash+ext)
		}
	}
	if work := harness.Globs(filepath.Join(state, instance.UndoRecords, hash), "*.index.2*"); len(work) > 0 {
		t.Errorf("the undo store holds the failed snapshot's work files: %v", work)
	}
	os.Remove(fill)
	os.Remove(filepath.Join(proj, "done"))
	// The next session changes README once its own snapshot is written
	// (harness.ShellAfterSnapshot would take the first session's).
	records := filepath.Join(state, instance.UndoRecords, hash)
	earlier := harness.Globs(records, "*.snapshot")
	next := h.Command(proj, nil, "claudebox", "--shell", "-c", "while ! test -e done; do sleep 0.05; done; echo the session > README")
	var out harness.Output
	next.Stdout, next.Stderr = &out, &out
	harness.Must(t, next.Start())
	defer next.Process.Kill()
	nextExited := make(chan error, 1)
	go func() { nextExited <- next.Wait() }()
	harness.WaitFor(t, "the next session's snapshot", func() bool {
		return len(harness.Globs(records, "*.snapshot")) > len(earlier) || len(nextExited) > 0
	})
	h.Write(filepath.Join(proj, "done"), "")
	if err := <-nextExited; err != nil {
		t.Fatalf("the next session: %v\n%s", err, out.String())
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	if err != nil {
		t.Fatalf("--undo after the disk had room again: %v\n%s", err, undone)
	}
	said += out.String() + undone
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); !bytes.Equal(b, readme) {
		t.Errorf("--undo left README %q\n%s", b, said)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "data.bin")); !bytes.Equal(b, random) {
		t.Error("--undo changed the user's data.bin")
	}
}

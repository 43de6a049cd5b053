package faults

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayFaultsKilled: a kill -9 of the supervisor, of the guard
// watcher or of the relay (with a published port: the one case where it is
// a process of its own), as a user would, at each phase where the process
// is there: starting (its proxy up, the hard links copied, the stand-ins
// made, the sandbox started), running (and while the snapshot for --undo,
// beside the session, works on its copy of the store's index, before its
// git add), at the command's exit, in the exit audit (before it, between
// judging what it found and moving it aside, and between moving it aside
// and saying so), in the export to the inbox (between its files and their
// record) and after it. The supervisor is held at the phase
// (CLAUDEBOX_TRACE_HOLD) and, when another process was killed, let go on.
// The session writes a file of the user's kind, a prompt, a transcript,
// and a .envrc a level down that the exit audit moves aside. Host-side
// proof after each: the sandbox's processes are gone, the user's file and
// the prompt history are as the session left them, the .envrc is in the
// project or its move was said with the command that puts it back, any
// claudebox command on the host (here --list, in another project) removes
// the stand-ins a dead supervisor left and says so in one line, the
// instance holds its conversation, the inbox holds the session's export
// and no file half made, and the next launch in the project and in another
// works and leaves no stand-in, record or snapshot's work file behind; no
// process is left holding the project (one whose parent died is no longer
// the supervisor's descendant: looked for by what it holds).
func TestReplayFaultsKilled(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "other")
	h.Write(filepath.Join(other, "README"), "other\n")
	h.GitRepo(other)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	inbox := filepath.Join(h.Home, "notes", "proj")
	h.Inside(other, nil, "true")
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	hash := filepath.Base(inst)
	for i, c := range []struct {
		victim, hold string
		// ran says the session's command runs (or ran) at the kill.
		ran bool
	}{
		{"supervisor", "proxy", false},
		{"supervisor", "hard links", false},
		{"supervisor", "instance and placeholders", false},
		{"supervisor", "sandbox start", true},
		{"supervisor", "snapshot listed", true},
		{"supervisor", "", true},
		{"supervisor", "command", true},
		{"supervisor", "watcher stop", true},
		{"supervisor", "audit judged", true},
		{"supervisor", "moved aside", true},
		{"supervisor", "exit audit and cleanup", true},
		{"supervisor", "export rendered", true},
		{"supervisor", "exported", true},
		{"supervisor", "export", true},
		{"watcher", "proxy", false},
		{"watcher", "instance and placeholders", false},
		{"watcher", "sandbox start", true},
		{"watcher", "", true},
		{"watcher", "command", true},
		{"relay", "sandbox start", true},
		{"relay", "", true},
	} {
		name := c.victim + " running"
		if c.hold != "" {
			name = c.victim + " after " + c.hold
		}
		t.Run(name, func(t *testing.T) {
			sleep := fmt.Sprintf("60.%d", 500+i)
			prompt := fmt.Sprintf(`{"display":"prompt %d"}`, i)
			id := fmt.Sprintf("20261128-0000-4000-8000-%012d", i)
			turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"case ` + strconv.Itoa(i) + `"}}`
			script := `echo '` + prompt + `' >> "$HOME/.claude/history.jsonl"; echo mine > work` + strconv.Itoa(i) +
				`; mkdir -p sub ~/.claude/projects/-p; echo 'export X=1' > sub/.envrc; echo '` + turn + `' > ~/.claude/projects/-p/` + id + `.jsonl; touch started`
			// Held at the command's exit or after, the command ends by
			// itself; otherwise it runs until told.
			atExit := slices.Contains([]string{"command", "watcher stop", "audit judged", "moved aside", "exit audit and cleanup", "export rendered", "exported", "export"}, c.hold)
			if !atExit {
				script += "; while ! test -e done; do sleep 0.05; done"
			}
			// A process the sandbox leaves, for the supervisor's death to end.
			if c.victim == "supervisor" && !atExit {
				script += "; exec sleep " + sleep
			}
			var stderr harness.Output
			args := []string{"--shell", "-c", script}
			// The relay inside is a process of its own only for
			// published ports, whose connections it parks.
			if c.victim == "relay" {
				args = append([]string{"--publish", strconv.Itoa(harness.FreePort(t)) + ":8080"}, args...)
			}
			s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + c.hold}, "claudebox", args...)
			s.Stderr = &stderr
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			defer s.Process.Kill()
			exited := make(chan error, 1)
			go func() { exited <- s.Wait() }()
			if c.hold != "" {
				harness.WaitFor(t, "the supervisor to hold", func() bool { return strings.Contains(stderr.String(), "holding after "+c.hold) || len(exited) > 0 })
			}
			if c.ran && !atExit {
				harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0 })
			}
			if len(exited) > 0 {
				t.Fatalf("the session ended early: %v\n%s", <-exited, stderr.String())
			}
			left := instance.IsPlaceholder(filepath.Join(proj, ".envrc"))
			// The sandbox's command, seen holding the project: what the
			// look for processes left behind below finds.
			if c.ran && !atExit && len(harness.Holding(proj)) == 0 {
				t.Error("no process is seen holding the project while the session's command runs")
			}
			switch c.victim {
			case "supervisor":
				s.Process.Signal(syscall.SIGKILL)
			case "watcher":
				kill(t, s.Process.Pid, "claudebox\x00--watch-guards\x00")
			case "relay":
				kill(t, s.Process.Pid, "--relay-serve")
			}
			if c.victim != "supervisor" {
				if c.hold != "" {
					s.Process.Signal(syscall.SIGUSR1)
				}
				// The watcher's death ends the sandbox; the relay's leaves it
				// running, with no way out, until its command ends.
				if c.victim == "relay" {
					h.Write(filepath.Join(proj, "done"), "")
				}
			}
			<-exited
			harness.WaitFor(t, "the sandbox to end", func() bool { return !instance.InUse(inst) && !harness.Running("sleep\x00"+sleep+"\x00") })
			if ps := harness.Descendants(s.Process.Pid); len(ps) > 0 {
				t.Errorf("processes outlived the session: %v", ps)
			}
			noneHolding(t, proj)
			said := stderr.String()
			if c.victim == "watcher" && !atExit && !strings.Contains(said, "claudebox: session ended: the guard watcher stopped") {
				t.Errorf("the session did not say the watcher stopped:\n%s", said)
			}
			// Another project's command cleans up after this one.
			var listErr strings.Builder
			l := h.Command(other, nil, "claudebox", "--list")
			l.Stderr = &listErr
			if err := l.Run(); err != nil {
				t.Fatalf("--list: %v\n%s", err, listErr.String())
			}
			said += listErr.String()
			standIns := func() (found []string) {
				for _, n := range guard.WorkTreeNames() {
					if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
						found = append(found, n)
					}
				}
				return found
			}
			if found := standIns(); len(found) > 0 {
				t.Errorf("stand-ins left after --list: %v", found)
			}
			if paths.Exists(filepath.Join(state, "live", hash+".placeholders")) {
				t.Error("the killed session's record of its stand-ins outlived --list")
			}
			if note := "left by a session that was killed"; left && c.victim == "supervisor" && !strings.Contains(listErr.String(), "under "+proj+" "+note) {
				t.Errorf("--list did not say what it cleaned up:\n%s", listErr.String())
			}
			if b, _ := os.ReadFile(filepath.Join(proj, "work"+strconv.Itoa(i))); c.ran && string(b) != "mine\n" {
				t.Errorf("the session's file: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); c.ran && !strings.Contains(string(b), prompt) {
				t.Errorf("the prompt history lost the session's prompt:\n%s", b)
			}
			kept := false
			filepath.WalkDir(inst, func(path string, d fs.DirEntry, err error) error {
				if b, _ := os.ReadFile(path); err == nil && d.Name() == id+".jsonl" && strings.Contains(string(b), `"case `+strconv.Itoa(i)+`"`) {
					kept = true
				}
				return nil
			})
			if c.ran && !kept {
				t.Errorf("the instance lost the session's conversation %s", id)
			}
			var next strings.Builder
			n := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
			n.Stderr = &next
			if err := n.Run(); err != nil {
				t.Fatalf("the next launch: %v\n%s", err, next.String())
			}
			said += next.String()
			h.Inside(other, nil, "true")
			envrc := filepath.Join(proj, "sub", ".envrc")
			if c.ran && !paths.Exists(envrc) && !strings.Contains(said, "    to put it back: mv -n ") {
				t.Errorf("the session's %s was moved aside without a word:\n%s", envrc, said)
			}
			if c.ran && len(harness.Globs(inbox, "*"+id[:8]+"*.md")) == 0 {
				t.Errorf("the inbox lacks the session's export: %v", harness.Globs(inbox, "*"))
			}
			if half := harness.Globs(inbox, ".*"); len(half) > 0 {
				t.Errorf("the inbox holds what an export left half made: %v", half)
			}
			for _, ext := range []string{".placeholders", ".guards", ".since"} {
				if paths.Exists(filepath.Join(state, "live", hash+ext)) {
					t.Errorf("the next session left %s", hash+ext)
				}
			}
			if found := standIns(); len(found) > 0 {
				t.Errorf("stand-ins left after the next session: %v", found)
			}
			// The snapshot's copy of the store's index it had git add
			// write, and git's lock on it.
			if work := harness.Globs(filepath.Join(state, instance.UndoRecords, hash), "*.index.2*"); len(work) > 0 {
				t.Errorf("the undo store holds a killed snapshot's work files after the next session: %v", work)
			}
			for _, f := range []string{"started", "done", "sub"} {
				os.RemoveAll(filepath.Join(proj, f))
			}
		})
	}
}

// noneHolding fails the test if processes hold dir a minute on: the
// sandbox's, ended with their supervisor, may take a moment to let go of
// it on a loaded machine.
func noneHolding(t *testing.T, dir string) {
	t.Helper()
	var ps []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if ps = harness.Holding(dir); len(ps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes outlived the session, holding %s: %v", dir, ps)
			return
		}
	}
}

// kill sends SIGKILL to the one descendant of pid whose command line
// contains cmdline.
func kill(t *testing.T, pid int, cmdline string) {
	t.Helper()
	var found []int
	harness.WaitFor(t, "the process "+strconv.Quote(cmdline), func() bool {
		found = nil
		for _, p := range harness.Descendants(pid) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && strings.Contains(string(b), cmdline) {
				found = append(found, p)
			}
		}
		return len(found) > 0
	})
	if len(found) != 1 {
		t.Fatalf("%d processes match %q", len(found), cmdline)
	}
	syscall.Kill(found[0], syscall.SIGKILL)
}

// TestReplayFaultsFullDisk: with ~/.claudebox on a full filesystem (a small
// tmpfs, filled), a launch refuses in one line naming it before it starts
// anything: no stand-in is made in the project, no record cut short; once
// there is room again the next launch works. Full of blocks, and of
// inodes: a few left free (not none) were used up halfway through the
// launch, which failed on a socket's bind with a hint to shorten $HOME,
// or ran the session with its undo snapshot, its record of the refs and
// its start's record failing, and ended with status 1, not its
// command's, saying nothing of the disk.
func TestReplayFaultsFullDisk(t *testing.T) {
	for _, c := range []struct {
		name string
		fill func(t *testing.T, state string) (undo func())
	}{
		{"blocks", func(t *testing.T, state string) func() {
			fill := filepath.Join(state, "fill")
			if f, err := os.Create(fill); err == nil {
				for _, err := f.Write(make([]byte, 1<<20)); err == nil; _, err = f.Write(make([]byte, 1<<20)) {
				}
				f.Close()
			}
			return func() { os.Remove(fill) }
		}},
		{"inodes", func(t *testing.T, state string) func() {
			harness.Must(t, syscall.Mount("", state, "", syscall.MS_REMOUNT, "nr_inodes=4000"))
			fill := filepath.Join(state, "fill")
			harness.Must(t, os.Mkdir(fill, 0o700))
			for i := 0; os.WriteFile(filepath.Join(fill, strconv.Itoa(i)), nil, 0o600) == nil; i++ {
			}
			// Eight left: a session's start makes more.
			for i := range 8 {
				harness.Must(t, os.Remove(filepath.Join(fill, strconv.Itoa(i))))
			}
			return func() { os.RemoveAll(fill) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, proj, state := harness.SmallStateDisk(t)
			h.Inside(proj, nil, "true")
			room := c.fill(t, state)
			var stderr strings.Builder
			s := h.Command(proj, nil, "claudebox", "--shell", "-c", "touch ran")
			s.Stderr = &stderr
			if err := s.Run(); err == nil {
				t.Fatalf("a launch on a full disk went ahead:\n%s", stderr.String())
			}
			if !strings.Contains(stderr.String(), "claudebox: the disk holding "+state+" is full") {
				t.Errorf("the refusal does not name the disk:\n%s", stderr.String())
			}
			if paths.Exists(filepath.Join(proj, "ran")) || paths.Exists(filepath.Join(proj, ".envrc")) {
				t.Error("the refused launch started a sandbox or made stand-ins")
			}
			room()
			h.Inside(proj, nil, "true")
		})
	}
}

// TestReplayFaultsNoUndoRoomSaid: ~/.claudebox on a disk with room for
// a session but less than the 16 MiB its undo snapshot leaves spare: the
// snapshot keeps no file's content, and --undo leaves what the session
// changed as it is. Host-side proof: the launch says so in one line,
// naming the disk, before the session's command runs (the user learnt it
// only at --undo, once the work could no longer be undone); with room,
// the launch says nothing of it and --undo restores the file.
func TestReplayFaultsNoUndoRoomSaid(t *testing.T) {
	for _, c := range []struct {
		mib     int
		said    bool
		restore string
	}{{16, true, "leave      README (unknown)"}, {40, false, "restore    README (changed)"}} {
		t.Run(fmt.Sprintf("%d MiB", c.mib), func(t *testing.T) {
			h, proj, state := harness.StateDisk(t, c.mib)
			out, err := harness.ShellAfterSnapshot(t, h, proj, "echo the session ran; echo changed > README")
			if err != nil {
				t.Fatalf("the session: %v\n%s", err, out)
			}
			notice := "claudebox: the disk holding " + state + " is nearly full ("
			at, ran := strings.Index(out, notice), strings.Index(out, "the session ran")
			switch {
			case c.said && at < 0:
				t.Errorf("the launch did not say its snapshot keeps no file's content:\n%s", out)
			case c.said && at > ran:
				t.Errorf("the launch said it only after the session's command ran:\n%s", out)
			case c.said && strings.Count(out, "nearly full") != 1:
				t.Errorf("said more than once:\n%s", out)
			case !c.said && at >= 0:
				t.Errorf("a disk with room was said to be nearly full:\n%s", out)
			}
			if list := h.Run(proj, nil, "claudebox", "--undo", "--dry-run"); !strings.Contains(list, c.restore) {
				t.Errorf("--undo --dry-run lacks %q:\n%s", c.restore, list)
			}
		})
	}
}

// TestReplayFaultsTwentySessions: twenty sessions started at once, of
// one project and of twenty, all run together and end: every one's prompt
// is in its project's history, the stand-ins stand while any runs and are
// gone, with the records, after the last.
func TestReplayFaultsTwentySessions(t *testing.T) {
	for name, projects := range map[string]int{"one project": 1, "twenty projects": 20} {
		t.Run(name, func(t *testing.T) { twentySessions(t, projects) })
	}
}

func twentySessions(t *testing.T, projects int) {
	h := harness.NewHost(t)
	state := filepath.Join(h.Home, ".claudebox")
	const sessions = 20
	proj := func(i int) string { return filepath.Join(h.Home, "proj"+strconv.Itoa(i%projects)) }
	for i := range projects {
		h.Write(filepath.Join(proj(i), "README"), "hi\n")
		h.GitRepo(proj(i))
	}
	var outs [sessions]harness.Output
	type ended struct {
		i   int
		err error
	}
	exited := make(chan ended, sessions)
	for i := range sessions {
		script := fmt.Sprintf(`echo '{"display":"prompt %d"}' >> "$HOME/.claude/history.jsonl"; touch started%d; while ! test -e done; do sleep 0.05; done`, i, i)
		c := h.Command(proj(i), nil, "claudebox", "--shell", "-c", script)
		c.Stdout, c.Stderr = &outs[i], &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill() })
		go func() { exited <- ended{i, c.Wait()} }()
	}
	harness.WaitFor(t, "every session to start", func() bool {
		n := 0
		for i := range sessions {
			if paths.Exists(filepath.Join(proj(i), "started"+strconv.Itoa(i))) {
				n++
			}
		}
		return n == sessions || len(exited) > 0
	})
	if len(exited) > 0 {
		e := <-exited
		t.Fatalf("session %d ended early: %v\n%s", e.i, e.err, outs[e.i].String())
	}
	for i := range projects {
		if !instance.IsPlaceholder(filepath.Join(proj(i), ".envrc")) {
			t.Errorf("the stand-in of %s/.envrc is not there while the sessions run", proj(i))
		}
	}
	for i := range projects {
		h.Write(filepath.Join(proj(i), "done"), "")
	}
	for range sessions {
		if e := <-exited; e.err != nil {
			t.Errorf("session %d: %v\n%s", e.i, e.err, outs[e.i].String())
		}
	}
	for i := range sessions {
		b, _ := os.ReadFile(filepath.Join(instance.Dir(state, proj(i)), "history.jsonl"))
		if !strings.Contains(string(b), fmt.Sprintf(`{"display":"prompt %d"}`, i)) {
			t.Errorf("the history lost session %d's prompt: %s", i, outs[i].String())
		}
	}
	for i := range projects {
		for _, n := range guard.WorkTreeNames() {
			if paths.Exists(filepath.Join(proj(i), n)) {
				t.Errorf("%s outlived the last session", filepath.Join(proj(i), n))
			}
		}
		hash := filepath.Base(instance.Dir(state, proj(i)))
		for _, ext := range []string{".placeholders", ".guards", ".since"} {
			if paths.Exists(filepath.Join(state, "live", hash+ext)) {
				t.Errorf("the last session of %s left %s", proj(i), hash+ext)
			}
		}
	}
}

// TestReplayFaultsDiskFillsDuringSession: ~/.claudebox on a small tmpfs
// that fills while the session runs (the session wrote a prompt and a
// .envrc a level down, which the exit audit moves aside into
// ~/.claudebox). Host-side proof: the session ends with its command's
// status and says, naming the disk, that it is full; the user's files are
// as the session left them (the .envrc in place, said so, or moved aside
// with the command that puts it back), the prompt is in the history, no
// stand-in or record of the session is left, no process; with room again
// the next launch works.
func TestReplayFaultsDiskFillsDuringSession(t *testing.T) {
	h, proj, state := harness.SmallStateDisk(t)
	inst := instance.Dir(state, proj)
	prompt := `{"display":"before the disk filled"}`
	var stderr harness.Output
	s := h.Command(proj, nil, "claudebox", "--shell", "-c", `echo '`+prompt+`' >> "$HOME/.claude/history.jsonl"; echo mine > work; mkdir sub; echo 'export X=1' > sub/.envrc; touch started
		while ! test -e done; do sleep 0.05; done
		echo '{"display":"after"}' >> "$HOME/.claude/history.jsonl"; exit 3`)
	s.Stderr = &stderr
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %v\n%s", <-exited, stderr.String())
	}
	fill := filepath.Join(state, "fill")
	if f, err := os.Create(fill); err == nil {
		for _, err := f.Write(make([]byte, 1<<16)); err == nil; _, err = f.Write(make([]byte, 1<<16)) {
		}
		f.Close()
	}
	h.Write(filepath.Join(proj, "done"), "")
	var exit *exec.ExitError
	if err := <-exited; !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("the session's status: %v, want its command's, 3\n%s", err, stderr.String())
	}
	said := stderr.String()
	if !strings.Contains(said, "claudebox: the disk holding "+state+" is full") {
		t.Errorf("the session's end does not name the full disk:\n%s", said)
	}
	if ps := harness.Descendants(s.Process.Pid); len(ps) > 0 {
		t.Errorf("processes outlived the session: %v", ps)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "work")); string(b) != "mine\n" {
		t.Errorf("the session's file: %q", b)
	}
	if envrc := filepath.Join(proj, "sub", ".envrc"); !strings.Contains(said, mount.Quote(envrc)) {
		t.Errorf("the exit said nothing of %s:\n%s", envrc, said)
	}
	if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); !strings.Contains(string(b), prompt) {
		t.Errorf("the prompt history lost the session's prompt:\n%s", b)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived the session", n)
		}
	}
	hash := filepath.Base(inst)
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the session left %s", hash+ext)
		}
	}
	os.Remove(fill)
	h.Inside(proj, nil, "true")
}

// TestReplayFaultsKilledInIndexRewrite: the session hides its change to a
// tracked file from git status (assume-unchanged), so the exit audit
// rewrites the index to show it again, under git's own lock; a kill -9 of
// the supervisor while it holds that lock (held there with
// CLAUDEBOX_TRACE_HOLD) leaves .git/index.lock, which would make every
// host git that writes the index fail. Host-side proof: the next claudebox
// command on the host (--list, in another project) removes the lock and
// says so in one line, and git writes the index again; a lock the host's
// own git holds (made by hand here) is left alone.
func TestReplayFaultsKilledInIndexRewrite(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "other")
	h.GitRepo(other)
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	lock := filepath.Join(proj, ".git", "index.lock")
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=index locked"}, "claudebox", "--shell", "-c",
		"git update-index --assume-unchanged README && echo changed >> README")
	s.Stderr = &stderr
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the supervisor to hold in the index's rewrite", func() bool {
		return strings.Contains(stderr.String(), "holding after index locked") || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended before the index's rewrite: %v\n%s", <-exited, stderr.String())
	}
	if !paths.Exists(lock) {
		t.Fatal("the supervisor holds in the index's rewrite, but no index.lock stands")
	}
	s.Process.Signal(syscall.SIGKILL)
	<-exited
	harness.WaitFor(t, "the sandbox to end", func() bool { return !instance.InUse(inst) })
	var listErr strings.Builder
	l := h.Command(other, nil, "claudebox", "--list")
	l.Stderr = &listErr
	if err := l.Run(); err != nil {
		t.Fatalf("--list: %v\n%s", err, listErr.String())
	}
	if paths.Exists(lock) {
		t.Fatalf("the killed supervisor's index.lock outlived --list:\n%s", listErr.String())
	}
	if want := "claudebox: removed " + lock + ", git's lock on the index, left by a session killed while it rewrote the index"; !strings.Contains(listErr.String(), want) {
		t.Errorf("--list did not say what it removed (want %q):\n%s", want, listErr.String())
	}
	h.Run(proj, nil, "git", "update-index", "--no-assume-unchanged", "README")
	// The host's own git holding the lock: no claudebox command touches it.
	h.Write(lock, "")
	h.Run(other, nil, "claudebox", "--list")
	h.Inside(other, nil, "true")
	if !paths.Exists(lock) {
		t.Error("a claudebox command removed the lock the host's git holds")
	}
}

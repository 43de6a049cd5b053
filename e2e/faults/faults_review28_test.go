package faults

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// killedAt runs claudebox with args in dir, held (CLAUDEBOX_TRACE_HOLD) at
// the point called hold, and kills it there with SIGKILL, as a user's
// kill -9 would; it fails the test if the command ended before it got
// there.
func killedAt(t *testing.T, h *harness.Host, dir, hold string, args ...string) {
	t.Helper()
	var stderr harness.Output
	c := h.Command(dir, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", args...)
	c.Stdout, c.Stderr = &stderr, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "claudebox "+strings.Join(args, " ")+" to hold after "+hold, func() bool {
		return strings.Contains(stderr.String(), "holding after "+hold) || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("claudebox %s ended before %s: %v\n%s", strings.Join(args, " "), hold, <-exited, stderr.String())
	}
	c.Process.Signal(syscall.SIGKILL)
	<-exited
}

// recordsOf lists the records ~/.claudebox keeps under hash, of every kind
// (approvals, mounts, caches, the inbox's, the undo store...), and the
// instance itself, in its place or its trash.
func recordsOf(state, hash string) []string {
	var found []string
	kinds, _ := os.ReadDir(state)
	for _, k := range kinds {
		// Go's patterns match a leading dot too: the trash's .gc-HASH.
		more, _ := filepath.Glob(filepath.Join(state, k.Name(), "*"+hash+"*"))
		for _, m := range more {
			// The locks stay: removed, a launch that had opened one
			// would hold a lock no other process sees (a session's seat,
			// .seatN, is one).
			if strings.HasSuffix(m, ".lock") || strings.HasSuffix(m, ".checkout") || strings.Contains(filepath.Base(m), ".seat") {
				continue
			}
			rel, _ := filepath.Rel(state, m)
			found = append(found, rel)
		}
	}
	return found
}

// TestReplayReview28KilledGC: a kill -9 of claudebox --gc at each of its
// steps (held there with CLAUDEBOX_TRACE_HOLD): once it swept what ended
// sessions left, once it removed the stand-ins and start of a project
// that is gone, once it renamed that project's instance to its trash,
// once it removed it (before its records: approvals, mounts, the inbox's,
// the undo store). Host-side proof: --gc run again removes the gone
// project's instance and every record under its hash; the live project's
// instance keeps its prompt history and conversation, and its next launch
// works.
func TestReplayReview28KilledGC(t *testing.T) {
	for _, hold := range []string{"gc swept", "gc stand-ins removed", "gc trashed", "gc records removed"} {
		t.Run(hold, func(t *testing.T) {
			h := harness.NewHost(t)
			h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
			gone, live := filepath.Join(h.Home, "gone"), filepath.Join(h.Home, "live")
			turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"hi"}}`
			for _, p := range []string{gone, live} {
				h.Write(filepath.Join(p, "README"), "hi\n")
				h.GitRepo(p)
				if _, err := harness.ShellAfterSnapshot(t, h, p, `echo '{"display":"prompt of `+filepath.Base(p)+`"}' >> "$HOME/.claude/history.jsonl"
					mkdir -p ~/.claude/projects/-p; echo '`+turn+`' > ~/.claude/projects/-p/20261130-0000-4000-8000-000000000001.jsonl; echo x > notes.txt`); err != nil {
					t.Fatal(err)
				}
			}
			state := filepath.Join(h.Home, ".claudebox")
			goneHash := instance.Hash(gone)
			if len(recordsOf(state, goneHash)) < 3 {
				t.Fatalf("the gone project's sessions left few records: %v", recordsOf(state, goneHash))
			}
			harness.Must(t, os.RemoveAll(gone))
			killedAt(t, h, live, hold, "--gc")
			if out, err := h.Bounded(live, "--gc"); err != nil {
				t.Fatalf("--gc run again: %v\n%s", err, out)
			}
			if left := recordsOf(state, goneHash); len(left) > 0 {
				t.Errorf("the gone project's instance or records outlived --gc run again: %v", left)
			}
			inst := instance.Dir(state, live)
			if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); !strings.Contains(string(b), "prompt of live") {
				t.Errorf("the live project's prompt history: %q", b)
			}
			if !paths.Exists(filepath.Join(inst, "-p", "20261130-0000-4000-8000-000000000001.jsonl")) {
				t.Error("the live project's conversation is gone")
			}
			if out, err := h.Bounded(live, "--shell", "-c", "true"); err != nil {
				t.Errorf("the next launch: %v\n%s", err, out)
			}
		})
	}
}

// TestReplayReview28KilledMove: a kill -9 of claudebox --move (and of
// --move --merge, where the new place has sessions of its own) at each of
// its steps: with the conversations' directories renamed part way, the
// caches, the records, the undo store carried, the instance renamed, the
// inbox's record carried; in a merge, with the sessions moved over, with
// the prompt history merged. Host-side proof: --move run again (or, where
// the kill came once nothing was left to move, --gc) ends the move: the
// new place's instance holds the conversation, under its new name, and
// each prompt of both places once, no record stays under the old root's
// hash, and the next launch at the new place works.
func TestReplayReview28KilledMove(t *testing.T) {
	for _, c := range []struct {
		merge bool
		hold  string
	}{
		{false, "move sessions staged"},
		{false, "move sessions renamed"},
		{false, "move caches"},
		{false, "move records"},
		{false, "move undo"},
		{false, "move instance renamed"},
		{false, "move inbox"},
		{true, "move sessions staged"},
		{true, "move records"},
		{true, "move undo"},
		{true, "move merged sessions"},
		{true, "move merged history"},
	} {
		name := c.hold
		if c.merge {
			name = "merge " + name
		}
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
			old := filepath.Join(h.Home, "proj")
			h.Write(filepath.Join(old, "README"), "hi\n")
			h.GitRepo(old)
			id := "20261130-0000-4000-8000-000000000002"
			turn := fmt.Sprintf(`{"type":"user","cwd":%q,"sessionId":%q,"uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"hi"}}`, old, id)
			dir := gc.ClaudeProjectDir(old)
			said, err := harness.ShellAfterSnapshot(t, h, old, `echo '{"display":"prompt at the old place"}' >> "$HOME/.claude/history.jsonl"
				mkdir -p ~/.claude/projects/`+dir+`; echo '`+turn+`' > ~/.claude/projects/`+dir+`/`+id+`.jsonl; echo x > notes.txt`)
			if err != nil {
				t.Fatal(err)
			}
			moved := filepath.Join(h.Home, "work", "proj")
			harness.Must(t, os.MkdirAll(filepath.Dir(moved), 0o755))
			harness.Must(t, os.Rename(old, moved))
			h.Chown()
			args := []string{"--move", old}
			if c.merge {
				h.Inside(moved, nil, `echo '{"display":"prompt at the new place"}' >> "$HOME/.claude/history.jsonl"`)
				args = append(args, "--merge")
			}
			killedAt(t, h, moved, c.hold, args...)
			state := filepath.Join(h.Home, ".claudebox")
			again, err := h.Bounded(moved, args...)
			if err != nil && !(strings.Contains(again, "no instance of "+old) && !paths.Exists(instance.Dir(state, old))) {
				t.Fatalf("--move run again: %v\n%s", err, again)
			}
			if out, err := h.Bounded(moved, "--gc"); err != nil {
				t.Fatalf("--gc: %v\n%s", err, out)
			}
			inst := instance.Dir(state, moved)
			b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl"))
			prompts := []string{"prompt at the old place"}
			if c.merge {
				prompts = append(prompts, "prompt at the new place")
			}
			for _, p := range prompts {
				if n := strings.Count(string(b), p); n != 1 {
					t.Errorf("the prompt history holds %q %d times:\n%s", p, n, b)
				}
			}
			if !paths.Exists(filepath.Join(inst, gc.ClaudeProjectDir(moved), id+".jsonl")) {
				entries, _ := os.ReadDir(inst)
				t.Errorf("the conversation is not under the new place's name: %v\n%s", entries, again)
			}
			if paths.Exists(filepath.Join(inst, ".claudebox-moving")) {
				t.Error("the move's staging directory outlived it")
			}
			if left := recordsOf(state, instance.Hash(old)); len(left) > 0 {
				// What they hold, and what the session said, tell which
				// step left them (CI saw moved-aside's once, at a load of 5).
				var held []string
				for _, r := range left {
					filepath.WalkDir(filepath.Join(state, r), func(p string, _ fs.DirEntry, _ error) error {
						held = append(held, p)
						return nil
					})
				}
				t.Errorf("records under the old root's hash outlived the move: %v\n%s\nthe session said:\n%s", left, strings.Join(held, "\n"), said)
			}
			if out, err := h.Bounded(moved, "--shell", "-c", "true"); err != nil {
				t.Errorf("the next launch at the new place: %v\n%s", err, out)
			}
		})
	}
}

// TestReplayReview28TwoEndAtOnce: two sessions of one project end at the
// same moment (both held once their watcher stopped, or once the exit
// audit ran, then let go together), so that their exits (the test of
// which is the last, the exit audit, the export to the inbox) run at
// once. Each session wrote a
// prompt, a conversation and a .envrc a level down, which the exit audit
// moves aside. Host-side proof: both end with their command's status;
// each .envrc is in the project or its move was said with the command
// that puts it back; both prompts are in the history; the inbox holds one
// export of each conversation and nothing half made; no stand-in or
// record is left; the next launch works.
func TestReplayReview28TwoEndAtOnce(t *testing.T) {
	for _, hold := range []string{"watcher stop", "exit audit and cleanup"} {
		t.Run(hold, func(t *testing.T) { twoEndAtOnce(t, hold) })
	}
}

func twoEndAtOnce(t *testing.T, hold string) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	inbox := filepath.Join(h.Home, "notes", "proj")
	h.Inside(proj, nil, "true")
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	var outs [2]harness.Output
	var cmds [2]*exec.Cmd
	exited := make(chan error, 2)
	for i := range cmds {
		// The inbox tells sessions by their ids' first 8 characters.
		id := fmt.Sprintf("2026113%d-0000-4000-8000-000000000010", i)
		turn := fmt.Sprintf(`{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"session %d"}}`, i)
		script := fmt.Sprintf(`echo '{"display":"prompt %d"}' >> "$HOME/.claude/history.jsonl"; mkdir -p sub%d ~/.claude/projects/-p; echo 'export X=1' > sub%d/.envrc
			echo '%s' > ~/.claude/projects/-p/%s.jsonl; touch started%d; while ! test -e done; do sleep 0.05; done`, i, i, i, turn, id, i)
		c := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", "--shell", "-c", script)
		c.Stdout, c.Stderr = &outs[i], &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill() })
		cmds[i] = c
		go func() { exited <- c.Wait() }()
	}
	harness.WaitFor(t, "both sessions to start", func() bool {
		return paths.Exists(filepath.Join(proj, "started0")) && paths.Exists(filepath.Join(proj, "started1")) || len(exited) > 0
	})
	h.Write(filepath.Join(proj, "done"), "")
	harness.WaitFor(t, "both supervisors to hold", func() bool {
		return strings.Contains(outs[0].String(), "holding after "+hold) && strings.Contains(outs[1].String(), "holding after "+hold) || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("a session ended before its hold: %v\n%s\n%s", <-exited, outs[0].String(), outs[1].String())
	}
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGUSR1)
	}
	for range cmds {
		if err := <-exited; err != nil {
			t.Errorf("a session: %v", err)
		}
	}
	said := outs[0].String() + outs[1].String()
	for i := range cmds {
		envrc := filepath.Join(proj, fmt.Sprintf("sub%d", i), ".envrc")
		if !paths.Exists(envrc) && !strings.Contains(said, "to put it back: mv -n "+mount.Quote(filepath.Dir(filepath.Dir(envrc)))) && !strings.Contains(said, envrc) {
			t.Errorf("%s was moved aside without a word:\n%s", envrc, said)
		}
	}
	b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl"))
	for i := range cmds {
		if !strings.Contains(string(b), fmt.Sprintf(`{"display":"prompt %d"}`, i)) {
			t.Errorf("the history lost session %d's prompt:\n%s", i, b)
		}
	}
	if half := harness.Globs(inbox, ".*"); len(half) > 0 {
		t.Errorf("the inbox holds what an export left half made: %v", half)
	}
	if got := harness.Globs(inbox, "*.md"); len(got) != 2 {
		t.Errorf("the inbox holds %d exports of the two conversations: %v", len(got), got)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("the stand-in %s outlived both sessions", n)
		}
	}
	hash := filepath.Base(inst)
	for _, ext := range []string{".placeholders", ".guards", ".since"} {
		if paths.Exists(filepath.Join(state, "live", hash+ext)) {
			t.Errorf("the sessions left %s", hash+ext)
		}
	}
	if ps := append(harness.Descendants(cmds[0].Process.Pid), harness.Descendants(cmds[1].Process.Pid)...); len(ps) > 0 {
		t.Errorf("processes outlived the sessions: %v", ps)
	}
	if out, err := h.Bounded(proj, "--shell", "-c", "true"); err != nil {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
	t.Logf("%s", said)
}

// TestReplayReview28ClosedUserFile: the session takes its owner's read
// permission from files of the user's that the exit audit does not judge
// (chmod 000 of a tracked src/main.go, an untracked notes.txt, an ignored
// keep.log, which git status does not show at all). They stayed 000 after
// the session, with no word: the host's git diff failed ("cannot hash
// src/main.go"), the editor could not open them, and the ignored one was
// hidden from the user without a trace. Host-side proof: each is the
// user's to read again, with its content as it was, and the exit names it
// with the mode the session left; git diff works; a file the session made
// and closed stays as it made it.
func TestReplayReview28ClosedUserFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "src", "main.go"), "package main\n")
	h.Write(filepath.Join(proj, ".gitignore"), "*.log\n")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "notes.txt"), "the user's notes\n")
	h.Write(filepath.Join(proj, "keep.log"), "the user's log\n")
	h.Chown()
	out, err := harness.ShellAfterSnapshot(t, h, proj, `chmod 000 src/main.go notes.txt keep.log; echo made > made.txt; chmod 000 made.txt`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for name, content := range map[string]string{"src/main.go": "package main\n", "notes.txt": "the user's notes\n", "keep.log": "the user's log\n"} {
		path := filepath.Join(proj, name)
		fi, err := os.Lstat(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode().Perm()&0o400 == 0 {
			t.Errorf("%s stays %03o after the session", name, fi.Mode().Perm())
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s holds %q", name, b)
		}
		if want := "claudebox: gave " + mount.Quote(path) + " its owner's read permission back (the session had made it 000)"; !strings.Contains(out, want) {
			t.Errorf("the exit did not say %q:\n%s", want, out)
		}
	}
	if fi, err := os.Lstat(filepath.Join(proj, "made.txt")); err != nil || fi.Mode().Perm() != 0 {
		t.Errorf("the file the session made and closed: %v %v", fi, err)
	}
	h.Run(proj, nil, "git", "diff", "--exit-code")
}

// TestReplayReview28HostWritesDuringAudit: while the exit audit runs
// (held once it judged the project, before it moves aside what it found),
// the host's editor saves files by renaming a new one over them, one of
// them the .envrc the audit found, and the host's git commits. Host-side
// proof: the editor's saves and the commit stand (git log, git status
// work, no lock of git's is left); the .envrc the host wrote is in place,
// or its move aside is said with the command that puts it back and what
// it moved holds the host's content: nothing of the user's is lost or
// moved without a word.
func TestReplayReview28HostWritesDuringAudit(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.Write(filepath.Join(proj, "src", "app.go"), "package app\n")
	h.GitRepo(proj)
	const hold = "audit judged"
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", "--shell", "-c",
		"mkdir -p sub && echo 'export X=1' > sub/.envrc && echo session >> README")
	s.Stderr = &stderr
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the exit audit to hold", func() bool { return strings.Contains(stderr.String(), "holding after "+hold) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended before its exit audit held: %v\n%s", <-exited, stderr.String())
	}
	// The editor saves as most do: a new file renamed over the old.
	save := func(path, content string) {
		h.Write(path+".swp", content)
		harness.Must(t, os.Rename(path+".swp", path))
	}
	envrc := filepath.Join(proj, "sub", ".envrc")
	save(envrc, "export HOST=1\n")
	save(filepath.Join(proj, "src", "app.go"), "package app // the host's edit\n")
	h.Run(proj, nil, "git", "add", "README", "src/app.go")
	h.Run(proj, []string{"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@h", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@h"}, "git", "commit", "-q", "-m", "the host's commit")
	s.Process.Signal(syscall.SIGUSR1)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, stderr.String())
	}
	said := stderr.String()
	if b, _ := os.ReadFile(filepath.Join(proj, "src", "app.go")); string(b) != "package app // the host's edit\n" {
		t.Errorf("the editor's save of src/app.go: %q\n%s", b, said)
	}
	if got := strings.TrimSpace(h.Run(proj, nil, "git", "log", "-1", "--format=%s")); got != "the host's commit" {
		t.Errorf("git log after the exit: %q\n%s", got, said)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("git status after the exit: %q\n%s", st, said)
	}
	if paths.Exists(filepath.Join(proj, ".git", "index.lock")) {
		t.Errorf("git's index.lock outlived the exit\n%s", said)
	}
	if b, err := os.ReadFile(envrc); err == nil {
		if string(b) != "export HOST=1\n" {
			t.Errorf("%s holds %q, not the host's save", envrc, b)
		}
		return
	}
	_, back, ok := strings.Cut(said, "to put it back: mv -n ")
	from, _, _ := strings.Cut(back, " "+envrc)
	if !ok {
		t.Fatalf("the host's %s was moved aside without a word:\n%s", envrc, said)
	}
	if b, _ := os.ReadFile(from); string(b) != "export HOST=1\n" {
		t.Errorf("what was moved aside to %s holds %q, not the host's save:\n%s", from, b, said)
	}
}

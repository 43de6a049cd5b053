package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27ClosedUnrecordedDirectories: the session took away
// the permissions of directories of the user's that the start's record
// does not keep (a loose object's directory under .git/objects, a package
// in node_modules: records of trees that large are not taken). The exit
// audit, unable to look in, moved each whole into ~/.claudebox's
// moved-aside area: the host's git log failed (its objects gone) until
// the user ran the `mv` that put them back. Host-side proof: after the
// exit each is in place, its owner's to enter, the exit says so, git log
// reads the history. A package the session changed (its permissions) is
// moved aside whole, as any it changed, but open to its owner there, to
// read before putting it back; one the session made and closed is taken
// whole, planted file and all.
func TestReplayReview27ClosedUnrecordedDirectories(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "index.js"), "module.exports = 1\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "package.json"), `{"name":"left-pad"}`+"\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Chown()
	loose, err := filepath.Glob(filepath.Join(proj, ".git", "objects", "[0-9a-f][0-9a-f]"))
	if err != nil || len(loose) == 0 {
		t.Fatalf("no loose objects' directories: %v", err)
	}
	var closed []string
	for _, d := range loose {
		closed = append(closed, strings.TrimPrefix(d, proj+"/"))
	}
	t.Cleanup(func() {
		filepath.WalkDir(proj, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	script := `set -e
mkdir node_modules/evil && echo 'touch "$HOME/PLANTED"' > node_modules/evil/install.js
chmod 000 node_modules/evil node_modules/left-pad .git/objects/[0-9a-f][0-9a-f]`
	out, err := harness.ShellAfterSnapshot(t, h, proj, script)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for _, d := range closed {
		p := filepath.Join(proj, d)
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
			t.Errorf("%s: not in place, open to its owner, after the exit (%v):\n%s", d, err, out)
		}
		if !strings.Contains(out, "gave "+p+" its owner's permissions back (the session had made it 000)") {
			t.Errorf("the exit does not say it gave %s its permissions back:\n%s", d, out)
		}
	}
	if len(closed)+1 > 10 {
		t.Fatalf("%d directories closed: the exit names ten", len(closed)+1)
	}
	if got := strings.TrimSpace(h.Run(proj, nil, "git", "log", "-1", "--format=%s")); got != "ignore" {
		t.Errorf("git log -1 after the exit: %q:\n%s", got, out)
	}
	aside, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "moved-aside", "*", "*", "node_modules", "left-pad"))
	if len(aside) != 1 {
		t.Errorf("the user's package, changed, is not moved aside: %v\n%s", aside, out)
	} else if fi, err := os.Lstat(aside[0]); err != nil || fi.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("the user's package moved aside, closed (%v):\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(proj, "node_modules", "evil")); err == nil {
		t.Errorf("the session's closed package stays in the project:\n%s", out)
	}
}

// TestReplayReview27UndoKilledInTheWay: --undo restoring dist/.gitkeep
// (tracked, in a directory git ignores) moves aside what stands in its
// way, the file dist the session left where the directory was and the
// user then rebuilt. Its record, written before it moves, named only the
// paths it restores and the files the session made: killed once it
// moved them, the next command named the restored path, never dist, and
// the user's file was in ~/.claudebox's moved-aside area without a word.
// Host-side proof: --undo killed once it moved them, the next claudebox
// command names where the user's dist went.
func TestReplayReview27UndoKilledInTheWay(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "/dist\n")
	h.Write(filepath.Join(proj, "dist", ".gitkeep"), "")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "-f", ".gitignore", "dist/.gitkeep")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "dist")
	h.Chown()
	afterSnapshot(h, proj, "rm -rf dist; echo the session > dist")
	const built = "the user's build after the session\n"
	h.Write(filepath.Join(proj, "dist"), built)
	h.Chown()
	var stderr harness.Output
	c := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=undo applied"}, "claudebox", "--undo", "-y")
	c.Stderr = &stderr
	harness.Must(t, c.Start())
	defer c.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "--undo to hold", func() bool { return strings.Contains(stderr.String(), "holding after undo applied") || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("--undo ended: %v\n%s", <-exited, stderr.String())
	}
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	if fi, err := os.Lstat(filepath.Join(proj, "dist", ".gitkeep")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("--undo did not restore dist/.gitkeep before it was killed (%v):\n%s", err, stderr.String())
	}
	out, err := h.Bounded(proj, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	found := false
	for _, word := range strings.Fields(out) {
		if b, err := os.ReadFile(word); err == nil && strings.Contains(word, "moved-aside") && string(b) == built {
			found = true
		}
	}
	if !found {
		t.Errorf("the next command names no file aside holding the user's dist:\n%s", out)
	}
}

// TestReplayReview27ChangesInvalidName: --changes lists what the last
// session did from the record its end wrote, whose names are the
// sandbox's. The record held them as JSON strings, which turn bytes that
// are not UTF-8 into U+FFFD: a file the session made named with such a
// byte was listed under a name no file has, which the user could not find
// (and two such names were one). Host-side proof: --changes names the
// file by its bytes, escaped, as every other line of claudebox does, and
// --changes --json gives its bytes beside the name.
func TestReplayReview27ChangesInvalidName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hello\n")
	h.GitRepo(proj)
	h.Chown()
	out, err := harness.ShellAfterSnapshot(t, h, proj, `echo x > "$(printf 'bad\376.txt')"; echo y > "$(printf 'bad\377.txt')"`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	list, err := h.Bounded(proj, "--changes")
	if err != nil {
		t.Fatalf("--changes: %v\n%s", err, list)
	}
	for _, want := range []string{`created  bad\xfe.txt`, `created  bad\xff.txt`} {
		if !strings.Contains(list, want) {
			t.Errorf("--changes does not name %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "\ufffd") {
		t.Errorf("--changes names a file no file is named:\n%s", list)
	}
	js, err := h.Bounded(proj, "--changes", "--json")
	if err != nil {
		t.Fatalf("--changes --json: %v\n%s", err, js)
	}
	// base64 of "bad\xfe.txt" and "bad\xff.txt".
	for _, want := range []string{`"path_bytes": "YmFk/i50eHQ="`, `"path_bytes": "YmFk/y50eHQ="`} {
		if !strings.Contains(js, want) {
			t.Errorf("--changes --json does not give %s:\n%s", want, js)
		}
	}
}

// TestReplayReview27HostileInstance: what the sandbox can write of its
// instance (Claude Code's directory in ~/.claudebox) is read by the host's
// commands. The attack, from inside: a FIFO and a link named as
// transcripts, a directory closed (chmod 000), a transcript of a name
// holding a terminal escape and a byte that is not UTF-8, a sparse file of
// a terabyte, a FIFO todo. Proof: each command ends within a minute,
// crashes on none of it, prints no raw control character, and leaves the
// files outside the instance as they were.
func TestReplayReview27HostileInstance(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "secret.txt"), "the user's\n")
	h.Chown()
	before := harness.Snapshots([]string{filepath.Join(h.Home, "secret.txt")})
	h.Inside(proj, nil, `set -e
p=$(pwd | sed 's#[^a-zA-Z0-9]#-#g')
cd ~/.claude
mkdir -p todos "projects/$p"
cd "projects/$p"
mkfifo 11111111-1111-1111-1111-111111111111.jsonl
ln -s ~/../../../etc/passwd 22222222-2222-2222-2222-222222222222.jsonl
printf '{"type":"user","message":{"role":"user","content":"hi\033[31m"},"sessionId":"3","cwd":"%s"}\n' "$PWD" > "$(printf '33333333-\033]0;owned\007-\377.jsonl')"
truncate -s 1T 44444444-4444-4444-4444-444444444444.jsonl
mkdir closed && echo x > closed/f && chmod 000 closed
mkfifo ~/.claude/todos/fifo.json
chmod 000 ~/.claude/todos
`)
	for _, args := range [][]string{{"--list"}, {"--list-sessions"}, {"--export"}, {"--export-all", filepath.Join(h.Base, "out")}, {"--changes"}, {"--gc"}, {"--check"}} {
		out, err := h.Bounded(proj, args...)
		if strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
			t.Errorf("claudebox %s crashed: %v\n%s", strings.Join(args, " "), err, out)
		}
		if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\xff") {
			t.Errorf("claudebox %s printed a raw control character or byte:\n%q", strings.Join(args, " "), out)
		}
		t.Logf("claudebox %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	harness.CompareSnapshots(t, before)
}

// TestReplayReview27ClosedGitFiles: the session took away the read
// permission of the user's git files (chmod 000 of its packs, loose
// objects, HEAD, index and branch). The exit audit, unable to read them,
// took the packs, the objects and the index for the session's and moved
// them aside, and left HEAD closed: the host's git log failed (not a git
// repository) until the user put each back. Host-side proof: after the
// exit each is in place and its owner's to read, the exit says so, moves
// nothing aside, and the host's git log and git status read the
// repository; a loose object the session made and closed is still moved
// aside.
func TestReplayReview27ClosedGitFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "a.txt"), "hello\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "gc", "-q")
	h.Write(filepath.Join(proj, "b.txt"), "hello again\n")
	h.Run(proj, nil, "git", "add", "b.txt")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "b")
	h.Chown()
	closed, err := filepath.Glob(filepath.Join(proj, ".git", "objects", "[0-9a-f][0-9a-f]", "*"))
	if err != nil || len(closed) == 0 {
		t.Fatalf("no loose objects: %v", err)
	}
	packs, _ := filepath.Glob(filepath.Join(proj, ".git", "objects", "pack", "pack-*"))
	closed = append(closed, packs...)
	for _, f := range []string{"HEAD", "index", "refs/heads/master"} {
		closed = append(closed, filepath.Join(proj, ".git", f))
	}
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e
mkdir -p .git/objects/ff
echo planted > .git/objects/ff/00000000000000000000000000000000000000
chmod 000 .git/objects/pack/* .git/objects/[0-9a-f][0-9a-f]/* .git/HEAD .git/index .git/refs/heads/master`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for _, p := range closed {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm()&0o400 == 0 {
			t.Errorf("%s: not in place, readable by its owner, after the exit (%v):\n%s", p, err, out)
		}
	}
	if n := strings.Count(out, "its owner's read permission back (the session had made it 000)"); n < min(len(closed), 10) {
		t.Errorf("the exit names %d files given back, want %d:\n%s", n, len(closed), out)
	}
	if got := strings.TrimSpace(h.Run(proj, nil, "git", "log", "--format=%s")); got != "b\ninit" {
		t.Errorf("git log after the exit: %q:\n%s", got, out)
	}
	h.Run(proj, nil, "git", "status", "--porcelain")
	if _, err := os.Lstat(filepath.Join(proj, ".git", "objects", "ff", "00000000000000000000000000000000000000")); err == nil {
		t.Errorf("the session's closed object stays in the repository:\n%s", out)
	}
}

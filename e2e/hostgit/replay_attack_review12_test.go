package hostgit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// forgeIndexEntry is a script that writes into the index of the
// repository in $1 an entry for the path $2 naming the blob $3, with the
// status the file has now (ctime, mtime, device, inode, owner, size): git
// then takes the blob for the file's content without reading the file.
// The file itself is not touched.
const forgeIndexEntry = `python3 - "$@" <<'PY'
import hashlib, os, struct, sys
repo, path, oid = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
index = os.path.join(repo, '.git', 'index')
b = bytearray(open(index, 'rb').read())
n, p = struct.unpack('>I', b[8:12])[0], 12
for _ in range(n):
    flags = struct.unpack('>H', b[p+60:p+62])[0]
    name = bytes(b[p+62:p+62+(flags & 0xfff)]).decode()
    if name == path:
        st = os.lstat(os.path.join(repo, name))
        mode = struct.unpack('>I', b[p+24:p+28])[0]
        struct.pack_into('>10I', b, p, int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime), st.st_mtime_ns % 10**9,
            st.st_dev & 0xffffffff, st.st_ino & 0xffffffff, mode, st.st_uid, st.st_gid, st.st_size & 0xffffffff)
        b[p+40:p+60] = oid
    p += (62 + (flags & 0xfff) + 8) // 8 * 8
b[-20:] = hashlib.sha1(b[:-20]).digest()
open(index + '.new', 'wb').write(b)
os.rename(index + '.new', index)
PY`

// renamePacked is a script that gives the one object of the pack whose
// index is $1, named $2, the name $3 in that index: git reads a packed
// object by the name its pack's index gives it, without checking it.
const renamePacked = `python3 - "$@" <<'PY'
import hashlib, sys
path, old, new = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
b = bytearray(open(path, 'rb').read())
assert b[:8] == b'\377tOc\0\0\0\2' and b[8+255*4:8+256*4] == b'\0\0\0\1'
for i in range(256):
    b[8+i*4:12+i*4] = (1 if i >= new[0] else 0).to_bytes(4, 'big')
at = 8 + 256*4
assert b[at:at+20] == old
b[at:at+20] = new
b[-20:] = hashlib.sha1(b[:-20]).digest()
open(path + '.new', 'wb').write(b)
import os; os.chmod(path, 0o644); os.rename(path + '.new', path)
PY`

// TestReplayReview12UndoForgedIndex: the first snapshot of a checkout
// started from a copy of the checkout's .git/index, and git trusted each
// entry whose status data matched the file for the content it names,
// without reading the file. A session of an enclosing project (~/code,
// while ~/code/x has had no session yet) writes into x's index an entry
// for x's .envrc naming a blob of its own, with the status .envrc has:
// x's first session's snapshot then said .envrc held the session's text
// at its start, and claudebox --undo in x, which the user runs to put x
// back, wrote it into .envrc, which direnv runs. Host-side proof: after
// x's session and --undo, .envrc is byte for byte what the user wrote.
func TestReplayReview12UndoForgedIndex(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	x := filepath.Join(code, "x")
	h.GitRepo(x)
	envrc := "export GREETING=hello\n"
	h.Write(filepath.Join(x, ".envrc"), envrc)
	h.Run(x, nil, "git", "add", ".envrc")
	h.Run(x, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
	out := h.Inside(code, nil, `set -e
		oid=$(printf 'touch ~/PWNED\n' | git -C x hash-object -w --stdin)
		set -- x .envrc "$oid"
		`+forgeIndexEntry+`
		echo FORGED`)
	if !strings.Contains(out, "FORGED") {
		t.Fatalf("x's index could not be written from ~/code's session:\n%s", out)
	}
	_, xOut, xExited := harness.StartSession(t, h, x, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	h.WaitSnapshot()
	harness.TouchDone(t, x)
	if err := <-xExited; err != nil {
		t.Fatalf("x's session: %v\n%s", err, xOut)
	}
	undoOut, err := h.Bounded(x, "--undo", "-y")
	if got, _ := os.ReadFile(filepath.Join(x, ".envrc")); string(got) != envrc {
		t.Errorf("--undo wrote the enclosing session's text into x's .envrc: %q (%v)\n%s", got, err, undoOut)
	}
}

// TestReplayReview12UndoForgedTree: a snapshot of a clean checkout is
// the tree of HEAD, which git finds among the project's objects and so
// does not write into the store; --undo checks each blob against its
// name, and reads the trees (which path holds which blob) from there. The
// session gives a tree of its own, naming a blob of its own for .envrc,
// the name of HEAD's tree in a pack's index (git reads a packed object by
// that name, before a loose one, without checking it). Held: git checks
// each tree it parses against its name, and --undo refuses. Host-side
// proof: after --undo, .envrc is byte for byte what the user wrote.
func TestReplayReview12UndoForgedTree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	envrc := "export GREETING=hello\n"
	h.Write(filepath.Join(proj, ".envrc"), envrc)
	h.Run(proj, nil, "git", "add", ".envrc")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
	_, out, exited := harness.StartSession(t, h, proj, `set -e
		evil=$(printf 'touch ~/PWNED\n' | git hash-object -w --stdin)
		T=$(git rev-parse HEAD^{tree})
		F=$(printf '100644 blob %s\t.envrc\n100644 blob %s\tREADME\n' "$evil" "$(git rev-parse HEAD:README)" | git mktree)
		P=$(echo "$F" | git pack-objects .git/objects/pack/pack)
		set -- .git/objects/pack/pack-$P.idx "$F" "$T"
		`+renamePacked+`
		touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	undoOut, err := h.Bounded(proj, "--undo", "-y")
	if got, _ := os.ReadFile(filepath.Join(proj, ".envrc")); string(got) != envrc {
		t.Errorf("--undo wrote the session's text into .envrc: %q (%v)\n%s", got, err, undoOut)
	}
}

// TestReplayReview12UndoSparseFile: --undo compared each file the
// snapshot holds by reading it whole into memory, up to 4 GiB. The
// session replaces a tracked file with a sparse file of nearly 4 GiB
// (no disk used): --undo --dry-run, which the user runs to see what the
// session did, took 4 GiB of the host's memory for it, as much again for
// each such file. Now a file whose size is not the start's is changed
// without being read. Host-side proof: --undo --dry-run ends, naming the
// file, having used under 512 MiB.
func TestReplayReview12UndoSparseFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		rm README; truncate -s 4294967295 README`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(h.Bin, "maxrss"), 0o755)
	undoOut, err := h.Command(proj, nil, "maxrss", "claudebox", "--undo", "--dry-run").CombinedOutput()
	if err != nil || !strings.Contains(string(undoOut), "README (changed)") {
		t.Fatalf("--undo --dry-run: %v\n%s", err, undoOut)
	}
	lines := strings.Split(strings.TrimSpace(string(undoOut)), "\n")
	rss, err := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "maxrss "))
	if err != nil {
		t.Fatalf("no peak memory measured: %v\n%s", err, undoOut)
	}
	if rss > 512<<10 {
		t.Errorf("--undo --dry-run took %d MiB of memory for the session's sparse file", rss>>10)
	}
}

// TestReplayReview12SplitIndexForgedStat: review 11's forged status
// data (TestReplayReview11ForgedStatHidesEdit), written into a split
// index (git update-index --split-index: .git/index holds what changed,
// .git/sharedindex.<hash> the rest), which the exit audit does not
// rewrite. Host-side proof: git status --porcelain names the Makefile.
func TestReplayReview12SplitIndexForgedStat(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\techo ok\n")
	h.Run(proj, nil, "git", "add", "Makefile")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "make")
	out := h.Inside(proj, nil, `set -e
		printf 'all:\n\ttouch /tmp/PWNED\n' > Makefile
		set -- Makefile
		`+forgeIndexStat+`
		git update-index --split-index
		ls .git/sharedindex.* >/dev/null
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE`)
	if !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Fatalf("the split index's status data could not be forged here:\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(st, "Makefile") {
		t.Errorf("the host's git status hides the session's edit of the Makefile: %q", st)
	}
}

// TestReplayReview12WorktreeMadeRace: -w records what git made for a new
// worktree in the repository's git directory (commondir, gitdir, HEAD,
// index) by identity once git worktree add has ended, and the exit audit
// takes what keeps that identity for the host's. A session running in
// the main checkout watches .git/worktrees for the new worktree and, while
// git checks its files out (its index.lock there), renames over its
// commondir one naming a repository it made where the audit does not
// walk (in .git/objects), whose config sets core.fsmonitor: -w recorded
// the session's commondir as its own, the audit passed over it, and the
// host's git status in the new worktree ran the session's command.
// Host-side proof: after both sessions, git status in the worktree runs
// nothing the session planted.
func TestReplayReview12WorktreeMadeRace(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	// Enough files that git's checkout of them takes a while.
	h.Run(proj, nil, "bash", "-c", "mkdir src && for i in {1..1000}; do echo $i > src/f$i.txt; done && git add -A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files")
	pwned := filepath.Join(h.Base, "PWNED")
	_, mainOut, mainExited := harness.StartSession(t, h, proj, `set -e
		evil=$PWD/.git/objects/evil
		mkdir -p $evil/objects $evil/refs/heads
		cp .git/HEAD $evil/HEAD
		printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch `+pwned+`; false"\n' > $evil/config
		touch started
		python3 - "$evil" <<'PY'
import os, sys, time
admin = '.git/worktrees/proj-task'
while not os.path.exists(admin + '/index.lock'):
    if os.path.exists('done'):
        print('UNSEEN')  # .git/worktrees is the session's own inside
        sys.exit(0)
try:
    open(admin + '/commondir.new', 'w').write(sys.argv[1] + '\n')
    os.rename(admin + '/commondir.new', admin + '/commondir')
    print('RACED')
except OSError:
    print('REFUSED')  # a record made during the session is not writable inside
PY
		while ! test -e done; do sleep 0.05; done`)
	task := h.Command(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "true")
	taskOut, _ := task.CombinedOutput()
	harness.TouchDone(t, proj)
	if err := <-mainExited; err != nil {
		t.Fatalf("the main session: %v\n%s", err, mainOut)
	}
	if !strings.Contains(mainOut.String(), "RACED") && !strings.Contains(mainOut.String(), "REFUSED") && !strings.Contains(mainOut.String(), "UNSEEN") {
		t.Fatalf("the session did not see the worktree being made:\n%s\n%s", mainOut, taskOut)
	}
	w := filepath.Join(h.Home, "code", "proj-task")
	c := h.Command(w, nil, "git", "status", "--porcelain")
	c.CombinedOutput()
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the host's git status in the new worktree ran the session's core.fsmonitor:\n%s\n%s", mainOut, taskOut)
	}
}

// TestReplayReview12FirstSessionHeadFIFO: a session of an enclosing
// project (~/code) replaces x's .git/HEAD with a FIFO before x's first
// session, whose undo store does not exist yet: making it, the launch ran
// git rev-parse in x without a bound to learn the object format, which
// opens HEAD and waits forever, and the session's end waits for the
// snapshot: every launch in x ran its command and then never ended.
// Host-side proof: x's launch ends.
func TestReplayReview12FirstSessionHeadFIFO(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	x := filepath.Join(code, "x")
	h.GitRepo(x)
	h.Inside(code, nil, `rm x/.git/HEAD && mkfifo x/.git/HEAD`)
	h.Bounded(x, "--shell", "-c", "true")
}

// TestReplayReview12StandInChmodThroughLink: a launch makes each missing
// directory's stand-in beside it under a temporary name, then set its
// mode by that name (following a symlink) and renamed it into place. A
// session of an enclosing project (~/code, while x's sessions start)
// watches x for the temporary name, moves the directory away and leaves a
// symlink to a file of the user's outside both projects in its place: the
// launch made the user's private key readable by everyone (mode 1555).
// Host-side proof: after x's launches, the key's mode is 0600.
func TestReplayReview12StandInChmodThroughLink(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	x := filepath.Join(code, "x")
	h.GitRepo(x)
	key := filepath.Join(h.Home, ".ssh", "id_ed25519")
	h.Write(key, "PRIVATE KEY\n")
	if err := os.Chmod(key, 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, exited := harness.StartSession(t, h, code, `touch started
		python3 - <<'PY'
import os
while not os.path.exists('done'):
    for n in os.listdir('x'):
        p = 'x/' + n
        if n.startswith('.claudebox-stand-in-') and not n.endswith('.moved') and not os.path.islink(p):
            try:
                os.rename(p, p + '.moved')
                os.symlink('`+key+`', p)
            except OSError:
                pass
PY`)
	for range 20 {
		h.Command(x, nil, "claudebox", "--shell", "-c", "true").Run()
		if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
			break
		}
	}
	harness.TouchDone(t, code)
	if err := <-exited; err != nil {
		t.Fatalf("the racing session: %v\n%s", err, out)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a launch in x changed the mode of the user's key through the session's link: %v %v", fi.Mode(), err)
	}
}

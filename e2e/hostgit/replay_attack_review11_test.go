package hostgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// forgeIndexStat is a script that writes into .git/index, for each path
// named as its arguments, the status the file has now (ctime, mtime,
// device, inode, owner, size), as the session can: git then takes the
// entry for the file's content without reading it. The file's mtime is
// set back first, so git does not read it as racily clean.
const forgeIndexStat = `python3 - "$@" <<'PY'
import hashlib, os, struct, sys
b = bytearray(open('.git/index', 'rb').read())
n, p = struct.unpack('>I', b[8:12])[0], 12
for _ in range(n):
    flags = struct.unpack('>H', b[p+60:p+62])[0]
    name = bytes(b[p+62:p+62+(flags & 0xfff)]).decode()
    if name in sys.argv[1:]:
        os.utime(name, (1577836800, 1577836800))
        st = os.lstat(name)
        mode = struct.unpack('>I', b[p+24:p+28])[0]
        struct.pack_into('>10I', b, p, int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime), st.st_mtime_ns % 10**9,
            st.st_dev & 0xffffffff, st.st_ino & 0xffffffff, mode, st.st_uid, st.st_gid, st.st_size & 0xffffffff)
    p += (62 + (flags & 0xfff) + 8) // 8 * 8
b[-20:] = hashlib.sha1(b[:-20]).digest()
open('.git/index.new', 'wb').write(b)
os.rename('.git/index.new', '.git/index')
PY`

// TestReplayReview11ForgedStatHidesEdit: git status takes an index
// entry whose status data (ctime, mtime, inode, size) matches the file
// for the content it names, without reading the file. The session edits
// the tracked Makefile, then writes the edited file's status into the
// index entry (no flag set): the host's git status and git diff say
// nothing, and the host's make runs the session's recipe. The exit audit
// zeroes the status data of each entry whose file changed during the
// session, in an index the session wrote, so that git reads it again.
// Host-side proof: git status --porcelain names the Makefile.
func TestReplayReview11ForgedStatHidesEdit(t *testing.T) {
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
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE`)
	if !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Fatalf("the index's status data could not be forged here:\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(st, "Makefile") {
		t.Errorf("the host's git status hides the session's edit of the Makefile: %q", st)
	}
}

// TestReplayReview11ApprovedKeySuffixes: the host's ~/.claude.json
// records the API keys the user approved or rejected by their last 20
// characters, and the launch carried that record into the sandbox's copy
// whole: 20 characters of the real key (and of every other key the user
// ever answered for) readable inside, where only the phantom's approval is
// needed. Proof inside: no suffix of a real key is in ~/.claude.json,
// while the phantom is approved.
func TestReplayReview11ApprovedKeySuffixes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	real := "sk-ant-api03-" + strings.Repeat("r", 60) + "REALKEYSUFFIX0123456"
	other := "sk-ant-api03-" + strings.Repeat("o", 60) + "OTHERKEYSUFFIX012345"
	h.Write(filepath.Join(h.Home, ".claude.json"), `{"hasCompletedOnboarding": true,
		"customApiKeyResponses": {"approved": ["`+real[len(real)-20:]+`"], "rejected": ["`+other[len(other)-20:]+`"]}}`)
	out := h.Inside(proj, []string{"ANTHROPIC_API_KEY=" + real}, `cat ~/.claude.json; echo; echo "phantom=${ANTHROPIC_API_KEY: -20}"`)
	for _, suffix := range []string{"REALKEYSUFFIX", "OTHERKEYSUFFIX"} {
		if strings.Contains(out, suffix) {
			t.Errorf("the last characters of a real key (%s) are inside:\n%s", suffix, out)
		}
	}
	_, phantom, _ := strings.Cut(out, "phantom=")
	if phantom = strings.TrimSpace(phantom); len(phantom) != 20 || !strings.Contains(out, `"`+phantom+`"`) {
		t.Errorf("the phantom %q is not approved inside:\n%s", phantom, out)
	}
}

// TestReplayReview11WorktreeListFIFO: while a session runs, it plants
// .git/worktrees/x whose gitdir is a FIFO. git worktree list opens it to
// read where the worktree is and waits forever for a writer; claudebox
// --list and -w ran git worktree list, and hung with it (as --gc does,
// after a killed session left it). Host-side proof: both answer in
// bounded time, -w refusing, naming the FIFO.
func TestReplayReview11WorktreeListFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	// Planted on the host, as a sandbox left it before .git/worktrees
	// was read-only inside.
	h.Run(proj, nil, "sh", "-c", `set -e; mkdir -p .git/worktrees/x && cd .git/worktrees/x
		mkfifo gitdir; echo 'ref: refs/heads/x' > HEAD; echo ../.. > commondir`)
	_, aOut, aExited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done`)
	if len(aExited) > 0 {
		t.Fatalf("the planting session ended early:\n%s", aOut)
	}
	if out, err := h.Bounded(proj, "--list"); err != nil {
		t.Errorf("claudebox --list: %v\n%s", err, out)
	}
	if out, err := h.Bounded(proj, "-w", "task", "--dry-run"); err == nil || !strings.Contains(out, "gitdir") {
		t.Errorf("claudebox -w task did not refuse, naming the FIFO: %v\n%s", err, out)
	}
	harness.TouchDone(t, proj)
	if err := <-aExited; err != nil {
		t.Fatalf("the planting session: %v\n%s", err, aOut)
	}
}

// TestReplayReview11CheckRefFIFO: a session leaves a FIFO as a loose
// branch, .git/refs/heads/evil (made here from the host: the exit audit
// now moves one aside, TestReplayReview17DeepGitFIFO, but a session still
// running, or one whose supervisor was killed, leaves it in place).
// claudebox --check lists the local branches (git for-each-ref), which
// opens it and waits forever, in a project that tracks a protected file
// (.envrc). Host-side proof: --check ends, saying the branches were not
// all compared.
func TestReplayReview11CheckRefFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "export A=1\n")
	h.Run(proj, nil, "git", "add", ".envrc")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
	h.Run(proj, nil, "mkfifo", ".git/refs/heads/evil")
	if out, _ := h.Bounded(proj, "--check"); !strings.Contains(out, "branches were not all compared") {
		t.Errorf("--check did not say git did not answer:\n%s", out)
	}
}

// TestReplayReview11UndoObjectFIFO: a snapshot of a clean checkout is
// the tree of HEAD, which the project's objects hold (the store reads
// them through its alternates, and does not copy them). The session
// replaces that tree's loose object with a FIFO, which the exit audit
// does not look at: claudebox --undo, which the user runs to undo the
// session, had git read it and wait forever. Host-side proof: --undo
// --dry-run and --undo -y end.
func TestReplayReview11UndoObjectFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, `sleep 1; echo edited > README
		T=$(git rev-parse HEAD^{tree}); f=.git/objects/${T:0:2}/${T:2}
		rm -f "$f"; mkfifo "$f"`)
	h.Bounded(proj, "--undo", "--dry-run")
	h.Bounded(proj, "--undo", "-y")
}

// TestReplayReview11InboxThroughLink: the user keeps the inbox in a
// repository of notes (export-dir = "~/notes/inbox") and runs claudebox
// there too. The session replaces the project's inbox folder,
// ~/notes/inbox/notes, with a link to ~/.bashrc.d (which Fedora's
// ~/.bashrc sources whole) and writes a conversation with a command on a
// line of its own. At its end the host exported the conversation through
// the link: a file the host's next shell runs. An inbox in a project is
// now refused at each export, saying so. Host-side proof: nothing is
// written in ~/.bashrc.d.
func TestReplayReview11InboxThroughLink(t *testing.T) {
	h := harness.NewHost(t)
	notes := filepath.Join(h.Home, "notes")
	h.GitRepo(notes)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes/inbox\"\n")
	h.Write(filepath.Join(h.Home, ".bashrc"), "for rc in ~/.bashrc.d/*; do [ -f \"$rc\" ] && . \"$rc\"; done\n")
	rcd := filepath.Join(h.Home, ".bashrc.d")
	h.Write(filepath.Join(rcd, "aliases"), "alias ll='ls -l'\n")
	pwned := filepath.Join(h.Home, "PWNED")
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"hello"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-11-20T10:00:01Z","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"Done.\n\ntouch ` + pwned + `\n"}]}}`
	out, err := h.Command(notes, nil, "claudebox", "--shell", "-c", `set -e
		mkdir -p inbox; rm -rf inbox/notes; ln -s `+rcd+` inbox/notes
		d=~/.claude/projects/-planted; mkdir -p $d
		echo '`+turn+`' > $d/20261120-0000-4000-8000-000000000001.jsonl`).CombinedOutput()
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "not exported: export-dir") {
		t.Errorf("the end did not say why nothing was exported:\n%s", out)
	}
	if files, _ := filepath.Glob(filepath.Join(rcd, "*")); len(files) != 1 {
		h.Command(h.Home, nil, "bash", "-ic", "true").Run()
		_, err := os.Stat(pwned)
		t.Errorf("the inbox export went through the session's link into %s: %q (the next shell ran it: %v)", rcd, files, err == nil)
	}
}

// TestReplayReview11WorktreeObjectFIFO: the session leaves a FIFO in
// place of the loose object of a file HEAD holds, which the exit audit
// does not look at; claudebox -w task then has git check that file out
// into the new worktree, and git waits on the FIFO forever. Host-side
// proof: -w ends, refusing, naming the FIFO (or, since the exit audit
// moves aside what holds no object of its name, the missing object).
func TestReplayReview11WorktreeObjectFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, `B=$(git rev-parse HEAD:README); f=.git/objects/${B:0:2}/${B:2}
		rm -f "$f"; mkfifo "$f"`)
	if out, err := h.Bounded(proj, "-w", "task", "--shell", "-c", "true"); err == nil || !strings.Contains(out, "not a file") && !strings.Contains(out, "unable to read") {
		t.Errorf("claudebox -w task did not refuse, naming the FIFO or the missing object: %v\n%s", err, out)
	}
}

// TestReplayReview11SparseIndexHidesEdit: a sparse index (index.sparse)
// holds a directory as one entry, lib/, marked skip-worktree, and git
// expands it into the directory's files, each marked skip-worktree, in a
// repository without any sparse-checkout configuration. The session
// writes such an index (made in a copy of the repository, whose
// configuration it may change) and edits lib/a.py: git status there says
// nothing of it. Held: the exit audit reads the directory's entry as one
// marked skip-worktree during the session and clears its flag. Host-side
// proof: git status names lib/a.py.
func TestReplayReview11SparseIndexHidesEdit(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "lib", "a.py"), "print('ok')\n")
	h.Write(filepath.Join(proj, "other", "o"), "o\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib")
	out := h.Inside(proj, nil, `set -e
		cp -r . /tmp/w; cd /tmp/w; git update-index -q --refresh
		git sparse-checkout init --cone --sparse-index; git sparse-checkout set other
		cp .git/index ~/index.sparse; cd - >/dev/null
		cp ~/index.sparse .git/index.new; mv .git/index.new .git/index
		echo 'import os; os.system("touch /tmp/PWNED")' > lib/a.py
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE`)
	if !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Fatalf("the sparse index could not be written here:\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(st, "lib/a.py") {
		t.Errorf("the host's git status hides the session's edit of lib/a.py: %q", st)
	}
}

package hostgit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview15UndoSparseSnapshot: --undo read each file its
// snapshot holds whole into memory to compare it (when its size was the
// start's), and every file it restores whole, twice over, before writing
// any. A session leaves a file of zeros that the next session's snapshot
// takes, and that session changes one byte of it: claudebox --undo
// --dry-run, which the user runs to see what the session did, took the
// file's size in memory, --undo nearly five times as much (a snapshot's
// git hashes about 25 GiB of zeros in its ten minutes; a sparse file it
// now leaves out, TestReplayReview15SnapshotSparseFile). Now both stream,
// and a restored file's zeros are holes. Host-side proof: --undo
// --dry-run and --undo each end under 160 MiB, and the file is back, its
// size the start's, taking no disk.
func TestReplayReview15UndoSparseSnapshot(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const size = 256 << 20
	h.Inside(proj, nil, "head -c 268435456 /dev/zero > data.bin")
	taken, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		printf x | dd of=data.bin bs=1 seek=4096 conv=notrunc 2>/dev/null`)
	harness.WaitFor(t, "the second session's undo snapshot", func() bool {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found) > len(taken)
	})
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	plan, rss := peakMemory(t, h, proj, "--undo", "--dry-run")
	if !strings.Contains(plan, "data.bin") {
		t.Fatalf("--undo --dry-run does not name the changed file:\n%s", plan)
	}
	if rss > 160<<10 {
		t.Errorf("--undo --dry-run took %d MiB of memory for the snapshot's large file", rss>>10)
	}
	applied, rss := peakMemory(t, h, proj, "--undo", "-y")
	if rss > 160<<10 {
		t.Errorf("--undo took %d MiB of memory to restore the large file", rss>>10)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(proj, "data.bin"), &st); err != nil || st.Size != size {
		t.Fatalf("--undo did not restore data.bin (%v, %d bytes):\n%s", err, st.Size, applied)
	}
	if f, err := os.Open(filepath.Join(proj, "data.bin")); err == nil {
		b := make([]byte, 1)
		f.ReadAt(b, 4096)
		f.Close()
		if b[0] != 0 {
			t.Errorf("--undo left the session's byte in data.bin:\n%s", applied)
		}
	}
	if used := st.Blocks * 512; used > 1<<20 {
		t.Errorf("--undo wrote %d MiB of disk for a file of zeros", used>>20)
	}
}

// TestReplayReview15ForgedObjects: git reads an object by its name and
// never checks its content against it (only git fsck does), and the exit
// audit passed over the repository's objects as data. The session
// rewrites the loose object of the project's committed pre-commit hook
// (core.hooksPath .githooks) with a script of its own under the same
// name, and adds a pack whose index gives the commit-msg hook's name to
// its own script (git looks in packs before loose objects): git status
// and git diff show nothing, and the host's next checkout of those files
// (git worktree add, claudebox -w, a switch of branches, a clone of the
// repository) writes the session's scripts, which that checkout's next
// git commit runs. Host-side proof: after the session, a worktree added
// on the host, and a commit there, run nothing the session wrote.
func TestReplayReview15ForgedObjects(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	for _, hook := range []string{"pre-commit", "commit-msg"} {
		h.Write(filepath.Join(proj, ".githooks", hook), "#!/bin/sh\nexit 0\n")
		os.Chmod(filepath.Join(proj, ".githooks", hook), 0o755)
	}
	h.Run(proj, nil, "git", "add", ".githooks")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	marker := h.Marker()
	out := h.Inside(proj, nil, `set -e
		script='#!/bin/sh
touch `+marker+`
'
		oid=$(git rev-parse HEAD:.githooks/pre-commit)
		python3 - ".git/objects/$(echo $oid | cut -c1-2)/$(echo $oid | cut -c3-)" "$script" <<'PY'
import os, sys, zlib
path, content = sys.argv[1], sys.argv[2].encode()
open(path + '.new', 'wb').write(zlib.compress(b'blob %d\0' % len(content) + content))
os.rename(path + '.new', path)
PY
		oid=$(git rev-parse HEAD:.githooks/commit-msg)
		own=$(printf '%s' "$script" | git hash-object -w --stdin)
		pack=$(echo $own | git pack-objects -q .git/objects/pack/pack)
		rm .git/objects/$(echo $own | cut -c1-2)/$(echo $own | cut -c3-)
		set -- .git/objects/pack/pack-$pack.idx $own $oid
		`+renamePacked+`
		git cat-file -p HEAD:.githooks/pre-commit | grep -q MARKER && git cat-file -p HEAD:.githooks/commit-msg | grep -q MARKER
		test -z "$(git status --porcelain)" && echo FORGED`)
	if !strings.Contains(out, "FORGED") {
		t.Fatalf("the objects could not be forged here:\n%s", out)
	}
	wt := filepath.Join(h.Home, "wt")
	added, _ := h.Command(proj, nil, "git", "worktree", "add", "-q", wt).CombinedOutput()
	committed, _ := h.Command(wt, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit in a worktree it added ran the session's forged hook:\n%s\n%s%s", out, added, committed)
	}
}

// TestReplayReview15ReplaceRef: git reads, checks out, shows and diffs
// the object a replace ref names (refs/replace/<name>) in place of the
// object it replaces, and git status shows none. The session replaces
// the blob of the project's committed pre-commit hook (core.hooksPath
// .githooks) with a script of its own, a valid object under its own name:
// the host's next checkout of the hook (git worktree add, claudebox -w, a
// switch of branches) writes the session's script, which that checkout's
// next git commit runs. Host-side proof: after the session, a worktree
// added on the host, and a commit there, run nothing the session wrote.
func TestReplayReview15ReplaceRef(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".githooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(proj, ".githooks", "pre-commit"), 0o755)
	h.Run(proj, nil, "git", "add", ".githooks")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	marker := h.Marker()
	out := h.Inside(proj, nil, `set -e
		own=$(printf '#!/bin/sh\ntouch `+marker+`\n' | git hash-object -w --stdin)
		git replace $(git rev-parse HEAD:.githooks/pre-commit) $own
		git cat-file -p HEAD:.githooks/pre-commit | grep -q MARKER
		test -z "$(git status --porcelain)" && echo REPLACED`)
	if !strings.Contains(out, "REPLACED") {
		t.Fatalf("the hook's object could not be replaced here:\n%s", out)
	}
	wt := filepath.Join(h.Home, "wt")
	added, _ := h.Command(proj, nil, "git", "worktree", "add", "-q", wt).CombinedOutput()
	committed, _ := h.Command(wt, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit in a worktree it added ran the session's replacement hook:\n%s\n%s%s", out, added, committed)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the host's git status after the session: %q", st)
	}
}

// TestReplayReview15CommittedHook: the project's pre-commit hook
// (core.hooksPath .githooks) is read-only inside, but the session commits
// a script of its own in its place with git's plumbing (git update-index
// --cacheinfo, git commit). The work tree keeps the user's hook, and git
// status shows it as modified, as if the session had changed it: the
// user's git restore to discard that writes the session's script, which
// the next git commit runs, as does a worktree added from HEAD. What is
// committed is history, left knowingly; the exit now names the file.
// Host-side proof: the end names the hook, and says what would write the
// session's version.
func TestReplayReview15CommittedHook(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".githooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(proj, ".githooks", "pre-commit"), 0o755)
	h.Run(proj, nil, "git", "add", ".githooks")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	out := h.InsideStderr(proj, `set -e
		own=$(printf '#!/bin/sh\ntouch `+h.Marker()+`\n' | git hash-object -w --stdin)
		git update-index --cacheinfo 100755,$own,.githooks/pre-commit
		git -c user.name=t -c user.email=t@example.com commit -qm update --no-verify
		echo COMMITTED >&2`)
	if !strings.Contains(out, "COMMITTED") {
		t.Fatalf("the hook could not be committed here:\n%s", out)
	}
	if !strings.Contains(out, "git holds for "+filepath.Join(proj, ".githooks", "pre-commit")) || !strings.Contains(out, "git restore") {
		t.Errorf("the end did not name the hook the session committed:\n%s", out)
	}
}

// TestReplayReview15SnapshotSparseFile: a session leaves a sparse file of
// a terabyte (no disk used) in the project, untracked. Every later
// launch's undo snapshot had git hash it, which takes hours: git was
// stopped after the ten minutes it is given, a processor busy all that
// time, and no session had a snapshot (--undo took an older one). Now a
// sparse file is left out of the snapshot, named by --undo as left as it
// is. Host-side proof: the next session's snapshot is written within a
// minute, and --undo --dry-run names the file.
func TestReplayReview15SnapshotSparseFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, "truncate -s 1T huge.bin")
	taken, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	harness.WaitFor(t, "the second session's undo snapshot", func() bool {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found) > len(taken)
	})
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	plan, err := h.Bounded(proj, "--undo", "--dry-run")
	if err != nil || !strings.Contains(plan, "huge.bin") {
		t.Errorf("--undo --dry-run does not name the sparse file: %v\n%s", err, plan)
	}
}

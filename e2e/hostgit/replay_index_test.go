package hostgit

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// The exit audit reads each index the host's git reads, for the gitlinks
// that send the host's git status into a repository the audit's walk does
// not go into (node_modules): these are the indexes it did not read.

// gitlinkedRepo is a script for inside the sandbox, run in a work tree: it
// makes node_modules/evil a repository whose config runs `touch marker` on
// the host's next git status there, and records it as a gitlink in the
// work tree's index.
func gitlinkedRepo(marker string) string {
	return `
		set -e
		git init -q node_modules/evil
		(cd node_modules/evil && echo b > b && git add b && git -c user.name=t -c user.email=t@example.com commit -qm i &&
		 git config core.fsmonitor "touch ` + marker + `; false")
		git update-index --add --cacheinfo 160000,$(git -C node_modules/evil rev-parse HEAD),node_modules/evil
	`
}

// TestReplayIndexSplitIndex: the session adds the gitlink, then splits the
// index (git update-index --split-index, twice): the entries move into
// .git/sharedindex.<hash>, which git reads through the index's link
// extension, and .git/index holds none of them. Host-side proof: the
// host's git status at the top runs nothing.
func TestReplayIndexSplitIndex(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := h.Marker()
	stderr := h.InsideStderr(proj, gitlinkedRepo(marker)+`
		git update-index --split-index
		git update-index --split-index
	`)
	hostGitStatus(t, h, proj, marker)
	if t.Failed() {
		t.Logf("session's stderr:\n%s", stderr)
	}
}

// TestReplayIndexSubmodule: the project has a submodule; the session adds
// the gitlink to the submodule's index, which lives in
// .git/modules/<name>/index, not in a directory named .git. The host's git
// status at the top recurses into the submodule, and from it into the
// gitlink. Host-side proof: the host's git status at the top runs nothing.
func TestReplayIndexSubmodule(t *testing.T) {
	h := harness.NewHost(t)
	lib := filepath.Join(h.Home, "lib")
	h.GitRepo(lib)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sub")
	stderr := h.InsideStderr(proj, "cd sub\n"+gitlinkedRepo(h.Marker()))
	hostGitStatus(t, h, proj, h.Marker())
	if t.Failed() {
		t.Logf("session's stderr:\n%s", stderr)
	}
}

// TestReplayIndexLinkedWorktree: the session adds the gitlink to the
// index of a linked worktree inside the project (one the host made: one
// made inside is the session's own), .git/worktrees/x/index.
// Host-side proof: the host's git status in the worktree runs nothing.
func TestReplayIndexLinkedWorktree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "worktree", "add", "-q", ".worktrees/x")
	stderr := h.InsideStderr(proj, "cd .worktrees/x\n"+gitlinkedRepo(h.Marker()))
	if wt := filepath.Join(proj, ".worktrees", "x"); paths.Exists(wt) {
		hostGitStatus(t, h, wt, h.Marker())
	}
	if t.Failed() {
		t.Logf("session's stderr:\n%s", stderr)
	}
}

// TestReplayIndexSymlink: the session writes an index with the gitlink
// elsewhere (GIT_INDEX_FILE) and makes .git/index a symlink to it; git
// reads the index through the link. Host-side proof: the host's git
// status at the top runs nothing.
func TestReplayIndexSymlink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	script := strings.Replace(gitlinkedRepo(h.Marker()), "git update-index", "cp .git/index node_modules/.idx\n\t\tGIT_INDEX_FILE=node_modules/.idx git update-index", 1)
	stderr := h.InsideStderr(proj, script+`
		ln -s ../node_modules/.idx .git/index.new && mv .git/index.new .git/index
	`)
	hostGitStatus(t, h, proj, h.Marker())
	if t.Failed() {
		t.Logf("session's stderr:\n%s", stderr)
	}
}

// TestReplayIndexUnreadable: the session splits the index with the
// gitlink in it, then makes the shared index a symlink to a copy in
// node_modules, which git follows and the audit cannot read. Host-side
// proof: the host's git status at the top runs nothing (the audit named
// the index as not examined, and left it).
func TestReplayIndexUnreadable(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	stderr := h.InsideStderr(proj, gitlinkedRepo(h.Marker())+`
		git update-index --split-index
		git update-index --split-index
		s=$(cd .git && echo sharedindex.*)
		mv .git/$s node_modules/.si && ln -s ../node_modules/.si .git/$s
	`)
	hostGitStatus(t, h, proj, h.Marker())
	if t.Failed() {
		t.Logf("session's stderr:\n%s", stderr)
	}
}

// TestReplayIndexRewrittenInPlace: the record at a session's start takes
// the index's hidden entries from the last sessions' record while the
// index is the same file with the same status, unread. The session
// rewrites the index in place, on the same inode (cat over it, not a
// rename), marking README assume-unchanged, and edits
// README: git status there says nothing of it. Held: the write moved the
// index's status change on, which nothing sets back, so the exit audit
// reads it and clears the flag. Host-side proof: git status names README.
func TestReplayIndexRewrittenInPlace(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, "true") // the record the next start builds on
	h.Inside(proj, nil, "true") // one built on it, now the base
	out := h.Inside(proj, nil, `set -e
		before=$(stat -c %i .git/index)
		cp .git/index /tmp/index
		GIT_INDEX_FILE=/tmp/index git update-index --assume-unchanged README
		cat /tmp/index > .git/index
		test "$(stat -c %i .git/index)" = "$before" && echo SAME-FILE
		echo 'touch /tmp/PWNED' >> README
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE`)
	if !strings.Contains(out, "SAME-FILE") || !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Fatalf("the index could not be rewritten in place here:\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(st, "README") {
		t.Errorf("the host's git status hides the session's edit of README: %q", st)
	}
}

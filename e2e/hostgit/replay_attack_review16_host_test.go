package hostgit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview16ReftableReplaceRef: the session makes a repository
// in the project whose refs are reftable tables (extensions.refStorage =
// reftable, which git 2.45 and later reads), with a replace ref among
// them: the exit audit reads loose and packed refs for replace refs, but
// not reftable tables, and took the config for inert, so the host's git
// in that repository would show the session's object in place of the
// one named. Host-side proof: the end names the repository's config and
// moves it aside, so no git reads its refs as reftable.
func TestReplayReview16ReftableReplaceRef(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	oid := strings.Repeat("1", 40)
	out := h.InsideStderr(proj, `set -e
		mkdir -p sub/.git/objects/info sub/.git/refs/heads sub/.git/reftable
		echo 'ref: refs/heads/.invalid' > sub/.git/HEAD
		printf '[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n' > sub/.git/config
		echo 0x000000000001-0x000000000001-00000000.ref > sub/.git/reftable/tables.list
		printf 'REFT\001refs/replace/`+oid+`' > sub/.git/reftable/0x000000000001-0x000000000001-00000000.ref
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the repository could not be planted:\n%s", out)
	}
	config := filepath.Join(proj, "sub", ".git", "config")
	if _, err := os.Lstat(config); err == nil {
		t.Errorf("the reftable repository's config is still in place after the session:\n%s", out)
	}
	if !strings.Contains(out, config) {
		t.Errorf("the end did not name the reftable repository's config:\n%s", out)
	}
}

// TestReplayReview16LegacyRemoteFile: the session writes .git/remotes/origin
// (git's legacy remote files, read for a remote the config does not
// define) in a project with no remote of its config: the host's git push
// origin, and a git pull or fetch with no remote named, then go where the
// session said, with the project's history. Host-side proof: after the
// session the host's git push origin reaches nothing the session named.
func TestReplayReview16LegacyRemoteFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	exfil := filepath.Join(h.Base, "exfil.git")
	h.Run(h.Base, nil, "git", "init", "-q", "--bare", exfil)
	out := h.InsideStderr(proj, `set -e
		mkdir -p .git/remotes .git/branches
		printf 'URL: `+exfil+`\nPush: refs/heads/*:refs/heads/*\n' > .git/remotes/origin
		echo `+exfil+` > .git/branches/upstream
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the remote could not be planted:\n%s", out)
	}
	for _, remote := range []string{"origin", "upstream"} {
		pushed, _ := h.Command(proj, nil, "git", "push", "-q", remote, "HEAD:refs/heads/"+remote).CombinedOutput()
		if got, _ := h.Command(exfil, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/"+remote).Output(); len(got) > 0 {
			t.Errorf("the host's git push %s went where the session said:\n%s\n%s", remote, out, pushed)
		}
	}
}

// TestReplayReview16GitDirFIFO: the session replaces .git/shallow and
// .git/HEAD with FIFOs: every git command of the host's in the project
// (git status, git log, git commit) then waits forever on the open.
// Host-side proof: after the session the host's git status ends.
func TestReplayReview16GitDirFIFO(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	out := h.InsideStderr(proj, `set -e
		mkfifo .git/shallow
		cp .git/HEAD .git/HEAD.x && rm .git/HEAD && mkfifo .git/HEAD
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the FIFOs could not be planted:\n%s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := h.Command(proj, nil, "git", "status", "--porcelain")
	done := make(chan error, 1)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		c.Process.Kill()
		<-done
		t.Errorf("the host's git status waited on the session's FIFO:\n%s", out)
	}
}

package hostgitlate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview40GitDirLinks: the exit judged what a session wrote in
// a git directory by its name, and passed over a file git only reads or
// writes as data (a message being edited, the list of packs in
// objects/info, a ref, which is named) whatever it was: a symlink
// there was left. Git follows it: git commit writes its message into
// COMMIT_EDITMSG wherever that leads (the session's link to ~/.bashrc
// had the host's commit rewrite it with the message; SQUASH_MSG takes
// the squashed commits' messages, the session's), and git gc opens
// objects/info/packs and git branch each loose ref: linked to a FIFO the
// session left in the work tree, the host's git gc and git branch waited
// forever. Now a symlink the session made or changed anywhere in
// a git directory is a finding, moved aside, as a FIFO there is.
// Host-side proof: after the session the host's git status, git commit,
// git branch and git gc end, and ~/.bashrc holds what it held.
func TestReplayReview40GitDirLinks(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bashrc := filepath.Join(h.Home, ".bashrc")
	h.Write(bashrc, "# the user's own\n")
	out := h.InsideStderr(proj, `set -e
		mkfifo data.pipe
		ln -sfn `+bashrc+` .git/COMMIT_EDITMSG
		ln -sfn ../../../data.pipe .git/objects/info/packs
		ln -sfn ../../../data.pipe .git/refs/heads/pipe
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the links could not be planted:\n%s", out)
	}
	for _, args := range [][]string{
		{"status", "--porcelain"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "the user's commit"},
		{"branch", "--list"},
		{"gc", "-q"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		c := h.Command(proj, nil, "git", args...)
		if err := c.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-ctx.Done():
			c.Process.Kill()
			<-done
			t.Errorf("the host's git %s waited on the session's FIFO:\n%s", strings.Join(args, " "), out)
		}
		cancel()
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# the user's own\n" {
		t.Errorf("the host's git commit wrote ~/.bashrc through the session's link: %q\n%s", b, out)
	}
}

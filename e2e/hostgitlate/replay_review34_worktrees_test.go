package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview34PrivateWorktreesPlanted: the project's .git/worktrees
// is the session's own inside (where Claude Code's worktrees are
// recorded), beside a linked worktree's record that existed at the launch.
// A hostile session plants there what the host's git once followed: a link
// to a folder of the user's, a FIFO, a hard link, a record whose commondir
// is ../../evil (a repository it made at .git/evil, with core.fsmonitor set), one
// whose gitdir names ~/.bashrc, one whose config.worktree sets
// core.fsmonitor, and 10,000 records; and it adds a worktree in the
// project, with settings in it the host obeys (Claude Code's, direnv's,
// VS Code's), and a checkout there whose .git leads to the evil record. While it runs and after, the host's git worktree list, prune,
// repair and gc, git status in the project and in the linked worktree run
// nothing it planted and touch nothing of the user's; the exit moves
// aside the settings in the checkout; the host's
// .git/worktrees holds the linked worktree's record alone; the next
// launch starts at once, and git in the linked worktree still works
// inside.
func TestReplayReview34PrivateWorktreesPlanted(t *testing.T) {
	h := harness.NewHost(t)
	docs := filepath.Join(h.Home, "Documents")
	h.Write(filepath.Join(docs, "thesis", "one.tex"), "chapter one\n")
	bashrc := filepath.Join(h.Home, ".bashrc")
	h.Write(bashrc, "# mine\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	side := filepath.Join(h.Home, "proj-side")
	h.Run(proj, nil, "git", "worktree", "add", "-q", side)
	pwned := h.Marker()
	_, out, exited := harness.StartSession(t, h, proj, `set -e
		w=.git/worktrees
		ln -s `+docs+` $w/zz
		mkfifo $w/fifo
		ln .git/HEAD $w/hard 2>/dev/null || ln -s ../HEAD $w/hard
		git worktree list --porcelain | grep -qx "worktree `+side+`"
		git init -q --bare .git/evil && git --git-dir=.git/evil config core.fsmonitor "touch `+pwned+`; false"
		mkdir $w/evil && echo ../../evil > $w/evil/commondir && echo "$PWD/.wt/evil/.git" > $w/evil/gitdir && echo ref: refs/heads/master > $w/evil/HEAD
		mkdir $w/rc && echo `+bashrc+` > $w/rc/gitdir && echo ../.. > $w/rc/commondir && echo ref: refs/heads/master > $w/rc/HEAD
		mkdir $w/cfg && printf '[core]\n\tfsmonitor = "touch `+pwned+`; false"\n' > $w/cfg/config.worktree && echo ../.. > $w/cfg/commondir && echo "$PWD/.git" > $w/cfg/gitdir && echo ref: refs/heads/master > $w/cfg/HEAD
		python3 -c '
import os
for i in range(10000):
    d = ".git/worktrees/d%d" % i
    os.mkdir(d)
    open(d + "/gitdir", "w").write("/nowhere/%d/.git\n" % i)
'
		git worktree add -q .wt/x
		mkdir -p .wt/x/.claude .wt/x/.vscode
		echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+pwned+`"}]}]}}' > .wt/x/.claude/settings.json
		echo 'touch `+pwned+`' > .wt/x/.envrc
		echo '{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch `+pwned+`","runOptions":{"runOn":"folderOpen"}}]}' > .wt/x/.vscode/tasks.json
		mkdir -p .wt/evil && echo "gitdir: $PWD/.git/worktrees/evil" > .wt/evil/.git
		touch started
		while ! test -e done; do sleep 0.05; done`)
	if len(exited) > 0 {
		t.Fatalf("the planting session ended early:\n%s", out)
	}
	host := func(when string) {
		t.Helper()
		for _, args := range [][]string{
			{"worktree", "list", "--porcelain"}, {"worktree", "prune"}, {"worktree", "repair"}, {"status", "--porcelain"}, {"gc", "-q"},
		} {
			if o, err := h.Command(proj, nil, "git", args...).CombinedOutput(); err != nil {
				t.Errorf("%s: the host's git %v: %v\n%s", when, args, err, o)
			}
		}
		if o, err := h.Command(side, nil, "git", "status", "--porcelain").CombinedOutput(); err != nil {
			t.Errorf("%s: the host's git status in the linked worktree: %v\n%s", when, err, o)
		}
		entries, _ := os.ReadDir(filepath.Join(proj, ".git", "worktrees"))
		for _, e := range entries {
			if e.Name() != "proj-side" && e.Name() != ".claudebox" {
				t.Errorf("%s: the host's .git/worktrees holds %s", when, e.Name())
			}
		}
		if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 2 || !strings.Contains(list, "worktree "+side+"\n") {
			t.Errorf("%s: the host's git worktree list:\n%s", when, list)
		}
	}
	host("while it runs")
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Errorf("the session: %v\n%s", err, out)
	}
	host("after it")
	if b, err := os.ReadFile(filepath.Join(docs, "thesis", "one.tex")); err != nil || string(b) != "chapter one\n" {
		t.Errorf("the user's file: %q %v", b, err)
	}
	if b, err := os.ReadFile(bashrc); err != nil || string(b) != "# mine\n" {
		t.Errorf("~/.bashrc: %q %v", b, err)
	}
	// The checkout the session made in the project is files it wrote:
	// what the host obeys there is moved aside at exit.
	for _, f := range []string{".wt/x/.claude/settings.json", ".wt/x/.envrc", ".wt/x/.vscode/tasks.json"} {
		if paths.Exists(filepath.Join(proj, f)) {
			t.Errorf("%s is in the project after the session:\n%s", f, out)
		}
	}
	if paths.Exists(pwned) {
		t.Errorf("the host's git ran what the session planted:\n%s", out)
	}
	began := time.Now()
	next, err := h.Bounded(proj, "--shell", "-c", "git worktree list --porcelain | grep -c '^worktree '; ls .git/worktrees")
	if err != nil || !strings.Contains(next, "2\nproj-side\n") {
		t.Errorf("the next launch (%v): %v\n%s", time.Since(began), err, next)
	}
	t.Logf("the next launch took %v", time.Since(began))
}

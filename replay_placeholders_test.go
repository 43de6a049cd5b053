package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
)

// TestReplayPlaceholdersOverlappingProjects: a session in ~/code and one in
// ~/code/x (a repository inside the ~/code project; each its own project,
// instance and lock) both guard x/.git/commondir, which does not exist, so
// both stand on the one placeholder the first of them made on the host.
// The attack: one session ends while the other spins renaming a prepared
// commondir into x/.git/commondir. If the session that ends removes the
// placeholder, the survivor's guard (a mount on it) is detached, the rename
// lands, and survives both cleanups and both exit audits (a guarded path);
// the host's git in x then follows it to a config whose core.fsmonitor
// runs. And the survivor's watcher, seeing a guarded path removed, ends it.
// Host-side proof, in either order of ending: the survivor keeps running
// (and its rename never lands), the placeholder stands until the last of
// the two ends and is gone after it, and the host's git status in x runs
// nothing.
func TestReplayPlaceholdersOverlappingProjects(t *testing.T) {
	for _, survivor := range []string{"outer", "inner"} {
		t.Run(survivor+" survives", func(t *testing.T) {
			h := newE2EHost(t)
			code := filepath.Join(h.home, "code")
			x := filepath.Join(code, "x")
			h.write(filepath.Join(code, "README"), "code\n")
			h.gitRepo(x)
			commondir := filepath.Join(x, ".git", "commondir")
			marker := filepath.Join(h.base, "marker")
			// A sparse checkout's setting: git reads config.worktree.
			h.run(x, nil, "git", "config", "extensions.worktreeConfig", "true")
			racer, other, prefix := code, x, "x/"
			if survivor == "inner" {
				racer, other, prefix = x, code, ""
			}
			// The racer's look-alike repository, and what it renames into
			// each missing guarded path it can: a commondir pointing at that
			// repository, a config.worktree whose fsmonitor runs.
			evil := filepath.Join(racer, "evil")
			for _, d := range []string{"objects", "refs"} {
				h.write(filepath.Join(evil, d, ".keep"), "")
			}
			payload := fmt.Sprintf("[core]\n\tfsmonitor = touch %s\n", marker)
			h.write(filepath.Join(evil, "HEAD"), "ref: refs/heads/main\n")
			h.write(filepath.Join(evil, "config"), payload)
			targets := map[string]string{
				".git/commondir":          evil + "\n",
				".git/config.worktree":    payload,
				".git/info/attributes":    "* filter=x\n",
				".pre-commit-config.yaml": "repos: []\n",
			}
			var args []string
			for name, content := range targets {
				h.write(filepath.Join(x, name+".new"), content)
				args = append(args, prefix+name)
			}
			self, _ := os.Executable()
			h.copyFile(self, filepath.Join(racer, "renamerace"), 0o755)
			h.chown()

			raceOut, raceExited := startShell(t, h, racer, `touch started; ./renamerace `+strings.Join(args, " "))
			otherOut, otherExited := startShell(t, h, other, `touch started; while ! test -e done; do sleep 0.05; done`)
			if len(raceExited) > 0 || len(otherExited) > 0 {
				t.Fatalf("a session ended early:\n%s\n%s", raceOut, otherOut)
			}
			if !instance.IsPlaceholder(commondir) {
				t.Fatal("the test needs a placeholder at x/.git/commondir")
			}
			h.write(filepath.Join(other, "done"), "")
			if err := <-otherExited; err != nil {
				t.Fatalf("the %s session: %v\n%s", survivor, err, otherOut)
			}
			// The racer spins for a second after the other session ended.
			time.Sleep(1500 * time.Millisecond)
			select {
			case err := <-raceExited:
				t.Errorf("the other session's end ended this one: %v\n%s", err, raceOut)
			default:
				if !instance.IsPlaceholder(commondir) {
					t.Errorf("the placeholder was removed while a session guarding it runs")
				}
				h.write(filepath.Join(racer, "done"), "")
				if err := <-raceExited; err != nil {
					t.Errorf("the surviving session: %v\n%s", err, raceOut)
				}
			}
			t.Logf("the racing session:\n%s", raceOut)
			if strings.Contains(raceOut.String(), "RACED") {
				t.Errorf("the sandbox renamed its files over guarded paths")
			}
			if instance.Exists(commondir) {
				b, _ := os.ReadFile(commondir)
				t.Errorf("x/.git/commondir outlived both sessions: %q", b)
			}
			h.run(x, nil, "git", "status", "--short")
			if instance.Exists(marker) {
				t.Errorf("the host's git status in x ran what the sandbox planted")
			}
		})
	}
}

// renameRace is a hostile sandbox's program: renamerace PATH.... It
// renames each PATH.new over its PATH in turn, again and again, as fast as
// it can, printing RACED PATH for each that lands (its guard was gone),
// until a file named "done" exists.
func renameRace(paths []string) int {
	landed := map[string]bool{}
	for i := 0; ; i++ {
		for _, p := range paths {
			if !landed[p] && unix.Rename(p+".new", p) == nil {
				landed[p] = true
				fmt.Println("RACED", p)
			}
		}
		if i%1000 == 0 && instance.Exists("done") {
			return 0
		}
	}
}

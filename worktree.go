package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/undo"
	"github.com/claudebox/claudebox/untrusted"
)

// taskWorktree finds the linked worktree of branch name in the repository
// holding cwd, or makes it beside the repository's main checkout (in dir
// when set) as <checkout>-<name>, from HEAD when the branch is new; it
// returns the worktree's checkout. Claude Code's own --worktree cannot work
// inside the sandbox (the folder holding the project is read-only there,
// and Claude cannot confirm a mounted .git), so the host makes it: a
// linked worktree shares the project's instance, and its session its
// history.
// With dryRun, a worktree not made yet is an error: nothing is made.
func taskWorktree(cwd, name, dir, stateDir string, dryRun bool) (string, error) {
	p, err := instance.Resolve(cwd)
	if err != nil {
		return "", err
	}
	if p.CommonDir == "" {
		return "", hint.Errorf("run git init first, or start claudebox without -w", "-w makes a git worktree, and %s is not in a git repository", printable.Escape(cwd))
	}
	if _, err := git(p.Root, "check-ref-format", "--branch", name); err != nil || strings.HasPrefix(name, "-") {
		return "", hint.Errorf("name a branch: claudebox -w fix-login", "-w: \"%s\" is not a branch name", printable.Excerpt(name))
	}
	main, linked, planted, err := worktrees(p)
	if err != nil {
		return "", err
	}
	for _, w := range linked {
		if w.Branch == name {
			return w.Path, nil
		}
	}
	for _, w := range planted {
		if w.Branch == name {
			return "", hint.Errorf("if you did not make it, look at what the sessions left in "+filepath.Join(p.CommonDir, "worktrees"), "-w %s: git lists the worktree of branch %s at %s, which is not a checkout of this repository", printable.Escape(name), printable.Escape(name), printable.Escape(w.Path))
		}
	}
	if main.Branch == name && !main.Held {
		return main.Path, nil
	}
	if dir == "" {
		dir = filepath.Dir(main.Path)
	}
	path := filepath.Join(dir, filepath.Base(main.Path)+"-"+strings.ReplaceAll(name, "/", "-"))
	if dryRun {
		return "", hint.Errorf("claudebox -w "+name+" makes it", "--dry-run: branch %s has no worktree yet", printable.Escape(name))
	}
	if paths.Exists(path) {
		return "", hint.Errorf("remove or rename it, or name another branch", "-w %s: %s exists and is not the worktree of branch %s", printable.Escape(name), printable.Escape(path), printable.Escape(name))
	}
	args := []string{"worktree", "add", "-q", path, name}
	if _, err := git(p.Root, "rev-parse", "--verify", "--quiet", "refs/heads/"+name); err != nil {
		args = []string{"worktree", "add", "-q", "-b", name, path}
	}
	// No launch of the project is between its probe and its stand-ins
	// while git makes the worktree's files.
	lock, err := instance.LockWorktrees(instance.Dir(stateDir, p.Root))
	if err != nil {
		return "", err
	}
	_, err = git(p.Root, args...)
	if err == nil {
		err = instance.RecordMade(instance.Dir(stateDir, p.Root), worktreeFiles(path, name))
	}
	lock.Close()
	if err != nil {
		return "", hint.Errorf("git worktree add "+path+" "+name+" shows git's own words", "-w %s: %v", printable.Escape(name), err)
	}
	fmt.Fprintf(os.Stderr, "claudebox: made the worktree of branch %s at %s\n", printable.Escape(name), printable.Escape(path))
	return path, nil
}

// worktreeFiles are what git made for the worktree of branch name at
// path in the repository's git directory, with the content git gives
// them: gitdir, commondir and HEAD, which the exit audit of a session
// already running would otherwise take for its sandbox's. -w vouches for
// nothing else there: the sandbox may have written it before -w looked
// (the index is the audit's to read as any index a session wrote). The
// .git file is read as a regular file only: a session of an enclosing
// project can swap it for a FIFO as git makes it, which would hold -w,
// and the lock every launch of the project waits on, forever.
func worktreeFiles(path, name string) map[string][]byte {
	b, err := untrusted.ReadFile(path, ".git", 4096)
	admin, ok := strings.CutPrefix(strings.TrimSuffix(string(b), "\n"), "gitdir: ")
	real, rerr := filepath.EvalSymlinks(path)
	if err != nil || rerr != nil || !ok {
		return nil
	}
	return map[string][]byte{
		filepath.Join(admin, "gitdir"):    []byte(filepath.Join(real, ".git") + "\n"),
		filepath.Join(admin, "commondir"): []byte("../..\n"),
		filepath.Join(admin, "HEAD"):      []byte("ref: refs/heads/" + name + "\n"),
	}
}

// enterWorktree makes the worktree of branch name the working directory,
// making the worktree first if it is new.
func enterWorktree(home session.Home, name string, dryRun bool) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := config.WorktreeDir(home.Dir)
	if err != nil {
		return err
	}
	path, err := taskWorktree(cwd, name, dir, home.State, dryRun)
	if err != nil {
		return err
	}
	return os.Chdir(path)
}

// sameDir says whether the directories a and b are one.
func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// worktree is one entry of git worktree list --porcelain.
type worktree struct {
	Path, Branch string
	// Held: locked or bare, which --gc never removes.
	Held bool
}

// parseWorktrees reads git worktree list --porcelain; the first entry is
// the main worktree.
func parseWorktrees(list string) []worktree {
	var out []worktree
	for _, block := range strings.Split(strings.TrimSpace(list), "\n\n") {
		var w worktree
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "worktree "); ok {
				w.Path = v
			}
			if v, ok := strings.CutPrefix(line, "branch refs/heads/"); ok {
				w.Branch = v
			}
			if line == "bare" || line == "locked" || strings.HasPrefix(line, "locked ") {
				w.Held = true
			}
		}
		if w.Path != "" {
			out = append(out, w)
		}
	}
	return out
}

// worktrees lists the repository p's worktrees, its main checkout first
// (p.Root for a bare repository). The list is read from the repository's
// worktrees/*/gitdir, which a session can plant (for the exit audit to
// find only at its end), so only a checkout whose own .git leads back to
// this repository is kept: never a directory a planted entry names, where
// running git would obey that directory's configuration.
// The entries left out are planted: they are returned apart, to be named.
func worktrees(p instance.Project) (main worktree, linked, planted []worktree, err error) {
	if path := waitingEntry(p.CommonDir); path != "" {
		return worktree{}, nil, nil, hint.Errorf("if you did not make it, remove it: rm "+mount.Quote(path), "git would wait forever to read %s, which is not a file (a FIFO a session left)", printable.Escape(path))
	}
	list, err := git(p.Root, "worktree", "list", "--porcelain")
	if err != nil {
		return worktree{}, nil, nil, err
	}
	all := parseWorktrees(list)
	main = worktree{Path: p.Root, Held: true}
	if len(all) > 0 && !all[0].Held {
		main = all[0]
	}
	for _, w := range all[min(1, len(all)):] {
		if q, err := instance.Resolve(w.Path); err == nil && q.CommonDir == p.CommonDir && sameDir(q.Checkout, w.Path) {
			linked = append(linked, w)
		} else {
			planted = append(planted, w)
		}
	}
	return main, linked, planted, nil
}

// waitingEntry names what git reads of the repository's worktrees (each
// worktree's record in commonDir/worktrees, HEAD, the objects) that it
// would open and wait on forever: a FIFO or a device, which a session can
// leave there. "" when there is none.
func waitingEntry(commonDir string) string {
	if commonDir == "" {
		return ""
	}
	check := []string{filepath.Join(commonDir, "HEAD")}
	records, _ := untrusted.ReadDir(commonDir, "worktrees")
	for _, r := range records {
		rel := filepath.Join("worktrees", r.Name())
		check = append(check, filepath.Join(commonDir, rel))
		files, _ := untrusted.ReadDir(commonDir, rel)
		for _, f := range files {
			check = append(check, filepath.Join(commonDir, rel, f.Name()))
		}
	}
	for _, path := range check {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeDevice) != 0 {
			return path
		}
	}
	// -w checks files out of the objects, and --gc compares commits.
	return undo.WaitingObject(commonDir)
}

// gitLimit bounds how long a git query on the project may take, and
// checkoutLimit adding or removing a worktree (a large tree's files): a
// FIFO made where git reads (while a session runs, after the look for
// one) would otherwise hold the command, and the launches waiting on
// -w's lock, forever.
const gitLimit, checkoutLimit = time.Minute, 10 * time.Minute

// git runs the host's git in dir, as the user would there, bounded.
func git(dir string, args ...string) (string, error) {
	var out, stderr bytes.Buffer
	limit := gitLimit
	if len(args) > 1 && args[0] == "worktree" && (args[1] == "add" || args[1] == "remove") {
		limit = checkoutLimit
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	c.Stdout, c.Stderr = &out, &stderr
	if err := c.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s did not answer in %v (a FIFO a session left where git reads?)", args[0], limit)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s", printable.Excerpt(msg))
	}
	return out.String(), nil
}

// doneWorktrees lists the project's linked worktrees whose work is done:
// the branch merged into the main checkout's HEAD, and git showing nothing
// uncommitted in it, untracked files included.
func doneWorktrees(p instance.Project) []worktree {
	main, linked, _, err := worktrees(p)
	if err != nil {
		return nil
	}
	var done []worktree
	for _, w := range linked {
		if w.Held || w.Branch == "" {
			continue
		}
		if _, err := git(main.Path, "merge-base", "--is-ancestor", "refs/heads/"+w.Branch, "HEAD"); err != nil {
			continue
		}
		if status, err := git(w.Path, "status", "--porcelain", "--untracked-files=all"); err != nil || status != "" {
			continue
		}
		done = append(done, w)
	}
	return done
}

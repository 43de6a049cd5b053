package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/pty"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/untrusted"
)

// Where --gc and --list read the machine's filesystems; tests point them at
// fixtures.
var (
	mountinfoFile = "/proc/self/mountinfo"
	fstabFile     = "/etc/fstab"
)

// gcCmd prunes the instances whose project is gone.
type gcCmd struct{ DryRun, Caches bool }

func (g gcCmd) Run(home session.Home) error {
	state := home.State
	verb := map[bool]string{false: "removed", true: "would remove"}[g.DryRun]
	if g.Caches {
		return g.emptyCaches(state, verb)
	}
	event := func(e gc.Event) {
		switch e.Kind {
		case "remove":
			// Its tool caches go with it, and the summary counts them.
			size := humanBytes(e.Instance.Bytes)
			if e.Instance.CacheBytes > 0 {
				size += " and " + humanBytes(e.Instance.CacheBytes) + " of its tool caches"
			}
			printable.Say(os.Stderr, "claudebox: %s %s (%s, root %s is gone)", verb, e.Instance.Dir, size, e.Instance.Root)
		case "keep":
			printable.Say(os.Stderr, "claudebox: kept %s: root %s is gone, but a session is running in it", e.Instance.Dir, e.Instance.Root)
		case "finish":
			printable.Say(os.Stderr, "claudebox: %s %s, left by an interrupted --gc", verb, e.Instance.Dir)
		}
	}
	skip := func(s gc.Skipped) { report(os.Stderr, skipNotice(s)) }
	if !g.DryRun {
		sayRunSwept(session.SweepRun(state))
	}
	holdpoint.At("gc swept")
	g.offerWorktrees(state)
	sum, err := gc.Collect(state, readMounts(), g.DryRun, event, skip)
	if err != nil {
		return err
	}
	freed := "freed"
	if g.DryRun {
		verb, freed = "to remove", "to free"
	}
	printable.Say(os.Stderr, "claudebox: %d kept, %d %s, %d skipped, %s %s", sum.Kept, sum.Removed, verb, sum.Skipped, humanBytes(sum.Freed), freed)
	return nil
}

// sayRunSwept names what --gc removed of ended sessions' run files: the
// network log each leaves for a later look (claudebox --net-log), in one
// line; each other file, which a session removes as it ends, as what one
// killed left.
func sayRunSwept(removed []string) {
	var logs []string
	for _, f := range removed {
		if strings.HasSuffix(f, ".log") {
			logs = append(logs, f)
			continue
		}
		printable.Say(os.Stderr, "claudebox: removed %s, left by a session that ended", f)
	}
	switch len(logs) {
	case 0:
	case 1:
		printable.Say(os.Stderr, "claudebox: removed the network log of a session that ended, %s", logs[0])
	default:
		printable.Say(os.Stderr, "claudebox: removed the network logs of %d sessions that ended, in %s", len(logs), filepath.Dir(logs[0]))
	}
}

// offerWorktrees offers to remove each linked worktree of the projects
// whose work is done (its branch merged, nothing uncommitted), where no
// session of the project runs: asked one by one on a terminal, named with
// the command otherwise; --dry-run only names them. A worktree with
// uncommitted work is never offered.
func (g gcCmd) offerWorktrees(state string) {
	insts, _, _, err := gc.Scan(state, readMounts())
	if err != nil {
		return
	}
	var answers *bufio.Reader
	if !g.DryRun && pty.IsTerminal(os.Stdin) {
		answers = bufio.NewReader(os.Stdin)
	}
	for _, in := range insts {
		if in.InUse || in.State != gc.Live {
			continue
		}
		p, err := instance.Resolve(in.Root)
		if err != nil || p.Root != in.Root {
			continue
		}
		for _, w := range doneWorktrees(p) {
			switch {
			case answers == nil:
				printable.Say(os.Stderr, "claudebox: worktree %s: branch %s is merged and nothing is uncommitted; to remove it: git worktree remove %s", w.Path, w.Branch, mount.Quote(w.Path))
			case yes(answers, fmt.Sprintf("Remove worktree %s (branch %s is merged, nothing uncommitted)? [y/N] ", w.Path, w.Branch)):
				if _, err := git(in.Root, "worktree", "remove", w.Path); err != nil {
					printable.Say(os.Stderr, "claudebox: worktree %s: %v", w.Path, err)
					continue
				}
				printable.Say(os.Stderr, "claudebox: removed worktree %s (branch %s stays)", w.Path, w.Branch)
			}
		}
	}
}

// emptyCaches is --gc --caches.
func (g gcCmd) emptyCaches(state, verb string) error {
	event := func(e gc.CachesEvent) {
		if e.Kept {
			printable.Say(os.Stderr, "claudebox: kept %s: a session of its project is running", e.Dir)
			return
		}
		printable.Say(os.Stderr, "claudebox: %s %s (%s)", verb, e.Dir, humanBytes(e.Bytes))
	}
	sum, err := gc.EmptyCaches(state, g.DryRun, event, func(s gc.Skipped) { report(os.Stderr, skipNotice(s)) })
	if err != nil {
		return err
	}
	freed := "freed"
	if g.DryRun {
		verb, freed = "to remove", "to free"
	}
	printable.Say(os.Stderr, "claudebox: caches: %d kept, %d %s, %d skipped, %s %s", sum.Kept, sum.Removed, verb, sum.Skipped, humanBytes(sum.Freed), freed)
	return nil
}

// skipNotice is what --gc and --list say of an entry they leave alone,
// with what the user can do about it where there is something.
func skipNotice(s gc.Skipped) error {
	var remedy string
	switch s.Cause {
	case gc.ForeignRoot:
		remedy = "if --move was interrupted, run claudebox --move " + s.Root + " again in the project's new place"
	case gc.Unreadable:
		remedy = "chmod -R u+rwX " + s.Dir
	}
	return hint.Errorf(remedy, "skipped %s: %s", s.Dir, s.Reason)
}

// listCmd shows the instances, stale ones first.
type listCmd struct{ JSON bool }

func (l listCmd) Run(home session.Home) error {
	state := home.State
	insts, skipped, _, err := gc.Scan(state, readMounts())
	if err != nil {
		return err
	}
	gc.Sort(insts)
	for _, s := range skipped {
		report(os.Stderr, skipNotice(s))
	}
	if l.JSON {
		if insts == nil {
			insts = []gc.Instance{}
		}
		return writeJSON(os.Stdout, insts)
	}
	writeTable(os.Stdout, insts, pty.IsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "")
	writeWorktrees(os.Stdout, state)
	return nil
}

// writeWorktrees lists, under the table, the linked worktrees of the
// project of the working directory: each one's branch, and whether a
// session runs in it or its work is done (merged, nothing uncommitted).
func writeWorktrees(w io.Writer, state string) {
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	p, err := instance.Resolve(cwd)
	if err != nil || p.CommonDir == "" {
		return
	}
	main, linked, _, err := worktrees(p)
	if err != nil {
		printable.Say(os.Stderr, "claudebox: the worktrees of %s are not listed: %v", p.Root, err)
		return
	}
	if len(linked) == 0 {
		return
	}
	done := map[string]bool{}
	for _, d := range doneWorktrees(p) {
		done[d.Path] = true
	}
	fmt.Fprintf(w, "\nWorktrees of %s:\n", printable.Escape(p.Root))
	dir := instance.Dir(state, p.Root)
	for _, wt := range append([]worktree{main}, linked...) {
		path, branch := wt.Path, wt.Branch
		note := ""
		if instance.CheckoutInUse(dir, path) {
			note = "  a session runs here"
		} else if done[path] {
			note = "  merged, nothing uncommitted: claudebox --gc offers to remove it"
		}
		fmt.Fprintf(w, "  %s  %s%s\n", printable.Escape(path), printable.Escape(branch), note)
	}
}

// writeTable prints instances in aligned columns, the state in colour when
// color is set.
func writeTable(w io.Writer, insts []gc.Instance, color bool) {
	rows := [][]string{{"HASH", "STATE", "SESSIONS", "SIZE", "CACHES", "LAST USED", "ROOT"}}
	for _, in := range insts {
		state := string(in.State)
		if in.InUse {
			state += ", in use"
		}
		last := "-"
		if !in.LastUsed.IsZero() {
			last = in.LastUsed.Local().Format("2006-01-02 15:04")
		}
		rows = append(rows, []string{in.Hash, state, fmt.Sprint(in.Transcripts), humanBytes(in.Bytes), humanBytes(in.CacheBytes), last, printable.Escape(in.Root)})
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	colors := map[gc.State]string{gc.Gone: "\033[31m", gc.Unmounted: "\033[33m"}
	for n, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if n > 0 && i == 1 && color && colors[insts[n-1].State] != "" {
				c = colors[insts[n-1].State] + c + "\033[0m"
			}
			switch {
			case i >= 2 && i <= 4: // numbers align right
				b.WriteString(pad + c + "  ")
			case i == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad + "  ")
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// writeJSON writes v as indented JSON, with every control character
// escaped (printable.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(printable.JSON(b), '\n'))
	return err
}

// humanBytes renders a size in IEC units.
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n), ""
	for _, unit = range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= 1024
		if f < 1024 {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}

// moveCmd carries a moved project's history to the current project.
type moveCmd struct {
	Old   string
	Merge bool
}

func (m moveCmd) Run(home session.Home) error {
	state := home.State
	cwd, project, err := session.Here()
	if err != nil {
		return err
	}
	old, err := m.oldRoot(state, cwd, project.Root)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(old); err == nil {
		return hint.Errorf("--move carries the history of a project that moved away; "+old+" is still there",
			"%s still exists", old)
	}
	res, err := gc.Move(state, old, project.Root, m.Merge)
	for _, r := range res.Repairs {
		printable.Say(os.Stderr, "claudebox: %s", r)
	}
	switch {
	case errors.Is(err, gc.ErrExists):
		return hint.Errorf("claudebox --move "+m.Old+" --merge, to add the old sessions to it",
			"%s already has an instance (%s)", project.Root, instance.Dir(state, project.Root))
	case errors.Is(err, gc.ErrInUse):
		return hint.Errorf("end the claudebox sessions of this project first", "%v", err)
	case err != nil:
		return err
	}
	printable.Say(os.Stderr, "claudebox: moved %d sessions of %s to %s (%s)", res.Transcripts, old, project.Root, res.To)
	return nil
}

// oldRoot reads OLD: an instance hash from --list, or the project's former
// path, absolute or relative to the current directory.
func (m moveCmd) oldRoot(state, cwd, root string) (string, error) {
	if instance.IsHash(m.Old) {
		b, err := untrusted.ReadFile(filepath.Join(gc.ProjectsDir(state), m.Old), instance.RootFile, instance.RootFileLimit)
		if err != nil {
			return "", hint.Errorf("claudebox --list shows the instances", "no instance %s", m.Old)
		}
		return strings.TrimSuffix(string(b), "\n"), nil
	}
	old := m.Old
	if !filepath.IsAbs(old) {
		old = filepath.Join(cwd, old)
	}
	old = filepath.Clean(old)
	if _, err := os.Lstat(filepath.Join(instance.Dir(state, old), instance.RootFile)); err != nil {
		// A --move killed once it renamed the instance left it here,
		// naming old: run again, it finishes.
		if b, err := untrusted.ReadFile(instance.Dir(state, root), instance.RootFile, instance.RootFileLimit); err != nil || strings.TrimSuffix(string(b), "\n") != old {
			return "", hint.Errorf("claudebox --list shows the instances and their roots", "no instance of %s", old)
		}
	}
	return old, nil
}

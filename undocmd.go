package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/pty"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/undo"
)

// undoCmd puts the project back as a session found it when it started:
// --undo (the last one), --undo ID, --undo --list, --undo --dry-run.
type undoCmd struct {
	ID     string
	List   bool
	DryRun bool
	Yes    bool
}

func (u undoCmd) Run(home session.Home) error {
	p, err := repositoryHere("--undo", "no snapshot")
	if err != nil {
		return err
	}
	snaps := undo.List(home.State, p.Root, p.Checkout)
	if len(snaps) == 0 {
		return hint.Errorf(elsewhere(home, p, "--undo --list", "a session started here takes one"), "no session of %s has a snapshot to undo", printable.Escape(p.Checkout))
	}
	if u.List {
		for _, s := range snaps {
			note := ""
			if s.Pending {
				note = "  (not finished: its session ended first)"
			}
			if s.Beside {
				note += "  (another session ran beside it)"
			}
			if !s.Undone.IsZero() {
				note += "  (undone " + s.Undone.Local().Format("2006-01-02 15:04:05") + ")"
			}
			fmt.Printf("%s  %s%s\n", s.ID, s.Taken.Local().Format("2006-01-02 15:04:05"), note)
		}
		return nil
	}
	s := snaps[0]
	// The command that undoes the same snapshot again: the last
	// session's, unless an ID picked another.
	again := "claudebox --undo"
	if u.ID != "" {
		found := false
		for _, c := range snaps {
			if c.ID == u.ID {
				s, found = c, true
			}
		}
		if !found {
			return hint.Errorf("claudebox --undo --list names them", "no snapshot %s of %s", printable.Excerpt(u.ID), printable.Escape(p.Checkout))
		}
		again += " " + s.ID
	}
	// A session running now would go on writing what is restored (and
	// its snapshot may not be written yet).
	lock, err := instance.ProbeLock(instance.Dir(home.State, p.Root))
	if err != nil {
		return err
	}
	if lock != nil {
		defer lock.Close()
		if idle, err := instance.TryLockIdle(lock); err != nil || !idle {
			return hint.Errorf("end it first, then "+again, "a session of this project is running")
		}
	}
	if s.Pending {
		return hint.Errorf("claudebox --undo --list names the others; claudebox --undo ID takes one", "the snapshot of the session of %s was not finished: the session ended first", s.Taken.Local().Format("2006-01-02 15:04:05"))
	}
	changes, err := undo.Plan(home.State, p.Root, s)
	if err != nil {
		return err
	}
	printable.Say(os.Stdout, "%s as the session of %s found it:", mount.Quote(p.Checkout), s.Taken.Local().Format("2006-01-02 15:04:05"))
	later := changedLater(home.State, p, s, snaps)
	for _, c := range changes {
		verb := map[string]string{"created": "move aside", "unknown": "leave"}[c.What]
		if verb == "" {
			verb = "restore"
		}
		what := c.What
		if c.What != "unknown" && later(c.Path) {
			what += " since the session ended"
		}
		printable.Say(os.Stdout, "  %-10s %s (%s)", verb, c.Path, what)
	}
	printable.Say(os.Stdout, "  ignored files (dependencies, build output) are left as they are")
	taken := s.Taken.Local().Format("2006-01-02 15:04:05")
	// An older snapshot: the sessions after it wrote the same files, and
	// what each wrote cannot be told apart.
	if later := slices.IndexFunc(snaps, func(c undo.Snapshot) bool { return c.ID == s.ID }); later > 0 {
		sessions, they := "1 later session", "it"
		if later > 1 {
			sessions, they = fmt.Sprintf("%d later sessions", later), "they"
		}
		printable.Say(os.Stderr, "claudebox: %s started here after the session of %s: what %s changed is undone too", sessions, taken, they)
	}
	if s.Beside {
		// The sessions shared the checkout: what each wrote cannot be
		// told apart.
		printable.Say(os.Stderr, "claudebox: another session was running here when the session of %s started: what it changed after that is undone too", taken)
		if first, ok := besideFirst(home.State, p, s, snaps); ok {
			printable.Say(os.Stderr, "hint: to undo what the sessions changed from the first one's start, as claudebox --changes lists it: claudebox --undo %s (the session of %s)", first.ID, first.Taken.Local().Format("2006-01-02 15:04:05"))
		}
	}
	if s.Beside || s.ID != snaps[0].ID {
		printable.Say(os.Stderr, "hint: each file restored or moved aside is named with the mv that puts it back")
	}
	changes = slices.DeleteFunc(changes, func(c undo.Change) bool { return c.What == "unknown" })
	if len(changes) == 0 {
		printable.Say(os.Stdout, "nothing to undo")
		return nil
	}
	if u.DryRun {
		return nil
	}
	if !u.Yes {
		if !pty.IsTerminal(os.Stdin) {
			return hint.Errorf("read the list, then "+again+" -y", "cannot ask: stdin is not a terminal")
		}
		if !yes(bufio.NewReader(os.Stdin), fmt.Sprintf("Undo these %d changes? [y/N] ", len(changes))) {
			return hint.Errorf(again+" again", "nothing was changed")
		}
	}
	// What it moves aside is recorded first: killed before it said so,
	// the next claudebox command does.
	dest := session.UndoDest(home.State, p.Root, time.Now())
	var planned, inTheWay []audit.Moved
	ways := map[string]bool{}
	for _, c := range changes {
		planned = append(planned, audit.Moved{From: filepath.Join(p.Checkout, c.Path), To: filepath.Join(dest, c.Path)})
		// A file or link the session left where a directory on the
		// path was is moved aside for it.
		for dir := filepath.Dir(c.Path); dir != "." && !ways[dir]; dir = filepath.Dir(dir) {
			ways[dir] = true
			inTheWay = append(inTheWay, audit.Moved{From: filepath.Join(p.Checkout, dir), To: filepath.Join(dest, dir)})
		}
	}
	said := session.RecordMoves(dest, planned, inTheWay)
	res, err := undo.Apply(home.State, p.Root, s, dest)
	holdpoint.At("undo applied")
	for _, m := range res.Moved {
		printable.Say(os.Stdout, "moved aside %s; to put it back: mv %s %s", m.From, mount.Quote(m.To), mount.Quote(m.From))
	}
	said()
	if err != nil {
		return err
	}
	files := "files"
	if len(res.Restored) == 1 {
		files = "file"
	}
	printable.Say(os.Stdout, "restored %d %s", len(res.Restored), files)
	for _, e := range res.Failed {
		printable.Say(os.Stderr, "claudebox: not restored: %v", e)
	}
	if len(res.Failed) > 0 {
		return hint.Errorf("the files above are as the session left them", "%d could not be restored", len(res.Failed))
	}
	// Only a note for --undo --list: the undo it notes is done.
	undo.MarkUndone(home.State, p.Root, s, time.Now())
	return nil
}

// repositoryHere is the project of the working directory, which must be
// in a git repository: flag's records are kept per checkout (its sessions
// keep what, otherwise).
func repositoryHere(flag, what string) (instance.Project, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return instance.Project{}, err
	}
	p, err := instance.Resolve(cwd)
	if err != nil {
		return instance.Project{}, err
	}
	if p.GitDir == "" {
		return instance.Project{}, hint.Errorf("claudebox "+flag+" works in a git repository", "%s is not in a git repository: its sessions keep %s", printable.Escape(cwd), what)
	}
	return p, nil
}

// elsewhere is the hint for a checkout none of whose sessions left a
// record: each checkout keeps its own, so in a worktree new to sessions
// it names where the repository's last session ran, with the command
// there; otherwise it is hint.
func elsewhere(home session.Home, p instance.Project, flag, hint string) string {
	last, ok := undo.LastCheckout(home.State, p.Root)
	if !ok || last == p.Checkout {
		return hint
	}
	return fmt.Sprintf("each worktree keeps its own; the last session of this repository ran in %s: cd %s && claudebox %s", printable.Escape(last), mount.Quote(last), flag)
}

// besideFirst is the snapshot of the first of the sessions that ran
// together with s, whose start the record of their changes (--changes)
// begins at: what it changed before s started, --undo of s leaves.
func besideFirst(stateDir string, p instance.Project, s undo.Snapshot, snaps []undo.Snapshot) (undo.Snapshot, bool) {
	rec, err := undo.ReadChanges(stateDir, p.Root, p.Checkout)
	if err != nil || !rec.Started.Before(s.Taken) || rec.Ended.Before(s.Taken) {
		return undo.Snapshot{}, false
	}
	first := slices.IndexFunc(snaps, func(c undo.Snapshot) bool { return !c.Pending && c.Taken.Equal(rec.Started) })
	if first < 0 {
		return undo.Snapshot{}, false
	}
	return snaps[first], true
}

// changedLater says of a path --undo finds changed since the snapshot s
// whether it was changed after its session ended (the user's own edit,
// which --undo puts back too): where the record of the session's changes
// is whole and does not list it. Where that is not known, no path is.
//
// Sessions that ran at once leave one record, from the first one's start
// (its snapshot, among snaps) to the last one's end. Of s, taken later,
// a path the record does not list is changed later only where it also
// differs from the first one's snapshot: one that holds what it held
// then was changed during the sessions and put back.
func changedLater(stateDir string, p instance.Project, s undo.Snapshot, snaps []undo.Snapshot) func(path string) bool {
	never := func(string) bool { return false }
	rec, err := undo.ReadChanges(stateDir, p.Root, p.Checkout)
	if err != nil || len(rec.Incomplete) > 0 || rec.Started.After(s.Taken) || rec.Ended.Before(s.Taken) {
		return never
	}
	listed := map[string]bool{}
	for _, c := range rec.Paths {
		listed[c.Path] = true
	}
	for _, u := range rec.Unknown {
		listed[u] = true
	}
	if rec.Started.Equal(s.Taken) {
		return func(path string) bool { return !listed[path] }
	}
	first := slices.IndexFunc(snaps, func(c undo.Snapshot) bool { return !c.Pending && c.Taken.Equal(rec.Started) })
	if first < 0 {
		return never
	}
	fromFirst, err := undo.Plan(stateDir, p.Root, snaps[first])
	if err != nil {
		return never
	}
	differs := map[string]bool{}
	for _, c := range fromFirst {
		differs[c.Path] = c.What != "unknown"
	}
	return func(path string) bool { return !listed[path] && differs[path] }
}

package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/undo"
)

// changesCmd lists what the last session of this checkout created,
// changed or removed, ignored files included: claudebox --changes
// [--json]. The record is the supervisor's, kept where no sandbox
// reaches; the names in it are the sandbox's, printed escaped.
type changesCmd struct{ JSON bool }

func (c changesCmd) Run(home session.Home) error {
	p, err := repositoryHere("--changes", "no record of their changes")
	if err != nil {
		return err
	}
	rec, err := undo.ReadChanges(home.State, p.Root, p.Checkout)
	if errors.Is(err, fs.ErrNotExist) {
		return hint.Errorf(elsewhere(home, p, "--changes", "a session's end records them"), "no session of %s has a record of its changes", printable.Escape(p.Checkout))
	}
	if err != nil {
		return err
	}
	if c.JSON {
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(append(printable.JSON(b), '\n'))
		return err
	}
	// Without the start's snapshot (the session ended before it was
	// written) the record has no start, and no change it could compare:
	// the note says so.
	compared := !rec.Started.IsZero()
	if compared {
		printable.Say(os.Stdout, "%s: the session of %s to %s", p.Checkout, rec.Started.Local().Format("2006-01-02 15:04:05"), rec.Ended.Local().Format("15:04:05"))
	} else {
		printable.Say(os.Stdout, "%s: the session that ended at %s", p.Checkout, rec.Ended.Local().Format("2006-01-02 15:04:05"))
	}
	for _, ch := range rec.Paths {
		note := ""
		if ch.Ignored {
			note = " (ignored)"
		}
		printable.Say(os.Stdout, "  %-8s %s%s", ch.Change, ch.Path, note)
		if ch.MovedTo != "" {
			gone := ""
			if _, err := os.Lstat(ch.MovedTo); err != nil {
				gone = " (no longer there)"
			}
			printable.Say(os.Stdout, "  %-8s moved aside by the session's end to %s%s", "", mount.Quote(ch.MovedTo), gone)
		}
	}
	if rec.IgnoredLeftOut > 0 {
		printable.Say(os.Stdout, "  and %d more ignored files (the list stops at %d)", rec.IgnoredLeftOut, undo.IgnoredLimit)
	}
	for _, u := range rec.Unknown {
		printable.Say(os.Stdout, "  %-8s %s (written before the start's snapshot read it)", "unknown", u)
	}
	if compared && len(rec.Paths) == 0 && len(rec.Unknown) == 0 {
		printable.Say(os.Stdout, "  no file changed")
	}
	for _, line := range rec.Incomplete {
		printable.Say(os.Stdout, "note: %s", line)
	}
	return nil
}

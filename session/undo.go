package session

import (
	"context"
	"os"
	"time"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// takeUndo starts taking the project's snapshot for claudebox --undo,
// beside the session: what the session writes before the snapshot read it
// is left out of it (undo.Take). A snapshot that cannot be taken is said,
// and the session goes on. One not taken when the session's command ends
// is stopped then, and stays pending: all the session changed it would
// leave out as unknown.
func (s *Session) takeUndo() {
	if s.plan.Project.GitDir == "" {
		return
	}
	since, err := undo.Mark(s.stateDir, s.plan.Project.Root)
	if err != nil {
		printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		return
	}
	var standIns []string
	for _, m := range s.plan.Placeholders() {
		standIns = append(standIns, m.Dest)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.undo = &undoTaking{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.undo.done)
		if _, err := undo.Take(ctx, s.stateDir, s.plan.Project, time.Now(), since, standIns); err != nil && ctx.Err() == nil {
			printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		}
	}()
}

// undoTaking is the undo snapshot being taken beside the session.
type undoTaking struct {
	// stop ends it, at once: its git is killed.
	stop context.CancelFunc
	// done is closed once it returned, its work files removed.
	done chan struct{}
}

// wait stops the snapshot and waits until it returned.
func (u *undoTaking) wait() {
	if u == nil {
		return
	}
	u.stop()
	<-u.done
}

package session

import (
	"os"
	"time"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// takeUndo starts taking the project's snapshot for claudebox --undo,
// beside the session: what the session writes before the snapshot read it
// is left out of it (undo.Take). The session's end does not wait for it:
// one that ended first leaves it pending. A snapshot that cannot be taken
// is said, and the session goes on.
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
	go func() {
		if _, err := undo.Take(s.stateDir, s.plan.Project, time.Now(), since, standIns); err != nil {
			printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		}
	}()
}

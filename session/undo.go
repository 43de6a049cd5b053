package session

import (
	"os"
	"time"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// takeUndo starts taking the project's snapshot for claudebox --undo,
// beside the launch's other work; the sandbox runs its command only once
// the returned channel closes, so the snapshot holds nothing the session
// wrote. A snapshot that cannot be taken is said, and the session goes on.
func (s *Session) takeUndo() <-chan struct{} {
	done := make(chan struct{})
	if s.plan.Project.GitDir == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		var standIns []string
		for _, m := range s.plan.Placeholders() {
			standIns = append(standIns, m.Dest)
		}
		if _, err := undo.Take(s.stateDir, s.plan.Project, time.Now(), standIns); err != nil {
			printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		}
	}()
	return done
}

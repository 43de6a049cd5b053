package session

import (
	"path/filepath"

	"github.com/claudebox/claudebox/instance"
)

// addAuditRoots records what the session writes for the exit audit, which
// whichever session of the project leaves last runs: its checkout, and,
// where the repository's git directory lies outside it (a linked
// worktree's, a submodule's), the submodules' git directories there, which
// the host's git submodule update adopts with their hooks and config. The
// first session records what its guards stand on: only those stood from
// the start.
func (s *Session) addAuditRoots(dir string) error {
	if s.first {
		var guards []string
		for _, g := range s.plan.Guards {
			guards = append(guards, g.Path)
		}
		if err := instance.RecordGuards(dir, guards); err != nil {
			return err
		}
	}
	p := s.plan.Project
	if err := instance.AddAuditRoot(dir, p.Checkout); err != nil {
		return err
	}
	if rel, err := filepath.Rel(p.Checkout, p.CommonDir); p.CommonDir == "" || err == nil && filepath.IsLocal(rel) {
		return nil
	}
	return instance.AddAuditRoot(dir, filepath.Join(p.CommonDir, "modules"))
}

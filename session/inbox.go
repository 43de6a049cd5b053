package session

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/transcript"
)

// ExportInbox exports the project's sessions that changed since their last
// export into the inbox (export-dir), if the user set one: at the end of a
// session, and before a launch, for a session whose claudebox was killed.
// A failure is reported and ends nothing.
func (s *Session) ExportInbox() {
	if s.exportDir == "" {
		return
	}
	root := s.plan.Project.Root
	opt := transcript.Options{Detail: transcript.Tools, Root: root, Home: s.home, Generator: "claudebox"}
	if _, err := transcript.Sync(s.exportDir, filepath.Base(root), s.plan.Instance, opt); err != nil {
		printable.Say(os.Stderr, "claudebox: exporting this project's sessions to %s: %v", s.exportDir, err)
	}
}

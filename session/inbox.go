package session

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/untrusted"
)

// inboxRecordLimit bounds the inbox's record: a line for each export.
const inboxRecordLimit = 16 << 20

// ExportInbox exports the project's sessions that changed since their last
// export into the inbox (export-dir), if the user set one: at the end of a
// session, and before a launch, for a session whose claudebox was killed.
// What it wrote there is recorded in claudebox's state, out of every
// sandbox's reach: the only files it replaces or removes. A failure is
// reported and ends nothing.
func (s *Session) ExportInbox() {
	if s.exportDir == "" {
		return
	}
	root := s.plan.Project.Root
	dir, name := instance.RecordPath(s.stateDir, instance.InboxRecords, root)
	exports := transcript.Exports{}
	if b, err := untrusted.ReadFile(dir, name, inboxRecordLimit); err == nil {
		json.Unmarshal(b, &exports)
	}
	before := maps.Clone(exports)
	opt := transcript.Options{Detail: transcript.Tools, Root: root, Home: s.home, Generator: "claudebox"}
	_, err := transcript.Sync(s.exportDir, filepath.Base(root), s.plan.Instance, exports, opt)
	if !maps.Equal(before, exports) {
		b, _ := json.Marshal(exports)
		if werr := os.MkdirAll(dir, 0o700); werr != nil {
			err = werr
		} else if werr := untrusted.WriteFile(dir, name, b, 0o600); werr != nil {
			err = werr
		}
	}
	if err != nil {
		printable.Say(os.Stderr, "claudebox: exporting this project's sessions to %s: %v", s.exportDir, err)
	}
}

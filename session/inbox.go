package session

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/untrusted"
)

// ExportInbox exports the project's sessions that changed since their last
// export into the inbox (export-dir), if the user set one: at the end of a
// session, and before a launch, for a session whose claudebox was killed.
// What it wrote there is recorded in claudebox's state, out of every
// sandbox's reach: the only files it replaces or removes. A failure is
// reported and ends nothing.
func (s *Session) ExportInbox() { s.exportInbox(nil) }

// exportInbox is ExportInbox; at a session's end the fault tests hold it
// (phases) with a file rendered, and between the files and their record.
func (s *Session) exportInbox(phases *phases) {
	if s.exportDir == "" {
		return
	}
	if project := projectHolding(s.stateDir, s.exportDir); project != "" {
		printable.Say(os.Stderr, "claudebox: not exported: export-dir %s lies in the project %s, whose sessions can write there (a link they leave would lead the export elsewhere)", s.exportDir, project)
		printable.Say(os.Stderr, "hint: set export-dir in your config.toml to a folder outside every project")
		return
	}
	root := s.plan.Project.Root
	dir, name := instance.RecordPath(s.stateDir, instance.InboxRecords, root)
	record := transcript.Record{Exports: transcript.Exports{}}
	if b, err := untrusted.ReadFile(dir, name, transcript.RecordLimit); err == nil {
		record = transcript.ParseRecord(b)
	}
	before := record
	before.Exports = maps.Clone(record.Exports)
	project := filepath.Base(root)
	var err error
	if record.Project != "" && record.Project != project {
		// The project moved (claudebox --move carries the record).
		err = transcript.MoveExports(s.exportDir, record.Project, project, record.Exports)
	}
	// Another project was merged into this one (claudebox --move
	// --merge): its exports join this project's folder and record.
	for len(record.Merged) > 0 && err == nil {
		m := record.Merged[0]
		if err = transcript.MoveExports(s.exportDir, m.Project, project, m.Exports); err == nil {
			maps.Copy(record.Exports, m.Exports)
			record.Merged = record.Merged[1:]
		}
	}
	record.Project = project
	opt := transcript.Options{Detail: transcript.Tools, Root: root, Home: s.home, Generator: "claudebox", Rendered: func() { phases.hold("export rendered") }}
	if err == nil {
		_, err = transcript.Sync(s.exportDir, project, s.plan.Instance, record.Exports, opt)
	}
	phases.hold("exported")
	if record.Project != before.Project || len(record.Merged) != len(before.Merged) || !maps.Equal(before.Exports, record.Exports) {
		b, _ := json.Marshal(record)
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

// projectHolding is the project (or a checkout its sessions bound) that
// holds path, by its path or its real path, among the instances in
// stateDir; "" for none. A sandbox writes its project: whatever the host
// later writes there may go through a link the sandbox left.
func projectHolding(stateDir, path string) string {
	paths := []string{filepath.Clean(path), realPath(path)}
	in := func(root string) bool {
		for _, p := range paths {
			if root != "" && (p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")) {
				return true
			}
		}
		return false
	}
	projects := filepath.Join(stateDir, "projects")
	entries, _ := os.ReadDir(projects)
	for _, e := range entries {
		if !instance.IsHash(e.Name()) {
			continue
		}
		dir := filepath.Join(projects, e.Name())
		b, err := untrusted.ReadFile(dir, instance.RootFile, instance.RootFileLimit)
		if err != nil {
			continue
		}
		roots := append([]string{strings.TrimSuffix(string(b), "\n")}, instance.AuditRoots(dir)...)
		for _, root := range roots {
			if in(root) {
				return root
			}
		}
	}
	return ""
}

// realPath is path with the links of its longest existing part resolved.
func realPath(path string) string {
	path = filepath.Clean(path)
	for rest := ""; ; {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest)
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}

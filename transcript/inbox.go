package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Sync exports every session of the instance dir that changed since its
// last export into the inbox, as <inbox>/<project>/<start>-<slug>-<id>.md
// (id: the session id's first 8 characters), replacing the session's
// earlier export, whose slug may differ: a title comes late. It returns
// how many it wrote.
func Sync(inbox, project, dir string, opt Options) (int, error) {
	out := filepath.Join(inbox, slug(project, "project"))
	if err := os.MkdirAll(out, 0o700); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return 0, err
	}
	// The exports there, by session id, and when each was written.
	exports := map[string][]string{}
	exported := map[string]time.Time{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if i := strings.LastIndexByte(name, '-'); ok && i >= 0 {
			id := name[i+1:]
			exports[id] = append(exports[id], e.Name())
			if fi, err := e.Info(); err == nil && (exported[id].IsZero() || fi.ModTime().Before(exported[id])) {
				exported[id] = fi.ModTime()
			}
		}
	}
	// Only a transcript written since its export is read at all: a launch
	// must not pay for every session the project ever had.
	changed, err := sessions(dir, func(id string, modified time.Time) bool {
		at, ok := exported[shortID(id)]
		return !ok || len(exports[shortID(id)]) > 1 || at.Before(modified)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	written := 0
	for _, s := range changed {
		if s.Note != "" || s.Turns == 0 {
			continue
		}
		name := s.Start.UTC().Format("2006-01-02T15-04-05Z") + "-" + slug(s.Title, "session") + "-" + shortID(s.ID) + ".md"
		if err := ExportFile(filepath.Join(out, name), dir, s.Path, opt); err != nil {
			return written, err
		}
		for _, e := range exports[shortID(s.ID)] {
			if e != name {
				os.Remove(filepath.Join(out, e))
			}
		}
		written++
	}
	return written, nil
}

// shortID is what of a session id an inbox file name holds.
func shortID(id string) string { return id[:min(8, len(id))] }

// slug is s as a file name's part: lowercase letters and digits, runs of
// anything else one dash, at most 48 characters; empty, it is dflt.
func slug(s, dflt string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			if b.Len() >= 48 {
				break
			}
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return dflt
	}
	return b.String()
}

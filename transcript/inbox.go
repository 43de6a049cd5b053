package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Sync exports every session of the instance dir that changed since its
// last export into the inbox, as <inbox>/<project>/<start>-<slug>-<id>.md
// (id: the session id's first 8 characters), replacing the session's
// earlier export, whose slug may differ: a title comes late. It returns
// how many it wrote.
func Sync(inbox, project, dir string, opt Options) (int, error) {
	sessions, err := Sessions(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	out := filepath.Join(inbox, slug(project, "project"))
	if err := os.MkdirAll(out, 0o700); err != nil {
		return 0, err
	}
	existing, err := os.ReadDir(out)
	if err != nil {
		return 0, err
	}
	written := 0
	for _, s := range sessions {
		if s.Note != "" || s.Turns == 0 {
			continue
		}
		suffix := "-" + s.ID[:min(8, len(s.ID))] + ".md"
		name := s.Start.UTC().Format("2006-01-02T15-04-05Z") + "-" + slug(s.Title, "session") + suffix
		var earlier []string
		fresh := false
		for _, e := range existing {
			if !strings.HasSuffix(e.Name(), suffix) {
				continue
			}
			earlier = append(earlier, e.Name())
			if fi, err := e.Info(); err == nil && e.Name() == name && !fi.ModTime().Before(s.Modified) {
				fresh = true
			}
		}
		if fresh && len(earlier) == 1 {
			continue
		}
		if err := ExportFile(filepath.Join(out, name), dir, s.Path, opt); err != nil {
			return written, err
		}
		for _, e := range earlier {
			if e != name {
				os.Remove(filepath.Join(out, e))
			}
		}
		written++
	}
	return written, nil
}

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

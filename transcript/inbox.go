package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Exports is the inbox's own record of what it wrote in a project's
// folder: each file's name, and the session (its id's first 8 characters)
// the file holds. The inbox replaces and removes only these: the folder is
// the user's too, and every name in an export comes from the transcript,
// which the sandbox writes.
type Exports map[string]string

// RecordLimit bounds an inbox record read: a line for each export.
const RecordLimit = 16 << 20

// Record is what the inbox wrote for a project, kept in claudebox's
// state: the name of the project its folder is named after, the files,
// and the records of the projects claudebox --move --merge merged into
// it, whose files lie in their own project's folder until the project's
// next export moves them into its own.
type Record struct {
	Project string   `json:"project"`
	Exports Exports  `json:"exports"`
	Merged  []Record `json:"merged,omitempty"`
}

// ParseRecord reads an inbox record; an older claudebox's held the
// names alone.
func ParseRecord(b []byte) Record {
	var r Record
	if json.Unmarshal(b, &r); r.Exports == nil {
		json.Unmarshal(b, &r.Exports)
	}
	if r.Exports == nil {
		r.Exports = Exports{}
	}
	return r
}

// maxSyncExports bounds the sessions one Sync exports: the sandbox can
// leave transcripts by the hundred thousand, whose first export held a
// session's end for minutes and its supervisor at hundreds of MiB.
const maxSyncExports = 1000

// Sync exports every session of the instance dir that changed since its
// last export into the inbox, as <inbox>/<project>/<start>-<slug>-<id>.md
// (id: the session id's first 8 characters), replacing the session's
// earlier export, whose slug may differ: a title comes late. What it
// wrote is in exports, which it updates. A name that is taken by a file
// not in exports is never written over: the export goes beside it
// (<...>-<id>-2.md), unless that file holds the same bytes (an export of
// an older claudebox, which kept no record), which the record then names.
// At most maxSyncExports sessions, the most recently written, are
// exported at once: the others at the next Sync. It returns how many it
// wrote.
func Sync(inbox, project, dir string, exports Exports, opt Options) (int, error) {
	out := filepath.Join(inbox, slug(project, "project"))
	if err := os.MkdirAll(out, 0o700); err != nil {
		return 0, err
	}
	removeAbandoned(out)
	// The exports there, by session id, and when each was written.
	byID := map[string][]string{}
	exported := map[string]time.Time{}
	for _, name := range slices.Sorted(maps.Keys(exports)) {
		id := exports[name]
		fi, err := os.Lstat(filepath.Join(out, name))
		if err != nil || !fi.Mode().IsRegular() {
			delete(exports, name) // gone, or no longer the file it wrote
			continue
		}
		byID[id] = append(byID[id], name)
		if exported[id].IsZero() || fi.ModTime().Before(exported[id]) {
			exported[id] = fi.ModTime()
		}
	}
	// Only a transcript written since its export is read at all: a launch
	// must not pay for every session the project ever had. Of those, the
	// newest maxSyncExports; the others wait for the next Sync.
	changed, _, err := sessions(dir, maxSyncExports, func(id string, modified time.Time) bool {
		at, ok := exported[shortID(id)]
		return !ok || len(byID[shortID(id)]) > 1 || at.Before(modified)
	}, eachClaude)
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
		id := shortID(s.ID)
		base := s.Start.UTC().Format("2006-01-02T15-04-05Z") + "-" + slug(s.Title, "session") + "-" + id
		name, err := exportBeside(out, base, id, exports, func(path string) error {
			err := ExportFile(path, dir, s.Path, opt)
			if err == nil && opt.Rendered != nil {
				opt.Rendered()
			}
			return err
		})
		if err != nil {
			return written, err
		}
		for _, e := range byID[id] {
			if e != name && exports[e] == id {
				os.Remove(filepath.Join(out, e))
				delete(exports, e)
			}
		}
		written++
	}
	return written, nil
}

// MoveExports moves the exports the record names from the inbox's folder
// of project from to that of project to, after the project moved (its
// folder is named after it): the next Sync then finds them, and does not
// write them again beside the old copies. What is not a regular file, or
// whose name is taken in the new folder, is left and dropped from the
// record; the user's own files in the old folder stay.
func MoveExports(inbox, from, to string, exports Exports) error {
	old, out := filepath.Join(inbox, slug(from, "project")), filepath.Join(inbox, slug(to, "project"))
	if old == out {
		return nil
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(exports)) {
		fi, err := os.Lstat(filepath.Join(old, name))
		_, taken := os.Lstat(filepath.Join(out, name))
		if err != nil || !fi.Mode().IsRegular() || taken == nil || filepath.Base(name) != name {
			delete(exports, name)
			continue
		}
		if err := os.Rename(filepath.Join(old, name), filepath.Join(out, name)); err != nil {
			delete(exports, name)
		}
	}
	os.Remove(old) // once empty
	return nil
}

// exportTemp begins the name of the folder an export is rendered into,
// beside the exports, before it is renamed into place: .export-<pid>-<n>,
// the process that renders it.
const exportTemp = ".export-"

// removeAbandoned removes from out the folders an export was rendered in
// by a process that is gone (a claudebox killed while it exported): only
// claudebox's own names, a directory each, whose process is not running
// (another session of the project may export beside this one).
func removeAbandoned(out string) {
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		pid, n, ok := strings.Cut(strings.TrimPrefix(e.Name(), exportTemp), "-")
		if !e.IsDir() || !strings.HasPrefix(e.Name(), exportTemp) || !ok || !digits(pid) || !digits(n) {
			continue
		}
		if id, err := strconv.Atoi(pid); err == nil && id > 0 && unix.Kill(id, 0) == unix.ESRCH {
			os.RemoveAll(filepath.Join(out, e.Name()))
		}
	}
}

// digits says whether s is a non-empty run of decimal digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// exportBeside writes the export of session id through export into the
// folder out, as base.md or, where a file that is not one of exports
// holds that name, the first free base-<n>.md, and records it; it returns
// the name written.
func exportBeside(out, base, id string, exports Exports, export func(path string) error) (string, error) {
	tmp, err := os.MkdirTemp(out, exportTemp+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := export(filepath.Join(tmp, "export.md")); err != nil {
		return "", err
	}
	made := filepath.Join(tmp, "export.md")
	for n := 1; n <= 100; n++ {
		name := base + ".md"
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ".md"
		}
		if exports[name] == id {
			if err := os.Rename(made, filepath.Join(out, name)); err != nil {
				return "", err
			}
			return name, nil
		}
		if _, taken := exports[name]; taken {
			continue
		}
		err := unix.Renameat2(unix.AT_FDCWD, made, unix.AT_FDCWD, filepath.Join(out, name), unix.RENAME_NOREPLACE)
		if err == nil || errors.Is(err, unix.EEXIST) && sameContent(made, filepath.Join(out, name)) {
			exports[name] = id
			return name, nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", &os.LinkError{Op: "rename", Old: made, New: filepath.Join(out, name), Err: err}
		}
	}
	return "", fmt.Errorf("%s: no free name for the export", filepath.Join(out, base+".md"))
}

// sameContent says whether the regular files a and b (not followed if a
// symlink) hold the same bytes.
func sameContent(a, b string) bool {
	fa, errA := os.Lstat(a)
	fb, errB := os.Lstat(b)
	if errA != nil || errB != nil || !fb.Mode().IsRegular() || fa.Size() != fb.Size() || fa.Size() > 64<<20 {
		return false
	}
	ba, errA := os.ReadFile(a)
	bb, errB := os.ReadFile(b)
	return errA == nil && errB == nil && bytes.Equal(ba, bb)
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

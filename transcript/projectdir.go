package transcript

import (
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// What --list and --move read of an instance's transcripts: their number
// and the working directory they record, by every name the sandbox gave
// them (Sessions lists only those named as Claude Code names them).

// cwdRecords is how many of a transcript's first records are looked
// through for the working directory.
const cwdRecords = 50

// Count is how many transcripts the instance dir holds: every regular
// <path-named dir>/<name>.jsonl, reached through no symlink.
func Count(dir string) int {
	tops, err := untrusted.ReadDir(dir, ".")
	if err != nil {
		return 0
	}
	n := 0
	for _, top := range tops {
		if top.IsDir() {
			n += len(transcriptsIn(dir, top.Name()))
		}
	}
	return n
}

// ProjectDir reads one of Claude Code's project directories, name in the
// instance dir: how many transcripts it holds, and the working directory
// they record ("cwd" in one of a transcript's first records), "" where
// none does. Each is read as the hostile file it is (openTranscript), its
// records bounded as the export's are.
func ProjectDir(dir, name string) (count int, cwd string) {
	files := transcriptsIn(dir, name)
	for _, e := range files {
		if cwd = recordedCwd(dir, filepath.Join(name, e.Name())); cwd != "" {
			break
		}
	}
	return len(files), cwd
}

// transcriptsIn lists the regular <name>.jsonl files of the directory
// name in dir.
func transcriptsIn(dir, name string) []fs.DirEntry {
	entries, err := untrusted.ReadDir(dir, name)
	if err != nil {
		return nil
	}
	var out []fs.DirEntry
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, e)
		}
	}
	return out
}

// recordedCwd is the working directory the transcript name in dir records
// in one of its first records, "" where none does or it cannot be read.
func recordedCwd(dir, name string) string {
	f, err := openTranscript(dir, name)
	if err != nil {
		return ""
	}
	defer f.Close()
	var cwd string
	left := cwdRecords
	// A record over maxLine is skipped, not counted: the bytes read are
	// bounded as the records are.
	r := &stoppable{r: io.LimitReader(f, cwdRecords*maxLine)}
	lines(r, func(_ int64, line []byte) {
		if r.stop {
			return
		}
		var rec struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Cwd != "" {
			cwd, r.stop = rec.Cwd, true
		}
		if left--; left == 0 {
			r.stop = true
		}
	})
	return cwd
}

// stoppable reads r until stop is set, then ends: lines reads no further
// than the buffer it holds.
type stoppable struct {
	r    io.Reader
	stop bool
}

func (s *stoppable) Read(p []byte) (int, error) {
	if s.stop {
		return 0, io.EOF
	}
	return s.r.Read(p)
}

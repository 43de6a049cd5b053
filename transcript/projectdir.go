package transcript

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
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

// maxCwdLooks bounds the transcripts of a project directory read for
// the working directory they record: the sandbox can leave 200,000 that
// record none (--move read every one, 95 s).
const maxCwdLooks = 16

// Count is how many transcripts the instance dir holds: every regular
// <path-named dir>/<name>.jsonl, reached through no symlink. The names
// are read a part at a time and not kept.
func Count(dir string) int {
	n := 0
	untrusted.EachEntry(dir, ".", func(top fs.DirEntry) {
		if top.IsDir() {
			eachTranscriptIn(dir, top.Name(), func(string) { n++ })
		}
	})
	return n
}

// ProjectDir reads one of Claude Code's project directories, name in the
// instance dir: how many transcripts it holds, and the working directory
// they record ("cwd" in one of a transcript's first records), "" where
// none of the first maxCwdLooks does. Each is read as the hostile file it
// is (openTranscript), its records bounded as the export's are.
func ProjectDir(dir, name string) (count int, cwd string) {
	eachTranscriptIn(dir, name, func(file string) {
		if count++; cwd == "" && count <= maxCwdLooks {
			cwd = recordedCwd(dir, filepath.Join(name, file))
		}
	})
	return count, cwd
}

// Holds says whether one of the first max directories of the instance
// dir holds the transcript of Claude Code's session id, a regular file.
func Holds(dir, id string, max int) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	subs, _ := f.ReadDir(max)
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, sub.Name(), id+".jsonl")); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// eachTranscriptIn calls fn with each regular <name>.jsonl file of the
// directory name in dir.
func eachTranscriptIn(dir, name string, fn func(file string)) {
	untrusted.EachEntry(dir, name, func(e fs.DirEntry) {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			fn(e.Name())
		}
	})
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

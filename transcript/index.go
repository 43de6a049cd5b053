// Package transcript reads Claude Code's session transcripts (one JSON
// record a line), and Gemini CLI's chats, from an instance and renders them
// as Markdown a person can read, file in a notes vault, and share.
//
// The sandbox writes the transcripts, so every byte of them is hostile:
// files are opened through the untrusted package (regular files only, no
// symlink anywhere in the path), read as a stream in two passes with a
// bounded line size, and every string that reaches the Markdown is
// neutralised (control characters, raw HTML, links other than http(s),
// fences shorter than their content).
package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/claudebox/claudebox/untrusted"
	"golang.org/x/sys/unix"
)

// Limits on what a transcript may cost the host.
const (
	// maxLine is the longest record read; a longer one is skipped, with a
	// note in the export, and never held in memory.
	maxLine = 16 << 20
	// maxFile is the largest transcript read: a sparse file can claim any
	// size.
	maxFile = 4 << 30
	// maxRecords bounds the lines read of one transcript, and its index:
	// each line costs its parse and a record its index entry, and a
	// sandbox's 350 MB of a million short records held --list-sessions
	// 35 s at 900 MiB, and --export of it 96 s at 1.1 GiB.
	maxRecords = 1 << 18
	// maxListedLines bounds the lines one listing reads in all: a file
	// read under many names (hard links, which cost no disk) or many
	// files at maxRecords would hold it for hours.
	maxListedLines = 8 * maxRecords
	// maxID bounds a uuid or message id; a longer one is not indexed.
	maxID = 80
	// maxMeta bounds the session facts kept from records (version, branch,
	// title, first prompt).
	maxMeta = 200
)

// Session is one conversation of a project: a transcript in the instance.
type Session struct {
	ID string `json:"id"`
	// Path is the transcript's path in the instance directory.
	Path        string    `json:"path"`
	Title       string    `json:"title"`
	FirstPrompt string    `json:"first_prompt"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Turns       int       `json:"turns"`
	// Modified is when the transcript was last written.
	Modified time.Time `json:"modified"`
	// Note says why the session could not be read, when it could not.
	Note string `json:"note,omitempty"`
	// Agent names the agent CLI whose session it is, when not Claude.
	Agent string `json:"agent,omitempty"`
}

// kinds of record the index keeps.
const (
	kindOther = iota
	kindUser
	kindAssistant
	kindSystem
)

// entry is what the first pass keeps of one record: where it is, and what
// places it in the conversation.
type entry struct {
	uuid, parent string
	off          int64
	size         int
	kind         uint8
	prompt       bool // a user's own prompt, not a tool result or a caveat
	sidechain    bool
	msgID, model string
	usage        usage
}

type usage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

// index is the first pass over a transcript.
type index struct {
	entries  []entry
	byUUID   map[string]int
	title    string // a custom title, else the last ai-title
	summary  string
	first    string // the first prompt
	start    time.Time
	end      time.Time
	versions []string
	branch   string
	skipped  int // lines over maxLine, or not JSON
	lines    int // lines read
	capped   bool
}

// head is what the first pass reads of a record (scanHead); the content is
// only classified. The tags name the fields as the transcript does.
type head struct {
	Type              string  `json:"type"`
	UUID              string  `json:"uuid"`
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID string  `json:"logicalParentUuid"`
	IsSidechain       bool    `json:"isSidechain"`
	IsMeta            bool    `json:"isMeta"`
	IsCompactSummary  bool    `json:"isCompactSummary"`
	Timestamp         string  `json:"timestamp"`
	Version           string  `json:"version"`
	GitBranch         string  `json:"gitBranch"`
	Summary           string  `json:"summary"`
	AITitle           string  `json:"aiTitle"`
	CustomTitle       string  `json:"customTitle"`
	Message           struct {
		ID      string      `json:"id"`
		Model   string      `json:"model"`
		Usage   usage       `json:"usage"`
		Content promptClass `json:"-"` // read by promptClass.scan
	} `json:"message"`
}

// promptClass is a user message's content read only as far as telling a
// prompt (a string, or text blocks) from tool results, with a preview.
type promptClass struct {
	prompt  bool
	preview string
}

// lineCount is what lines read: the lines, those of them skipped, and
// whether it stopped at maxRecords with more left.
type lineCount struct {
	lines, skipped int
	capped         bool
}

// lines calls fn with each line of r and its offset, up to maxLine bytes;
// a longer line is skipped, never held whole, and counted. It reads at
// most maxRecords lines, whatever they hold.
func lines(r io.Reader, fn func(off int64, line []byte)) (n lineCount, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	var off int64
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		size := len(chunk)
		switch {
		case tooLong:
		case len(buf)+size > maxLine:
			tooLong, buf = true, buf[:0]
		default:
			if len(buf)+size > cap(buf) {
				// Doubling, not append's gentler growth, bounds what a long
				// line costs to twice maxLine.
				nb := make([]byte, len(buf), min(maxLine, max(2*cap(buf), len(buf)+size)))
				copy(nb, buf)
				buf = nb
			}
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			off += int64(size)
			continue
		}
		if len(buf) > 0 || tooLong {
			n.lines++
			start := off + int64(size) - int64(len(buf))
			if tooLong {
				n.skipped++
			} else {
				fn(start, buf)
			}
		}
		off += int64(size)
		buf, tooLong = buf[:0], false
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if n.lines == maxRecords {
			_, err := br.Peek(1)
			n.capped = err == nil
			return n, nil
		}
	}
}

// clip bounds a string kept from a record.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// read is the first pass: it indexes the records of r.
func read(r io.Reader) (*index, error) {
	ix := &index{byUUID: map[string]int{}}
	models := map[string]string{} // interned
	n, err := lines(r, func(off int64, line []byte) {
		var h head
		if !scanHead(line, &h) {
			ix.skipped++
			return
		}
		if t, err := time.Parse(time.RFC3339Nano, h.Timestamp); err == nil {
			if ix.start.IsZero() || t.Before(ix.start) {
				ix.start = t
			}
			if t.After(ix.end) {
				ix.end = t
			}
		}
		if h.Version != "" && len(ix.versions) < 8 && !contains(ix.versions, clip(h.Version, 40)) {
			ix.versions = append(ix.versions, clip(h.Version, 40))
		}
		if h.GitBranch != "" {
			ix.branch = clip(h.GitBranch, maxMeta)
		}
		switch h.Type {
		case "ai-title":
			if !strings.HasPrefix(ix.title, "\x00") && h.AITitle != "" {
				ix.title = clip(h.AITitle, maxMeta)
			}
		case "custom-title":
			if h.CustomTitle != "" {
				// Marked so that a later ai-title does not replace it.
				ix.title = "\x00" + clip(h.CustomTitle, maxMeta)
			}
		case "summary":
			if h.Summary != "" {
				ix.summary = clip(h.Summary, maxMeta)
			}
		}
		if h.UUID == "" || len(h.UUID) > maxID {
			return
		}
		e := entry{uuid: h.UUID, off: off, size: len(line), sidechain: h.IsSidechain}
		if h.ParentUUID != nil {
			e.parent = *h.ParentUUID
		} else {
			// A compaction starts a new chain; its logical parent carries
			// the conversation before it.
			e.parent = h.LogicalParentUUID
		}
		switch h.Type {
		case "user":
			e.kind = kindUser
			e.prompt = h.Message.Content.prompt && !h.IsMeta && !h.IsCompactSummary && !isCommandOutput(h.Message.Content.preview)
			if e.prompt && ix.first == "" && !h.IsSidechain {
				ix.first = clip(promptLine(h.Message.Content.preview), maxMeta)
			}
		case "assistant":
			e.kind = kindAssistant
			if len(h.Message.ID) <= maxID {
				e.msgID = h.Message.ID
			}
			if m := clip(h.Message.Model, 80); m != "" {
				if _, ok := models[m]; !ok {
					models[m] = m
				}
				e.model = models[m]
			}
			e.usage = h.Message.Usage
		case "system":
			e.kind = kindSystem
		}
		if _, dup := ix.byUUID[e.uuid]; !dup {
			ix.byUUID[e.uuid] = len(ix.entries)
		}
		ix.entries = append(ix.entries, e)
	})
	ix.title = strings.TrimPrefix(ix.title, "\x00")
	ix.lines, ix.skipped, ix.capped = n.lines, ix.skipped+n.skipped, n.capped
	return ix, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// chain is the active branch: from the last message of the main
// conversation (of a subagent's, with sidechain) back through its parents,
// returned oldest first. A branch abandoned by an edit or a rewind is not
// on it.
func (ix *index) chain(sidechain bool) []int {
	leaf := -1
	for i := len(ix.entries) - 1; i >= 0; i-- {
		if e := ix.entries[i]; (sidechain || !e.sidechain) && (e.kind == kindUser || e.kind == kindAssistant) {
			leaf = i
			break
		}
	}
	var out []int
	seen := map[int]bool{}
	for i := leaf; i >= 0 && !seen[i]; {
		seen[i] = true
		out = append(out, i)
		p, ok := ix.byUUID[ix.entries[i].parent]
		if !ok {
			break
		}
		i = p
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

// isCommandOutput tells what Claude Code records as a user message and
// the user did not type from a prompt: a slash command's output, a shell
// command's (typed after "!"), the mark of an interrupted turn.
func isCommandOutput(s string) bool {
	for _, prefix := range []string{"<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>", "[Request interrupted by user"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// promptLine is a prompt's first line, with a slash command and a shell
// command shown as typed ("! make", as Claude Code's own lastPrompt).
func promptLine(s string) string {
	if name, ok := between(s, "<command-name>", "</command-name>"); ok {
		args, _ := between(s, "<command-args>", "</command-args>")
		s = strings.TrimSpace(name + " " + args)
	} else if command, ok := between(s, "<bash-input>", "</bash-input>"); ok {
		s = "! " + command
	}
	s = stripReminders(s)
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// stripReminders removes Claude Code's <system-reminder> blocks, which it
// adds to what the user typed.
func stripReminders(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
}

// errSparse is a transcript with a hole: an agent only appends to one,
// and a sandbox's file of gigabytes that takes no disk (truncate -s 4G)
// had each export at the session's end read all of it (four held the end
// 85 s, and --list-sessions 16 s).
var errSparse = errors.New("sparse (a hole in it, which no agent writes): not read")

// openTranscript opens the transcript name in the instance dir as the
// hostile file it is: a regular file, reached through no symlink, of a
// size the host will read, with no hole.
func openTranscript(dir, name string) (*os.File, error) {
	f, err := untrusted.Open(dir, name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() > maxFile {
		err = fmt.Errorf("%s: %w: %d bytes", filepath.Join(dir, name), untrusted.ErrTooLarge, fi.Size())
	}
	if err == nil {
		if hole, serr := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE); serr == nil && hole < fi.Size() {
			err = fmt.Errorf("%s: %w", filepath.Join(dir, name), errSparse)
		} else if _, serr := f.Seek(0, io.SeekStart); serr != nil {
			err = serr
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrNoSessions is returned when the instance holds no transcript.
var ErrNoSessions = errors.New("no sessions")

// MaxListed bounds the sessions one listing reads: the sandbox writes the
// instance's history and can leave transcripts by the hundred thousand
// (200,000 of one line each held --list-sessions 61 s at 178 MiB).
const MaxListed = 1000

// Sessions lists the sessions of the instance dir whose id match accepts,
// oldest first: every <dir>/<path-named dir>/<id>.jsonl that is a regular
// file with a name claudebox will write out, Codex's rollouts and
// Gemini's chats. Of those, only the MaxListed written last are read;
// unread is how many others there are. One it cannot read is listed with
// a Note.
func Sessions(dir string, match func(id string) bool) (list []Session, unread int, err error) {
	return sessions(dir, MaxListed, func(id string, _ time.Time) bool { return match(id) }, eachClaude, eachCodex, eachGemini)
}

// found is a transcript known by its name, not yet read.
type found struct {
	rel, id  string
	modified time.Time
	describe func(dir, rel, id string, rd *reading) Session
}

// eachClaude calls visit for each of Claude Code's transcripts of the
// instance dir.
func eachClaude(dir string, visit func(found)) error {
	return eachTranscript(dir, func(rel, id string, modified time.Time) {
		visit(found{rel, id, modified, describe})
	})
}

// sessions lists the sessions of the instance dir, found by the walks,
// that want (given the session id and the transcript's modification time)
// asks to be read, oldest first: of those, the limit most recently
// modified, and how many others want asked for. Only those are read, and
// only their names are held meanwhile: the sandbox can leave transcripts
// by the hundred thousand. The first walk's error is the listing's.
func sessions(dir string, limit int, want func(id string, modified time.Time) bool, walks ...func(dir string, visit func(found)) error) (list []Session, unread int, err error) {
	var picked []found
	wanted := 0
	keepNewest := func() {
		slices.SortFunc(picked, func(a, b found) int {
			if c := b.modified.Compare(a.modified); c != 0 {
				return c
			}
			return strings.Compare(a.rel, b.rel)
		})
		picked = picked[:min(limit, len(picked))]
	}
	for i, walk := range walks {
		err := walk(dir, func(f found) {
			if !want(f.id, f.modified) {
				return
			}
			wanted++
			picked = append(picked, f)
			if len(picked) >= 2*limit {
				keepNewest()
			}
		})
		if err != nil && i == 0 {
			return nil, 0, err
		}
	}
	keepNewest()
	out := make([]Session, 0, len(picked))
	rd := &reading{left: maxListedLines, names: map[fileID]string{}}
	for _, f := range picked {
		out = append(out, f.describe(dir, f.rel, f.id, rd))
	}
	byStart(out)
	return out, wanted - len(picked), nil
}

// byStart sorts sessions oldest first.
func byStart(out []Session) {
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].ID < out[j].ID
	})
}

// eachTranscript calls visit for every <dir>/<path-named dir>/<id>.jsonl
// that is a regular file with a name claudebox will write out, with its
// path below dir and its modification time.
func eachTranscript(dir string, visit func(rel, id string, modified time.Time)) error {
	return untrusted.EachEntry(dir, ".", func(top fs.DirEntry) {
		if !top.IsDir() {
			return
		}
		untrusted.EachEntry(dir, top.Name(), func(f fs.DirEntry) {
			id, ok := strings.CutSuffix(f.Name(), ".jsonl")
			if !ok || !f.Type().IsRegular() || !isSessionID(id) {
				return
			}
			if fi, err := f.Info(); err == nil {
				visit(filepath.Join(top.Name(), f.Name()), id, fi.ModTime())
			}
		})
	})
}

// Times are the modification times of the instance dir's transcripts, by
// their path in it, as a launch finds them: WrittenSince passes over those
// it did not change.
func Times(dir string) map[string]time.Time {
	times := map[string]time.Time{}
	eachTranscript(dir, func(rel, _ string, modified time.Time) { times[rel] = modified })
	return times
}

// WrittenSince returns the id of the instance dir's transcript written last, at
// or after since, and changed from its time in before (Times at the
// launch): the session a launch ran, to resume. A launch that wrote none
// (claude auth status right after a session, within the filesystem's
// clock's slack) names none. Only its name and time are read; the sandbox
// may have set the time, which at worst names another of the project's
// sessions. ours, where not nil, says which ids the session's own Claude
// Code named: another session of the project writes beside it.
func WrittenSince(dir string, since time.Time, before map[string]time.Time, ours func(id string) bool) (string, bool) {
	var id string
	var newest time.Time
	eachTranscript(dir, func(rel, name string, modified time.Time) {
		if was, ok := before[rel]; ok && was.Equal(modified) || ours != nil && !ours(name) {
			return
		}
		if !modified.Before(since) && modified.After(newest) {
			id, newest = name, modified
		}
	})
	return id, id != ""
}

// isSessionID accepts the names Claude Code gives transcripts (UUIDs), and
// nothing that could misbehave as a file name or in a message.
func isSessionID(s string) bool {
	if s == "" || len(s) > maxID {
		return false
	}
	return strings.Trim(s, "0123456789abcdefABCDEF-") == ""
}

func describe(dir, name, id string, rd *reading) Session {
	return describeFile(dir, name, id, "", rd, func(f *os.File, s *Session) (int, error) {
		ix, err := read(f)
		if err != nil {
			return ix.lines, err
		}
		// A list is a preview, and may be pasted: its text is redacted.
		s.Title, s.FirstPrompt, s.Start, s.End = redact(ix.bestTitle()), redact(ix.first), ix.start, ix.end
		for _, i := range ix.chain(false) {
			if ix.entries[i].prompt {
				s.Turns++
			}
		}
		return ix.lines, nil
	})
}

// reading is what one listing has read so far: each file once, whatever
// its names, and at most maxListedLines lines in all. A transcript past
// either is listed with a note, unread.
type reading struct {
	left  int
	names map[fileID]string // the name each file was read by
}

// fileID is a file, whatever its names.
type fileID struct{ dev, ino uint64 }

// describeFile is the Session of the transcript name, of agent, with what
// fill reads from it (and the lines it read); a file that cannot be read,
// or that rd has read or has no lines left for, is named in its note.
func describeFile(dir, name, id, agent string, rd *reading, fill func(f *os.File, s *Session) (int, error)) Session {
	s := Session{ID: id, Path: name, Agent: agent}
	if rd.left <= 0 {
		s.Note = fmt.Sprintf("not read: the listing has read its %d lines", maxListedLines)
		return s
	}
	f, err := openTranscript(dir, name)
	if err != nil {
		s.Note = err.Error()
		return s
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		s.Note = err.Error()
		return s
	}
	s.Modified = time.Unix(st.Mtim.Unix())
	file := fileID{st.Dev, st.Ino}
	if first, ok := rd.names[file]; ok {
		s.Note = fmt.Sprintf("another name of %s, read once (a hard link, which no agent makes)", first)
		return s
	}
	rd.names[file] = name
	n, err := fill(f, &s)
	rd.left -= n
	if err != nil {
		s.Note = err.Error()
		return s
	}
	if s.Title == "" {
		s.Title = "(untitled)"
	}
	return s
}

// bestTitle is the session's title: the user's, else Claude Code's, else
// the summary, else the first prompt.
func (ix *index) bestTitle() string {
	for _, t := range []string{ix.title, ix.summary, ix.first} {
		if t != "" {
			return t
		}
	}
	return "(untitled)"
}

package session

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// unsaidSuffix names, beside a folder of <state>/moved-aside/<hash>/, the
// record of what the exit audit moves there: written before it moves,
// removed once it said so. A supervisor killed between the two, or whose
// words its closed terminal did not take, leaves it, and the next
// claudebox command says what was moved (SayUnsaidMoves): nothing of the
// user's is moved without a word.
const unsaidSuffix = ".unsaid"

// unsaidLimit bounds the record read back: a line for each path moved.
const unsaidLimit = 16 << 20

// moveAside moves paths, beneath root, aside into dest (audit.MoveAside),
// recording first what it moves until said is called. A record that
// cannot be written (a full disk) does not stop the move, which the
// session then says as before.
func moveAside(root, dest string, paths []string) (moved []audit.Moved, said func(), err error) {
	var planned []audit.Moved
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			planned = append(planned, audit.Moved{From: p, To: filepath.Join(dest, rel)})
		}
	}
	said = RecordMoves(dest, planned, nil)
	moved, err = audit.MoveAside(root, dest, paths)
	return moved, said, err
}

// RecordMoves records, beside dest, the moves into it planned, before
// they are made, and those of what may stand in their way (inTheWay: a
// file or link where a directory on a planned path was, moved aside only
// if so); said forgets the record once they were said. A record that
// cannot be written (a full disk) does not stop the moves.
func RecordMoves(dest string, planned, inTheWay []audit.Moved) (said func()) {
	record := dest + unsaidSuffix
	moves := make([]unsaidMove, 0, len(planned)+len(inTheWay))
	for _, m := range planned {
		moves = append(moves, unsaidMove{From: []byte(m.From), To: []byte(m.To)})
	}
	for _, m := range inTheWay {
		moves = append(moves, unsaidMove{From: []byte(m.From), To: []byte(m.To), InTheWay: true})
	}
	if b, err := json.Marshal(moves); err == nil && os.MkdirAll(filepath.Dir(dest), 0o700) == nil {
		os.WriteFile(record, b, 0o600)
	}
	return func() { os.Remove(record) }
}

// unsaidMove is a move a record holds, its paths as bytes, which JSON
// keeps as they are (its strings hold a name's bytes that are not UTF-8
// as U+FFFD, and the record named no file there was).
type unsaidMove struct {
	From     []byte `json:"f"`
	To       []byte `json:"t"`
	InTheWay bool   `json:"w,omitempty"`
}

// readUnsaid reads the moves a record holds; an older claudebox's record
// holds their paths as strings, under other keys. A move of what may
// have stood in another's way is in inTheWay.
func readUnsaid(b []byte) (planned, inTheWay []audit.Moved, err error) {
	var moves []unsaidMove
	if err := json.Unmarshal(b, &moves); err != nil || slices.ContainsFunc(moves, func(m unsaidMove) bool { return len(m.From) == 0 }) {
		return planned, nil, json.Unmarshal(b, &planned)
	}
	for _, m := range moves {
		if m.InTheWay {
			inTheWay = append(inTheWay, audit.Moved{From: string(m.From), To: string(m.To)})
		} else {
			planned = append(planned, audit.Moved{From: string(m.From), To: string(m.To)})
		}
	}
	return planned, inTheWay, nil
}

// undoAside begins the name of the folder --undo moves into.
const undoAside = "undo-"

// UndoDest is the folder of state that --undo of the project at root,
// at now, moves what it replaces into, beside the exit audits'.
func UndoDest(state, root string, now time.Time) string {
	return filepath.Join(state, "moved-aside", instance.Hash(root), undoAside+now.UTC().Format("20060102T150405.000Z"))
}

// SayUnsaidMoves says what exit audits whose supervisor was killed, and
// --undo killed, moved aside without saying so, with the commands that put each back, and then
// forgets the records: those of projects no session runs in (an audit
// holds its project's lock).
func SayUnsaidMoves(state string) {
	sayUnheard(state)
	w := &heard{w: os.Stderr}
	for record, b := range idleRecords(state, unsaidSuffix) {
		planned, inTheWay, err := readUnsaid(b)
		if err != nil {
			os.Remove(record)
			continue
		}
		dest := strings.TrimSuffix(record, unsaidSuffix)
		var moved []audit.Moved
		for _, m := range planned {
			// There now: moved, whole (a copy across filesystems is named
			// there only once whole, and a copy cut short is in the
			// scratch folder, removed below, the project's in place).
			if _, err := os.Lstat(m.To); err == nil && strings.HasPrefix(m.To, dest+"/") {
				moved = append(moved, m)
			}
		}
		// What stood in the way is no directory: one there holds a
		// planned path moved below it.
		for _, m := range inTheWay {
			if fi, err := os.Lstat(m.To); err == nil && !fi.IsDir() && strings.HasPrefix(m.To, dest+"/") {
				moved = append(moved, m)
			}
		}
		undoing := strings.HasPrefix(filepath.Base(dest), undoAside)
		if len(moved) > 0 {
			if undoing {
				printable.Say(w, "claudebox: claudebox --undo, killed, had moved aside what stood at these paths:")
			} else {
				printable.Say(w, "claudebox: a session killed in its exit audit, or whose terminal closed then, moved aside what it left that the host would run or obey:")
			}
			for _, m := range moved {
				printable.Say(w, "  %s", mount.Quote(m.From))
				_, err := os.Lstat(m.From)
				switch {
				case err == nil && undoing:
					printable.Say(w, "    restored as the session found it; what stood there is at %s", mount.Quote(m.To))
				case err == nil:
					// Killed while removing it after its copy.
					printable.Say(w, "    what is left of it is still there; the whole of it, as the session left it, is at %s", mount.Quote(m.To))
				default:
					printable.Say(w, "    to put it back: mv -n %s %s", mount.Quote(m.To), mount.Quote(m.From))
				}
			}
			if !undoing {
				printable.Say(w, "hint: if you changed one yourself during the session, put it back; otherwise read it first")
			}
		}
		os.RemoveAll(dest + audit.CopyingSuffix)
		if !w.failed {
			os.Remove(record)
		}
	}
}

// unheardSuffix names, beside the folders of <state>/moved-aside/<hash>/,
// the warnings a session's end said to a terminal that had closed (a
// write failed): of what git status shows nothing of, said again by the
// next claudebox command (SayUnsaidMoves).
const unheardSuffix = ".unheard"

// exitVoice says the exit's warnings on stderr and remembers them: where
// the terminal took none of them (closed as the session ended: a write
// failed), keepUnheard leaves them for the next command to say. What was
// moved aside keeps records of its own (reportFindings, reportDeps).
type exitVoice struct {
	heard
	said bytes.Buffer
}

func newExitVoice() *exitVoice { return &exitVoice{heard: heard{w: os.Stderr}} }

func (v *exitVoice) Write(p []byte) (int, error) {
	// A line is said whole; past the bound a record is read back with,
	// no more is kept.
	if v.said.Len()+len(p) <= unsaidLimit {
		v.said.Write(p)
	}
	return v.heard.Write(p)
}

// keepUnheard keeps what v said, if the terminal did not take it, for the
// project whose instance is dir, for the next command to say. A record
// that cannot be written (a full disk) is not kept.
func (v *exitVoice) keepUnheard(state, dir string) {
	if !v.failed || v.said.Len() == 0 {
		return
	}
	kept := filepath.Join(state, "moved-aside", filepath.Base(dir), time.Now().UTC().Format("20060102T150405.000000000Z")+unheardSuffix)
	if os.MkdirAll(filepath.Dir(kept), 0o700) == nil {
		atomicfile.WriteFrom(kept, 0o600, false, func(w io.Writer) error {
			_, err := w.Write(v.said.Bytes())
			return err
		})
	}
}

// sayUnheard says the warnings a session's end kept (keepUnheard), of
// projects no session runs in, and forgets each once said.
func sayUnheard(state string) {
	for record, b := range idleRecords(state, unheardSuffix) {
		w := &heard{w: os.Stderr}
		printable.Say(w, "claudebox: a session whose terminal closed as it ended said this, which that terminal did not show:")
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			printable.Say(w, "%s", l)
		}
		if !w.failed {
			os.Remove(record)
		}
	}
}

// idleRecords yields the records in <state>/moved-aside/<hash>/ whose
// names end in suffix, and what each holds, of projects no session runs
// in (an exit audit holds its project's lock); one that cannot be read
// (too large, no file) is removed, and so is one a killed writer left
// half-written (atomicfile's temporary file: its writer held the lock).
func idleRecords(state, suffix string) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		partial, _ := filepath.Glob(filepath.Join(state, "moved-aside", "*", ".*"+suffix+".claudebox-*"))
		for _, p := range partial {
			if hash := filepath.Base(filepath.Dir(p)); instance.IsHash(hash) && !instance.Running(state, hash) {
				os.Remove(p)
			}
		}
		records, _ := filepath.Glob(filepath.Join(state, "moved-aside", "*", "*"+suffix))
		for _, record := range records {
			hash := filepath.Base(filepath.Dir(record))
			if !instance.IsHash(hash) || instance.Running(state, hash) {
				continue
			}
			b, err := untrusted.ReadFile(filepath.Dir(record), filepath.Base(record), unsaidLimit)
			if err != nil {
				os.Remove(record)
				continue
			}
			if !yield(record, b) {
				return
			}
		}
	}
}

// heard writes to w and remembers a write that failed: a terminal closed
// (SIGHUP) as a session ends takes no more (EIO), and what was moved aside
// meanwhile is said again by the next claudebox command.
type heard struct {
	w      io.Writer
	failed bool
}

func (h *heard) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.failed = h.failed || err != nil
	return n, err
}

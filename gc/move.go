package gc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/undo"
	"github.com/claudebox/claudebox/untrusted"
	"golang.org/x/sys/unix"
)

// ClaudeProjectDir is the name Claude Code gives the directory of a working
// directory's sessions: every UTF-16 unit that is not an ASCII letter or
// digit becomes "-", and a name over 200 units is cut and suffixed with a
// hash of the path (measured in Claude Code 2.1.330's source).
func ClaudeProjectDir(path string) string {
	units := utf16.Encode([]rune(path))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash<<5 - hash + int32(u)
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= 200 {
		return string(name)
	}
	h := int64(hash)
	if h < 0 {
		h = -h
	}
	return string(name[:200]) + "-" + strconv.FormatInt(h, 36)
}

// ErrExists is returned by Move when the new root already has an instance
// and merging was not asked for.
var ErrExists = errors.New("the new root already has an instance")

// ErrInUse is returned when a running session holds an instance.
var ErrInUse = errors.New("a claudebox session is running in it")

// MoveResult says what Move carried over.
type MoveResult struct {
	from, To    string // instance directories
	Transcripts int
	conflicts   []string // the first of the entries a merge left behind (leftNamed), and why
	Repairs     []string // what was repaired of what the sandbox left
}

// Move carries the instance of oldRoot to newRoot, after the repository was
// moved or renamed: it renames Claude Code's path-named directories inside
// so that claude --continue and --resume find the old sessions, re-keys the
// instance to the new root's hash and rewrites its project-root. With merge,
// an existing instance of newRoot receives the old sessions and history.
// Interrupted, it can be run again: it picks up an instance already renamed
// whose project-root still names oldRoot.
func Move(stateDir, oldRoot, newRoot string, merge bool) (MoveResult, error) {
	projects := ProjectsDir(stateDir)
	oldHash, newHash := instance.Hash(oldRoot), instance.Hash(newRoot)
	oldDir, newDir := instance.Dir(stateDir, oldRoot), instance.Dir(stateDir, newRoot)
	res := MoveResult{from: oldDir, To: newDir}
	if oldRoot == newRoot {
		return res, fmt.Errorf("%s is already this project's root", oldRoot)
	}
	// The sandbox may have taken the instances' permissions away, which
	// would hide their project-root files.
	for _, dir := range []string{oldDir, newDir} {
		if fixed, err := untrusted.RepairDir(dir); err == nil && fixed {
			res.Repairs = append(res.Repairs, "gave "+dir+" its permissions back (the sandbox had changed them)")
		}
	}
	if root, _ := readRoot(projects, oldHash); root != oldRoot {
		// An earlier run renamed the instance and stopped before rewriting.
		if root, _ := readRoot(projects, newHash); root == oldRoot {
			if err := moveInboxRecord(stateDir, oldHash, newHash); err != nil {
				return res, err
			}
			return res, finish(projects, newHash, newRoot)
		}
		return res, fmt.Errorf("no instance of %s in %s", oldRoot, projects)
	}
	unlock, err := lockIdle(oldDir)
	if err != nil {
		return res, err
	}
	defer unlock()
	// The stand-ins a killed session left are named by the old instance;
	// its records follow it below. What its sessions recorded of the
	// checkout at the old place (its start, the last audit's record)
	// names paths no launch reads again.
	instance.RemovePlaceholders(oldDir)
	instance.ForgetProject(oldDir)
	_, err = os.Lstat(newDir)
	switch {
	case err == nil && !merge:
		return res, ErrExists
	case err == nil:
		unlockNew, err := lockIdle(newDir)
		if err != nil {
			return res, err
		}
		defer unlockNew()
	case !errors.Is(err, fs.ErrNotExist):
		return res, err
	}
	exists := err == nil
	if exists {
		// Checked before anything moves: a history the merge would stop
		// at left both instances half merged.
		for _, hash := range []string{oldHash, newHash} {
			if err := checkHistory(projects, hash); err != nil {
				return res, err
			}
		}
	}
	if res.Transcripts, err = renameProjectDirs(projects, oldHash, oldRoot, newRoot); err != nil {
		return res, err
	}
	holdpoint.At("move sessions renamed")
	if err := moveCaches(stateDir, oldHash, newHash); err != nil {
		return res, err
	}
	holdpoint.At("move caches")
	if err := moveRecords(stateDir, oldRoot, newRoot); err != nil {
		return res, err
	}
	holdpoint.At("move records")
	if err := undo.Move(stateDir, oldRoot, newRoot); err != nil {
		return res, err
	}
	holdpoint.At("move undo")
	if exists {
		if err := mergeInboxRecord(stateDir, oldHash, newHash, filepath.Base(oldRoot)); err != nil {
			return res, err
		}
		res.conflicts, err = mergeInto(projects, oldHash, newHash)
		return res, err
	}
	if err := untrusted.Rename(projects, oldHash, newHash); err != nil {
		return res, err
	}
	holdpoint.At("move instance renamed")
	if err := moveInboxRecord(stateDir, oldHash, newHash); err != nil {
		return res, err
	}
	holdpoint.At("move inbox")
	return res, finish(projects, newHash, newRoot)
}

// moveInboxRecord carries the inbox's record to the new hash, so that its
// exports move to the new project's folder rather than being written
// again beside the old.
func moveInboxRecord(stateDir, oldHash, newHash string) error {
	err := untrusted.Rename(filepath.Join(stateDir, instance.InboxRecords), oldHash, newHash)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// mergeInboxRecord adds the inbox's record of oldHash to newHash's, as
// merged, and removes it: the new place's next export moves the old
// place's exports into its folder, rather than writing them again beside
// them. oldName is the old place's folder where its record, an older
// claudebox's, names none. Run again after a kill, it adds nothing twice.
func mergeInboxRecord(stateDir, oldHash, newHash, oldName string) error {
	dir := filepath.Join(stateDir, instance.InboxRecords)
	b, err := untrusted.ReadFile(dir, oldHash, transcript.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	from := transcript.ParseRecord(b)
	if from.Project == "" {
		from.Project = oldName
	}
	into := transcript.Record{Exports: transcript.Exports{}}
	switch b, err := untrusted.ReadFile(dir, newHash, transcript.RecordLimit); {
	case err == nil:
		into = transcript.ParseRecord(b)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	for _, m := range append(from.Merged, transcript.Record{Project: from.Project, Exports: from.Exports}) {
		if !slices.ContainsFunc(into.Merged, func(r transcript.Record) bool { return r.Project == m.Project && maps.Equal(r.Exports, m.Exports) }) {
			into.Merged = append(into.Merged, m)
		}
	}
	b, err = json.Marshal(into)
	if err != nil {
		return err
	}
	if err := untrusted.WriteFile(dir, newHash, b, 0o600); err != nil {
		return err
	}
	return untrusted.RemoveAll(dir, oldHash)
}

// finish points the renamed instance hash at its new root.
func finish(projects, hash, root string) error {
	return untrusted.WriteFile(filepath.Join(projects, hash), instance.RootFile, []byte(root+"\n"), 0o600)
}

// lockIdle takes an instance's session lock exclusively, failing with
// ErrInUse when a session holds it.
func lockIdle(dir string) (func(), error) {
	f, err := instance.OpenLock(dir)
	if err != nil {
		return nil, err
	}
	idle, err := instance.TryLockIdle(f)
	if err == nil && !idle {
		err = ErrInUse
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// renameProjectDirs renames, inside the instance hash, each of Claude
// Code's directories named after a working directory under oldRoot to the
// name of the same directory under newRoot. The working directory is read
// from a session transcript when there is one (a name alone is ambiguous:
// "-" is both a separator and a character); a worktree outside oldRoot
// keeps its name. It returns how many session transcripts were carried.
// The instance is read a part at a time (the sandbox can leave millions
// of entries there), each directory renamed into movingDir, out of the
// listing, where it would be met again, and back once the listing ends.
func renameProjectDirs(projects, hash, oldRoot, newRoot string) (int, error) {
	dir := filepath.Join(projects, hash)
	if err := unstage(dir); err != nil {
		return 0, err
	}
	if err := untrusted.MkdirAll(dir, movingDir, 0o700); err != nil {
		return 0, err
	}
	sessions := 0
	oldName := ClaudeProjectDir(oldRoot)
	var renameErr error
	err := untrusted.EachEntry(projects, hash, func(e fs.DirEntry) {
		if renameErr != nil || !e.IsDir() || e.Name() == movingDir {
			return
		}
		count, cwd := transcript.ProjectDir(dir, e.Name())
		var newName string
		switch {
		case cwd != "" && paths.Within(cwd, oldRoot):
			newName = ClaudeProjectDir(newRoot + strings.TrimPrefix(cwd, oldRoot))
		case cwd == "" && e.Name() == oldName:
			newName = ClaudeProjectDir(newRoot)
		default:
			return
		}
		sessions += count
		if newName != e.Name() {
			renameErr = untrusted.Rename(dir, e.Name(), filepath.Join(movingDir, newName))
		}
	})
	if err == nil {
		err = renameErr
	}
	if err != nil {
		return sessions, err
	}
	holdpoint.At("move sessions staged")
	return sessions, unstage(dir)
}

// movingDir is where renameProjectDirs keeps the directories it renamed
// until it has read the instance's listing to its end.
const movingDir = ".claudebox-moving"

// unstage moves what renameProjectDirs left in movingDir (an interrupted
// run's too) back into the instance dir, under the names it gave them, and
// removes movingDir. A file or a symlink under its name is the sandbox's,
// and goes.
func unstage(dir string) error {
	var renameErr error
	err := untrusted.EachEntry(dir, movingDir, func(e fs.DirEntry) {
		if renameErr == nil {
			renameErr = untrusted.Rename(dir, filepath.Join(movingDir, e.Name()), e.Name())
		}
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP):
		return untrusted.RemoveAll(dir, movingDir)
	}
	if err == nil {
		err = renameErr
	}
	if err != nil {
		return err
	}
	return untrusted.RemoveAll(dir, movingDir)
}

// historyLimit is the most of a prompt history a merge reads.
const historyLimit = 256 << 20

// leftNamed is how many of the entries a merge leaves behind it names;
// the rest it counts. The sandbox can leave millions in both instances
// under the same names (200,000 were one error of 39 MB, held at 284 MiB).
const leftNamed = 20

// leftBehind is what a merge could not move: the first leftNamed named,
// all counted.
type leftBehind struct {
	named []string
	n     int
}

func (l *leftBehind) add(entry string) {
	if l.n++; len(l.named) < leftNamed {
		l.named = append(l.named, entry)
	}
}

// mergeInto moves the sessions of instance src into instance dst, both
// hashes in projects: each project directory's entries, keeping dst's on a
// name clash, then the prompt history (src's lines first: they are older),
// then removes src the way --gc does. Nothing is moved through a symlink
// the sandbox left in dst: such an entry, like one that cannot be read, is
// left in src and reported.
func mergeInto(projects, src, dst string) (named []string, err error) {
	var left leftBehind
	err = untrusted.EachEntry(projects, src, func(e fs.DirEntry) {
		if !e.IsDir() {
			return
		}
		if e.Name() == instance.AgentsDir {
			mergeAgents(projects, src, dst, &left)
			return
		}
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		err := untrusted.Rename(projects, from, to)
		if err == nil {
			return
		}
		if errors.Is(err, fs.ErrExist) {
			err = untrusted.EachEntry(projects, from, func(f fs.DirEntry) {
				err := untrusted.Rename(projects, filepath.Join(from, f.Name()), filepath.Join(to, f.Name()))
				switch {
				case errors.Is(err, fs.ErrExist):
					left.add(filepath.Join(projects, from, f.Name()) + ": " + dst + " has one of that name")
				case err != nil:
					left.add(filepath.Join(projects, from, f.Name()) + ": " + err.Error())
				}
			})
		}
		if err != nil {
			left.add(filepath.Join(projects, from) + ": " + err.Error())
		}
	})
	if err != nil {
		return nil, err
	}
	if left.n > 0 {
		more := ""
		if left.n > len(left.named) {
			more = fmt.Sprintf("\n  and %d more", left.n-len(left.named))
		}
		return left.named, fmt.Errorf("%d entries of %s were not moved into %s, and are left in place:\n  %s%s",
			left.n, filepath.Join(projects, src), filepath.Join(projects, dst), strings.Join(left.named, "\n  "), more)
	}
	holdpoint.At("move merged sessions")
	oldHistory, err := readHistory(projects, src)
	if err != nil {
		return nil, err
	}
	newHistory, err := readHistory(projects, dst)
	if err != nil {
		return nil, err
	}
	// A merge killed once it wrote the history, run again, finds the old
	// lines at the head of the new: they are not added twice.
	if len(oldHistory) > 0 && !bytes.HasPrefix(newHistory, oldHistory) {
		if len(newHistory) > 0 && oldHistory[len(oldHistory)-1] != '\n' {
			oldHistory = append(oldHistory, '\n')
		}
		if err := untrusted.WriteFile(filepath.Join(projects, dst), historyFile, append(oldHistory, newHistory...), 0o600); err != nil {
			return nil, err
		}
	}
	holdpoint.At("move merged history")
	return nil, trashAndRemove(projects, src)
}

// mergeAgents moves the other agents' state of instance src into dst:
// each agent's directory, or where dst has one too, each of its entries
// that is not empty into the place of dst's empty one (every launch makes
// them, so most are). An entry both hold something in (two projects'
// sessions of one agent) is left in src and reported.
func mergeAgents(projects, src, dst string, left *leftBehind) {
	// move renames from to to, in place of an empty one; an empty from
	// needs no moving.
	move := func(from, to string) error {
		err := untrusted.Rename(projects, from, to)
		if errors.Is(err, fs.ErrExist) && emptyEntry(projects, to) && untrusted.RemoveAll(projects, to) == nil {
			err = untrusted.Rename(projects, from, to)
		}
		if errors.Is(err, fs.ErrExist) && emptyEntry(projects, from) {
			return nil
		}
		return err
	}
	report := func(from string, err error) {
		if errors.Is(err, fs.ErrExist) {
			left.add(filepath.Join(projects, from) + ": " + dst + " has one of that name")
		} else {
			left.add(filepath.Join(projects, from) + ": " + err.Error())
		}
	}
	agents := filepath.Join(src, instance.AgentsDir)
	err := move(agents, filepath.Join(dst, instance.AgentsDir))
	if !errors.Is(err, fs.ErrExist) {
		if err != nil {
			report(agents, err)
		}
		return
	}
	err = untrusted.EachEntry(projects, agents, func(a fs.DirEntry) {
		from, to := filepath.Join(agents, a.Name()), filepath.Join(dst, instance.AgentsDir, a.Name())
		err := move(from, to)
		if errors.Is(err, fs.ErrExist) && a.IsDir() {
			err = untrusted.EachEntry(projects, from, func(f fs.DirEntry) {
				if err := move(filepath.Join(from, f.Name()), filepath.Join(to, f.Name())); err != nil {
					report(filepath.Join(from, f.Name()), err)
				}
			})
		}
		if err != nil {
			report(from, err)
		}
	})
	if err != nil {
		report(agents, err)
	}
}

// emptyEntry says name is an empty directory or an empty regular file, not
// followed if a symlink.
func emptyEntry(projects, name string) bool {
	fi, err := untrusted.Lstat(projects, name)
	switch {
	case err != nil:
		return false
	case fi.Mode().IsRegular():
		return fi.Size() == 0
	case fi.IsDir():
		d, err := untrusted.OpenDir(projects, name)
		if err != nil {
			return false
		}
		defer d.Close()
		_, err = d.ReadDir(1)
		return err == io.EOF
	}
	return false
}

// historyFile is the instance's prompt history.
const historyFile = "history.jsonl"

// checkHistory refuses the prompt history of instance hash that a merge
// would not read: one over historyLimit, or with a hole (truncate -s 1T),
// which Claude Code, appending to it, never makes. Either is the
// sandbox's, and the user's to move aside.
func checkHistory(projects, hash string) error {
	f, err := untrusted.Open(filepath.Join(projects, hash), historyFile)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, untrusted.ErrNotRegular) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	var why error
	if fi.Size() > historyLimit {
		why = fmt.Errorf("%w: %d bytes, over the %d a merge reads", untrusted.ErrTooLarge, fi.Size(), historyLimit)
	} else if hole, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE); err == nil && hole < fi.Size() {
		why = errors.New("a hole in it, which Claude Code never writes")
	}
	if why == nil {
		return nil
	}
	return hint.Errorf("a sandbox left it: move it aside (mv "+mount.Quote(f.Name())+" "+mount.Quote(f.Name()+".left")+") and run the merge again",
		"%s: %w; nothing was merged", f.Name(), why)
}

// readHistory reads the prompt history of instance hash. One that is not a
// regular file (the sandbox's doing) holds no prompts; one that cannot be
// read stops the merge before anything is lost.
func readHistory(projects, hash string) ([]byte, error) {
	b, err := untrusted.ReadFile(filepath.Join(projects, hash), historyFile, historyLimit)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, untrusted.ErrNotRegular) {
		return nil, nil
	}
	return b, err
}

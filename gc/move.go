package gc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
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
	From, To  string // instance directories
	Sessions  int
	Conflicts []string // files left behind in a merge because the target had one of that name
}

// Move carries the instance of oldRoot to newRoot, after the repository was
// moved or renamed: it renames Claude Code's path-named directories inside
// so that claude --continue and --resume find the old sessions, re-keys the
// instance to the new root's hash and rewrites its project-root. With merge,
// an existing instance of newRoot receives the old sessions and history.
// Interrupted, it can be run again: it picks up an instance already renamed
// whose project-root still names oldRoot.
func Move(stateDir, oldRoot, newRoot string, merge bool) (MoveResult, error) {
	oldDir, newDir := instance.Dir(stateDir, oldRoot), instance.Dir(stateDir, newRoot)
	res := MoveResult{From: oldDir, To: newDir}
	if oldRoot == newRoot {
		return res, fmt.Errorf("%s is already this project's root", oldRoot)
	}
	if root, _ := readRoot(filepath.Join(oldDir, instance.RootFile)); root != oldRoot {
		// An earlier run renamed the instance and stopped before rewriting.
		if root, _ := readRoot(filepath.Join(newDir, instance.RootFile)); root == oldRoot {
			return res, finish(newDir, newRoot)
		}
		return res, fmt.Errorf("no instance of %s in %s", oldRoot, ProjectsDir(stateDir))
	}
	unlock, err := lockIdle(oldDir)
	if err != nil {
		return res, err
	}
	defer unlock()
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
	if res.Sessions, err = renameProjectDirs(oldDir, oldRoot, newRoot); err != nil {
		return res, err
	}
	if exists {
		res.Conflicts, err = mergeInto(oldDir, newDir)
		return res, err
	}
	if err := os.Rename(oldDir, newDir); err != nil {
		return res, err
	}
	return res, finish(newDir, newRoot)
}

// finish points a renamed instance at its new root.
func finish(dir, root string) error {
	return instance.WriteFileAtomic(filepath.Join(dir, instance.RootFile), []byte(root+"\n"), 0o600)
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

// renameProjectDirs renames, inside an instance, each of Claude Code's
// directories named after a working directory under oldRoot to the name of
// the same directory under newRoot. The working directory is read from a
// session transcript when there is one (a name alone is ambiguous: "-" is
// both a separator and a character); a worktree outside oldRoot keeps its
// name. It returns how many session transcripts were carried.
func renameProjectDirs(dir, oldRoot, newRoot string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	sessions := 0
	oldName := ClaudeProjectDir(oldRoot)
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		cwd := transcriptCwd(path)
		var newName string
		switch {
		case cwd != "" && instance.Within(cwd, oldRoot):
			newName = ClaudeProjectDir(newRoot + strings.TrimPrefix(cwd, oldRoot))
		case cwd == "" && e.Name() == oldName:
			newName = ClaudeProjectDir(newRoot)
		default:
			continue
		}
		n, _ := countSessions(path)
		sessions += n
		if newName == e.Name() {
			continue
		}
		if err := os.Rename(path, filepath.Join(dir, newName)); err != nil {
			return sessions, err
		}
	}
	return sessions, nil
}

// transcriptCwd finds the working directory recorded in a session
// transcript of a Claude Code project directory ("cwd" on its lines).
func transcriptCwd(projectDir string) string {
	entries, _ := os.ReadDir(projectDir)
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		f, err := os.OpenFile(filepath.Join(projectDir, e.Name()), os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for i := 0; i < 50 && sc.Scan(); i++ {
			var line struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Cwd != "" {
				f.Close()
				return line.Cwd
			}
		}
		f.Close()
	}
	return ""
}

func countSessions(projectDir string) (int, error) {
	entries, err := os.ReadDir(projectDir)
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			n++
		}
	}
	return n, err
}

// mergeInto moves the sessions of instance src into instance dst: each
// project directory's entries, keeping dst's on a name clash, then the
// prompt history (src's lines first: they are older), then removes src the
// way --gc does.
func mergeInto(src, dst string) (conflicts []string, err error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(from, to); err != nil {
				return conflicts, err
			}
			continue
		}
		inner, err := os.ReadDir(from)
		if err != nil {
			return conflicts, err
		}
		for _, f := range inner {
			if _, err := os.Lstat(filepath.Join(to, f.Name())); err == nil {
				conflicts = append(conflicts, filepath.Join(from, f.Name()))
				continue
			}
			if err := os.Rename(filepath.Join(from, f.Name()), filepath.Join(to, f.Name())); err != nil {
				return conflicts, err
			}
		}
	}
	if len(conflicts) > 0 {
		return conflicts, fmt.Errorf("%d files in %s have namesakes in %s; left them in place", len(conflicts), src, dst)
	}
	oldHistory, _ := instance.ReadFileNoFollow(filepath.Join(src, "history.jsonl"))
	newHistory, _ := instance.ReadFileNoFollow(filepath.Join(dst, "history.jsonl"))
	if len(oldHistory) > 0 {
		if len(newHistory) > 0 && oldHistory[len(oldHistory)-1] != '\n' {
			oldHistory = append(oldHistory, '\n')
		}
		if err := instance.WriteFileAtomic(filepath.Join(dst, "history.jsonl"), append(oldHistory, newHistory...), 0o600); err != nil {
			return nil, err
		}
	}
	return nil, discard(src)
}

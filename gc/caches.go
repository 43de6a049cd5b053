package gc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/untrusted"
)

// CachesEvent is what EmptyCaches did with one project's caches: Dir
// removed (Bytes freed), or kept while a session of its project runs.
type CachesEvent struct {
	Dir   string
	Bytes int64
	Kept  bool
}

// EmptyCaches removes every project's tool caches (--gc --caches), those
// of instances gone already included, but a running session's: its
// project's lock is held while they go, so no session starts on half a
// cache. Each is renamed out of the way first, as instances are.
func EmptyCaches(stateDir string, dryRun bool, report func(CachesEvent), skip func(Skipped)) (Summary, error) {
	dir := filepath.Join(stateDir, instance.CacheRecords)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Summary{}, nil
	}
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		trash := strings.HasPrefix(e.Name(), trashPrefix) && e.Type().IsDir()
		if !trash && (!e.IsDir() || !instance.IsHash(e.Name())) {
			sum.Skipped++
			skip(Skipped{Dir: path, Reason: "is not a project's caches"})
			continue
		}
		bytes, _, _ := usage(path)
		kept, err := emptyCaches(stateDir, dir, e.Name(), trash, dryRun)
		switch {
		case err != nil:
			sum.Skipped++
			skip(Skipped{Dir: path, Reason: "cannot remove it: " + err.Error()})
		case kept:
			sum.Kept++
			report(CachesEvent{Dir: path, Kept: true})
		default:
			sum.Removed++
			sum.Freed += bytes
			report(CachesEvent{Dir: path, Bytes: bytes})
		}
	}
	return sum, nil
}

// emptyCaches removes the caches name in dir under their instance's lock;
// kept says a session holds it.
func emptyCaches(stateDir, dir, name string, trash, dryRun bool) (kept bool, err error) {
	if !trash {
		lock, err := instance.ProbeLock(filepath.Join(ProjectsDir(stateDir), name))
		if err != nil {
			return false, err
		}
		if lock != nil {
			defer lock.Close()
			if idle, err := instance.TryLockIdle(lock); err != nil || !idle {
				return err == nil, err
			}
		}
	}
	if dryRun {
		return false, nil
	}
	if trash {
		return false, untrusted.RemoveAll(dir, name)
	}
	return false, trashAndRemove(dir, name)
}

// Bytes is the size of what lies under dir, links not followed: a
// project's caches, for --check.
func Bytes(dir string) int64 {
	n, _, _ := usage(dir)
	return n
}

// moveCaches carries the tool caches of the instance oldHash to newHash,
// with --move; where newHash has caches of its own (--merge) the old ones
// go, as a project's caches are never mixed.
func moveCaches(stateDir, oldHash, newHash string) error {
	dir := filepath.Join(stateDir, instance.CacheRecords)
	if _, err := os.Lstat(filepath.Join(dir, oldHash)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(dir, newHash)); err == nil {
		return trashAndRemove(dir, oldHash)
	}
	return untrusted.Rename(dir, oldHash, newHash)
}

// moveRecords settles, with --move, the records kept under the instance
// of oldRoot. Those that hold of the project wherever it lies follow the
// instance: the permission rules its sessions left waiting for
// --keep-permissions (added to the new instance's, with --merge), the
// mount point that held its root (unless the new instance has its own,
// until a launch records the new one). Those that name the old place go,
// to be asked or made again at the new one: what was approved there,
// what its launches noticed, its paths' trust. Left under the old hash,
// no command read them again and nothing removed them.
func moveRecords(stateDir, oldRoot, newRoot string) error {
	oldHash, newHash := instance.Hash(oldRoot), instance.Hash(newRoot)
	if err := claudesettings.MovePending(stateDir, instance.Dir(stateDir, oldRoot), instance.Dir(stateDir, newRoot), oldRoot, newRoot); err != nil {
		return err
	}
	for _, kind := range []string{instance.MountRecords, instance.ApprovalRecords, instance.NoticeRecords, instance.TrustRecords} {
		dir := filepath.Join(stateDir, kind)
		if _, err := os.Lstat(filepath.Join(dir, oldHash)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, newHash)); kind == instance.MountRecords && errors.Is(err, fs.ErrNotExist) {
			if err := untrusted.Rename(dir, oldHash, newHash); err != nil {
				return err
			}
			continue
		}
		if err := untrusted.RemoveAll(dir, oldHash); err != nil {
			return err
		}
	}
	return nil
}

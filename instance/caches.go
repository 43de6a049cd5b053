package instance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheRecords is the directory of the projects' tool caches: one
// directory per project, named by its hash, beside the instances rather
// than in one, since the instance is visible inside as ~/.claude/projects
// and each cache only where its tool looks.
const CacheRecords = "caches"

// CachesDir is root's tool caches' directory.
func CachesDir(stateDir, root string) string {
	return filepath.Join(stateDir, CacheRecords, Hash(root))
}

// EnsureCaches creates root's caches named names, so that bwrap binds
// directories of the host's making. The sandbox never sees CachesDir
// itself, only the caches in it, so what is there is claudebox's own; an
// entry that is not a directory is refused all the same.
func EnsureCaches(stateDir, root string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	dir := CachesDir(stateDir, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		switch err := os.Mkdir(path, 0o700); {
		case err == nil:
		case !errors.Is(err, fs.ErrExist):
			return err
		default:
			if fi, err := os.Lstat(path); err != nil {
				return err
			} else if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", path)
			}
		}
	}
	return nil
}

package instance

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheRecords is the directory of the projects' tool caches: one
// directory per project, named by its hash, beside the instances rather
// than in one, since the instance is visible inside as ~/.claude/projects
// and the caches only at their own place.
const CacheRecords = "caches"

// CachesDir is root's tool caches' directory.
func CachesDir(stateDir, root string) string {
	return filepath.Join(stateDir, CacheRecords, Hash(root))
}

// EnsureCaches creates root's caches named names that are missing, so
// that each tool finds its directory. The sandbox sees CachesDir whole
// (one bind, each cache a link into it), so whatever stands at a name
// there may be the sandbox's: it is left as it is (the sandbox's own
// caches), and no host-side command follows it or is kept from starting
// by it; only CachesDir itself is the host's.
func EnsureCaches(stateDir, root string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	dir := CachesDir(stateDir, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

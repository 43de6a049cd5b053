// Package atomicfile replaces files whole: a reader (the host's claude, the
// user's editor) sees the old file or the new one, never half of either.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data: a new file in the same directory, with
// mode perm, synced, then renamed over it. It never writes through a
// symlink at path: the rename replaces the link itself, so callers that
// must keep a link refuse one first.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".claudebox-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Mode is the permission bits of the file at path, or def when there is
// none: a replaced file keeps its mode.
func Mode(path string, def os.FileMode) os.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return def
}

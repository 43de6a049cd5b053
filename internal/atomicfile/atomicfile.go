// Package atomicfile replaces files whole: a reader (the host's claude, the
// user's editor) sees the old file or the new one, never half of either.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data: a new file in the same directory, with
// mode perm, synced, then renamed over it. It never writes through a
// symlink at path: the rename replaces the link itself, so callers that
// must keep a link refuse one first.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFrom(path, perm, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom replaces path, as Write does, with what write writes. Unsynced
// (sync false), it suits a record rewritten at every launch, which a crash
// may lose: the rename still shows it whole or not at all.
func WriteFrom(path string, perm os.FileMode, sync bool, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".claudebox-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil && sync {
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

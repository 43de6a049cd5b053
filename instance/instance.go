package instance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/printable"
)

// RootFile names the file in an instance directory that records its root.
const RootFile = "project-root"

// Hash is the instance key of a project root: the first 16 hex digits of
// the SHA-256 of the path, as the bash claudebox computed it.
func Hash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// IsHash reports whether name has the form of an instance key.
func IsHash(name string) bool {
	return len(name) == 16 && strings.Trim(name, "0123456789abcdef") == ""
}

// Dir is the instance directory of root under the claudebox state dir.
func Dir(stateDir, root string) string {
	return filepath.Join(stateDir, "projects", Hash(root))
}

// ErrOtherRoot is returned when an instance directory records another root.
var ErrOtherRoot = errors.New("instance belongs to another project root")

// Ensure creates the instance directory of root with its project-root file,
// written once, atomically. An existing project-root naming a different root
// (a hash collision or a hand edit) is refused: the history in it is not
// this project's.
func Ensure(stateDir, root string) (string, error) {
	dir := Dir(stateDir, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	want := []byte(root + "\n")
	path := filepath.Join(dir, RootFile)
	got, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(got, want):
		return dir, nil
	case err == nil:
		return "", fmt.Errorf("%w: %s records \"%s\"", ErrOtherRoot, path, printable.Excerpt(string(bytes.TrimRight(got, "\n"))))
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	return dir, WriteFileAtomic(path, want, 0o600)
}

// WriteFileAtomic writes data to a temporary file beside path and renames
// it over path, so readers see the old content or the new, never a part.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteFileIfChanged writes data atomically unless path already holds it.
func WriteFileIfChanged(path string, data []byte, perm os.FileMode) error {
	if got, err := ReadFileNoFollow(path); err == nil && bytes.Equal(got, data) {
		return nil
	}
	return WriteFileAtomic(path, data, perm)
}

// ReadFileNoFollow reads a file of claudebox's own state, which the sandbox
// can write to: a symlink it left there is not followed to a host file.
func ReadFileNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

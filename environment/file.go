package environment

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// File is a file of variables for the sandbox, as the bash claudebox
// read them: the user's ~/.claudebox/env and a project's .claudebox.env.
// Each line is NAME, to pass the host's value, or NAME=VALUE, to set one;
// blank lines and lines starting with # are ignored.
type File struct {
	Path    string
	Entries []Entry
	// Own marks the user's own configuration (config.toml): what it adds
	// needs no approval, and it may name an identity token.
	Own bool
	// lines says the file is one NAME=VALUE per line (ReadFile's), not
	// a config file's list.
	lines bool
}

// Entry is one line of an env file.
type Entry struct {
	Name  string
	Value string
	Set   bool // NAME=VALUE; otherwise the host's value passes
}

// ProjectFile names a project's env file, in its checkout.
const ProjectFile = ".claudebox.env"

// maxFileSize is the most of an env file claudebox reads.
const maxFileSize = 1 << 20

// ReadFile reads an env file; one that does not exist has no entries,
// and neither has the placeholder a running session keeps in its place.
// A project's file is one the sandbox can write: it is read as a regular
// file only, opened non-blocking (a FIFO would hang every launch), of at
// most 1 MiB. Unless follow is set, a symlink is refused (ELOOP): a
// repository's file could link to a secret, which an error would then
// quote.
func ReadFile(path string, follow bool) (File, error) {
	f := File{Path: path, lines: true}
	if instance.IsPlaceholder(path) {
		return f, nil
	}
	real := path
	if follow {
		var err error
		if real, err = filepath.EvalSymlinks(path); err != nil {
			real = path
		}
	}
	b, err := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), maxFileSize)
	// A launch of this project beside may have made its stand-in since the
	// look above (a socket of mode 000, which refuses the open).
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err != nil && instance.IsPlaceholder(path) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxFileSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		e, ok := ParseEntry(strings.TrimPrefix(line, "export "))
		if !ok {
			return f, fmt.Errorf("%s:%d: \"%s\" is not NAME or NAME=VALUE", path, n, printable.Excerpt(line))
		}
		f.Entries = append(f.Entries, e)
	}
	return f, sc.Err()
}

// ParseEntry reads NAME or NAME=VALUE.
func ParseEntry(s string) (Entry, bool) {
	name, value, isSet := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	return Entry{Name: name, Value: value, Set: isSet}, ValidName(name)
}

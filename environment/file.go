package environment

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
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

// ReadFile reads an env file; one that does not exist has no entries,
// and neither has the placeholder a running session keeps in its place.
// Unless follow is set, a symlink is refused (ELOOP): a repository's file
// could link to a secret, which an error would then quote.
func ReadFile(path string, follow bool) (File, error) {
	f := File{Path: path, lines: true}
	if instance.IsPlaceholder(path) {
		return f, nil
	}
	flags := os.O_RDONLY
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	file, err := os.OpenFile(path, flags, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
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

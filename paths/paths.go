// Package paths holds the path helpers every other package uses: whether
// a path lies within a directory, a leading ~ expanded, whether a path
// exists.
package paths

import (
	"os"
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or below it.
func Within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// UnderAny reports whether path is one of dirs or below one.
func UnderAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if Within(path, d) {
			return true
		}
	}
	return false
}

// ExpandHome turns a leading ~ or ~/ of p into home.
func ExpandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// Exists reports whether path names something, following symlinks.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Package testfs lays out files for tests.
package testfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates path (and its directories) holding content.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tree makes the named files (or, ending in /, directories) under root;
// "name -> target" makes a symlink.
func Tree(t testing.TB, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		name, target, isLink := strings.Cut(p, " -> ")
		full := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case isLink:
			err = os.Symlink(target, full)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(full, 0o755)
		default:
			err = os.WriteFile(full, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

package toolchain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes the named files (or, ending in /, directories) under root;
// "name -> target" makes a symlink.
func tree(t *testing.T, root string, paths ...string) {
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

// write creates path (and its directories) holding content.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

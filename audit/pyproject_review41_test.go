package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanPyprojectsBounded: the exit parses a pyproject.toml the
// session wrote outside git only up to 64 KiB, and 256 KiB of them in
// all; one larger, or past that, is taken for one that configures tools
// unparsed (1 MiB of a table's dotted name took a TOML parser seconds,
// and two dozen held the exit for minutes). Five of 60 KiB that only
// describe their package: the four parsed first are kept.
func TestScanPyprojectsBounded(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	write := func(rel, text string) {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("deep/pyproject.toml", "["+strings.Repeat("a.", 520000)+"a]\n")
	described := "[project]\nname = \"p\"\ndescription = \"" + strings.Repeat("x", 60<<10) + "\"\n"
	for i := range 5 {
		write(fmt.Sprintf("p%d/pyproject.toml", i), described)
	}
	r := Scan(root, since, nil, start, nil)
	var deep, packages int
	for _, f := range r.Found {
		switch {
		case f == filepath.Join(root, "deep/pyproject.toml"):
			deep++
		case strings.HasSuffix(f, "/pyproject.toml"):
			packages++
		default:
			t.Errorf("found %s", f)
		}
	}
	if deep != 1 || packages != 1 {
		t.Errorf("found the 1 MiB pyproject.toml %d times and %d of the five of 60 KiB; want 1 and 1 (the one past 256 KiB)", deep, packages)
	}
}

package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBytecodeOfHiddenSource: Python's bytecode of a source left out for
// its credential is left out with it, in __pycache__ and beside it
// (Python 2's), and so is bytecode whose source is gone (Python ignores
// it); a kept source's bytecode stays, and so does a package's, whose
// files are judged by their names alone.
func TestBytecodeOfHiddenSource(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"skill/config.py":                              "API_KEY = \"hunter2\"\n",
		"skill/__pycache__/config.cpython-311.pyc":     "\xa7\r\r\n\x00hunter2",
		"skill/query.py":                               "import config\n",
		"skill/__pycache__/query.cpython-311.pyc":      "\xa7\r\r\n\x00config",
		"skill/__pycache__/gone.cpython-311.pyc":       "\xa7\r\r\n\x00hunter2",
		"skill/old.py":                                 "PASSWORD = \"hunter2\"\n",
		"skill/old.pyc":                                "\x03\xf3\r\n\x00hunter2",
		"skill/node_modules/pkg/lib/__pycache__/x.pyc": "\xa7\r\r\n\x00",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, files, whole := gitDirs(filepath.Join(dir, "skill"))
	slices.Sort(files)
	want := []string{"__pycache__/config.cpython-311.pyc", "__pycache__/gone.cpython-311.pyc", "config.py", "old.py", "old.pyc"}
	for i, name := range want {
		want[i] = filepath.Join(dir, "skill", name)
	}
	if !whole || !slices.Equal(files, want) {
		t.Errorf("gitDirs leaves out %v (whole %v), want %v", files, whole, want)
	}
}

// TestBytecodeOfHiddenSourceAboveTheWalk: a walk that begins at a
// __pycache__ (a PATH directory's, a toolchain's top's) judges the
// sources above it: the bytecode of one with a credential is left out,
// of one with none shown.
func TestBytecodeOfHiddenSourceAboveTheWalk(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	for rel, content := range map[string]string{
		"bin/settings.py":                          "DB_PASSWORD = \"hunter2\"\n",
		"bin/__pycache__/settings.cpython-311.pyc": "\xa7\r\r\n\x00hunter2",
		"bin/util.py":                              "NAME = 'util'\n",
		"bin/__pycache__/util.cpython-311.pyc":     "\xa7\r\r\n\x00util",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range programSubdirsHidden(filepath.Join(dir, "bin")) {
		got = append(got, strings.TrimPrefix(e.Path, dir+"/"))
	}
	if want := []string{"bin/__pycache__/settings.cpython-311.pyc"}; !slices.Equal(got, want) {
		t.Errorf("programSubdirsHidden = %q, want %q", got, want)
	}
}

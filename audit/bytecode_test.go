package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPythonBytecode: a .pyc the session wrote or changed, cached
// beside its source or alone, and an extension module, are findings; one
// there before it, those of a virtualenv's site-packages (judged with
// their package, not found one by one), and a C
// library (libfoo.so) or a Rust crate's (a name no import spells) are
// not.
func TestScanPythonBytecode(t *testing.T) {
	root := t.TempDir()
	kept := filepath.Join("src", "__pycache__", "kept.cpython-311.pyc")
	changed := filepath.Join("src", "__pycache__", "util.cpython-311.pyc")
	write(t, filepath.Join(root, kept))
	write(t, filepath.Join(root, changed))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	must(t, os.WriteFile(filepath.Join(root, changed), []byte("forged"), 0o644))
	lone, ext, tagged := "json.pyc", "typing.so", filepath.Join("pkg", "_native.cpython-311-x86_64-linux-gnu.so")
	made := filepath.Join("pkg", "__pycache__", "mod.cpython-311.opt-1.pyc")
	for _, p := range []string{lone, made, filepath.Join(".venv", "lib", "python3.11", "site-packages", "__pycache__", "six.cpython-311.pyc"), filepath.Join("pkg", "mod.py"), ext, tagged, filepath.Join("build", "libfoo.so"), filepath.Join("target", "debug", "deps", "serde_derive-1a2b.so")} {
		write(t, filepath.Join(root, p))
	}

	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	want := []string{changed, lone, made, ext, tagged}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

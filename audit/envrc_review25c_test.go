package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEnvrcPathDirsIfSet: export PATH="$PWD/bin${PATH:+:$PATH}", the
// careful way to put bin first, split at its colon and gave "+" and a word
// unspelled, no directory.
func TestEnvrcPathDirsIfSet(t *testing.T) {
	root := t.TempDir()
	for _, envrc := range []string{
		"export PATH=\"$PWD/bin${PATH:+:$PATH}\"\n",
		"export PATH=\"$PWD/bin${PATH:+:${PATH}}\"\n",
		"PATH=\"${PATH:+$PATH:}$PWD/bin\"\n",
	} {
		if dirs, unspelled := envrcPathDirs(envrc, root); !slices.Equal(dirs, []string{"bin"}) || unspelled {
			t.Errorf("envrcPathDirs(%q): %q, unspelled %v; want [bin]", envrc, dirs, unspelled)
		}
	}
}

// TestEnvrcPathUnspelledPrograms: an .envrc that puts a directory the
// audit cannot spell on PATH may put any directory below it there: each
// program the session made or changed below it is found, git tracking it
// or not; a file no one can execute is no program.
func TestEnvrcPathUnspelledPrograms(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("PATH_add \"$(git rev-parse --show-toplevel)/bin\"\n"), 0o644))
	write(t, filepath.Join(root, "bin", "git"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"bin/git", "deep/er/ls", "src/notes.txt"} {
		write(t, filepath.Join(root, p))
	}
	must(t, os.Chmod(filepath.Join(root, "bin", "git"), 0o755))
	must(t, os.Chmod(filepath.Join(root, "deep", "er", "ls"), 0o755))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"bin/git", "deep/er/ls"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

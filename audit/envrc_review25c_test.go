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

// TestEnvrcPathLayoutsAndSourced: direnv's layouts put directories on
// PATH (layout php: vendor/bin), and what an .envrc sources sets PATH as
// its own lines do (PATH_add bin in .envrc.local, PATH= in a dotenv's
// file): each program the session made there is found, git tracking it
// or not; a layout the audit does not know puts one it cannot spell.
func TestEnvrcPathLayoutsAndSourced(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("layout php\nsource_env_if_exists .envrc.local\ndotenv conf/dev.env\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, ".envrc.local"), []byte("PATH_add bin\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "conf"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "conf", "dev.env"), []byte("PATH=tools:/usr/bin\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"vendor/bin/git", "bin/git", "tools/ls", "conf/tools/ls", "src/main.php"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"bin/git", "conf/tools/ls", "tools/ls", "vendor/bin/git"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	for _, envrc := range []string{"export VIRTUAL_ENV=$PWD/.venv\nlayout python3\n", "layout anaconda ./env\n", "layout pipenv\n"} {
		if _, unspelled := envrcPathDirs(envrc, root); !unspelled {
			t.Errorf("envrcPathDirs(%q): taken for spelled", envrc)
		}
	}
	if _, unspelled := envrcPathDirs("layout python3\n", root); unspelled {
		t.Error("layout python3 in .direnv: taken for unspelled")
	}
}

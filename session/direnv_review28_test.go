package session

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/undo"
)

// TestDirenvAskAgain: the allow files naming an .envrc the session wrote
// below, by its path or another to it, go; another's stays; a
// whitelisted one is named so.
func TestDirenvAskAgain(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("DIRENV_CONFIG", "")
	proj, other := filepath.Join(home, "proj"), filepath.Join(home, "other")
	for _, dir := range []string{proj, other} {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, ".envrc"), []byte("source_env \"$X\"\n"), 0o644)
	}
	os.Symlink(home, filepath.Join(home, "link"))
	allow := filepath.Join(home, ".local", "share", "direnv", "allow")
	os.MkdirAll(allow, 0o755)
	allowed := func(path string) string {
		b, _ := os.ReadFile(path)
		name := filepath.Join(allow, fmt.Sprintf("%x", sha256.Sum256(append([]byte(path+"\n"), b...))))
		os.WriteFile(name, []byte(path+"\n"), 0o644)
		return name
	}
	byPath := allowed(filepath.Join(proj, ".envrc"))
	byLink := allowed(filepath.Join(home, "link", "proj", ".envrc"))
	others := allowed(filepath.Join(other, ".envrc"))
	envrc := filepath.Join(proj, ".envrc")
	reports := map[string]audit.Report{proj: {SourcesUnspelled: []string{envrc}}, other: {SourcesUnspelled: []string{filepath.Join(other, ".envrc")}}}
	records := map[string]undo.Changes{proj: {Paths: []undo.PathChange{{Path: "config/dev.env", Change: "changed"}}}, other: {}}
	envrcs := envrcsWrittenBelow(reports, records)
	if !slices.Equal(envrcs, []string{envrc}) {
		t.Fatalf("written below: %q, want %q", envrcs, envrc)
	}
	// A session that ended before its start's snapshot was written.
	records[other] = undo.Changes{Incomplete: []string{undo.ErrNoStartSnapshot.Error()}}
	if got := envrcsWrittenBelow(reports, records); len(got) != 2 {
		t.Errorf("written below, one record not whole: %q", got)
	}
	direnvAskAgain(io.Discard, envrcs, []string{proj})
	for _, gone := range []string{byPath, byLink} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("the allow file %s stayed", gone)
		}
	}
	if _, err := os.Lstat(others); err != nil {
		t.Errorf("another .envrc's allow file went: %v", err)
	}
	os.MkdirAll(filepath.Join(home, ".config", "direnv"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "direnv", "direnv.toml"), []byte("[whitelist]\nprefix = [ \"~/proj\" ]\n"), 0o644)
	if w := readDirenvWhitelist(home); !w.runs(envrc) {
		t.Errorf("whitelist %+v lacks %s", w, envrc)
	}
}

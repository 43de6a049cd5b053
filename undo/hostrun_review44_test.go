package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunTaskFilesThemselves: a task file whose words the exit reads
// for the paths it runs (taskNames) is itself one the host runs where git
// ignores it: nix-shell evaluates a shell.nix and runs its shellHook,
// vagrant a Vagrantfile's Ruby, tilt a Tiltfile, honcho a Procfile's
// commands, snakemake a Snakefile, composer install a composer.json's
// scripts, deno task a deno.json's. A file that only shares a name's
// start is not.
func TestHostRunTaskFilesThemselves(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]bool{"notes/shell.nix.txt": false, "docs/Procfile.md": false, "out/default.nix.bak": false}
	for _, name := range taskNames {
		files["dev/"+name] = true
	}
	for rel := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel, want := range files {
		if got := now.hostRun(checkout, rel); got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestHostRunRequirementsFiles: pip's requirement and constraint files,
// by the names they are given, are ones the host runs where git ignores
// them: pip install -r builds what they name; a text file that only
// mentions them is not.
func TestHostRunRequirementsFiles(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]bool{
		"requirements.txt": true, "requirements-dev.txt": true, "dev-requirements.txt": true, "requirements/base.txt": true,
		"constraints.txt": true, "Requirements.TXT": true,
		"notes/requirements.md": false, "docs/requirements-notes.rst": false, "logs/run.txt": false,
	}
	for rel := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("-e /elsewhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel, want := range files {
		if got := now.hostRun(checkout, rel); got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

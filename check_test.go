package main

import (
	"os"
	"path/filepath"
	"testing"
)

// installKind tells an npm package, Anthropic's native installer and Nix
// apart by where claude's path leads.
func TestInstallKind(t *testing.T) {
	home := t.TempDir()
	native := filepath.Join(home, ".local", "share", "claude", "versions", "2.1.330")
	npm := filepath.Join(home, "npm", "lib", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
	for _, f := range []string{native, npm} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, nil, 0o755)
	}
	link := func(name, target string) string {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for path, want := range map[string]string{
		link(".local/bin/claude", native):       "native installer",
		link("npm/bin/claude", npm):             "npm package",
		"/nix/store/abc-claude-code/bin/claude": "Nix",
		"/opt/claude":                           "installed as /opt/claude",
	} {
		if got := installKind(path, home); got != want {
			t.Errorf("installKind(%s) = %q, want %q", path, got, want)
		}
	}
}

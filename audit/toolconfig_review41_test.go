package audit

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPnpmWorkspaceSettings: a pnpm-workspace.yaml the session made,
// untracked, at the top or in a package (pnpm looks for it from where it
// runs up), is found: pnpm reads its settings there, not from .npmrc
// (nodeOptions, whose --import of a data: URL runs code in every script
// pnpm starts, scriptShell, pnpmfile, the configDependencies whose
// pnpmfile it loads), as npm reads an .npmrc's, which the registry names.
func TestScanPnpmWorkspaceSettings(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	want := []string{filepath.Join(root, "packages", "app", "pnpm-workspace.yaml"), filepath.Join(root, "pnpm-workspace.yaml")}
	for _, p := range want {
		write(t, p)
	}
	write(t, filepath.Join(root, "pnpm-workspace.yaml.orig"))
	write(t, filepath.Join(root, "docs", "pnpm-workspace.md"))
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

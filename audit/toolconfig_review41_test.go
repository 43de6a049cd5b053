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

// TestScanJujutsuConfig: what Jujutsu (jj) reads its repository's and
// workspace's configuration by, in a .jj git ignores whole (a colocated
// repository's .jj/.gitignore), is found, made or changed: the
// repository's config.toml, which jj before 0.38 obeys where it stands and
// later ones move, unasked, into the user's own configuration where no
// config-id names one yet (its signing program runs as jj snapshots the
// working copy, at every jj status), the config-id that names which of
// the user's configurations jj takes, the workspace's, the store's
// git_target (the git repository jj fetches and pushes with), and a
// workspace's repo file, which names the repository it shares; what jj
// keeps there as data (its operations, its working copy's state) is not,
// nor a config.toml elsewhere.
func TestScanJujutsuConfig(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	// The repository's config.toml was there at the start: rewritten in
	// place, its directory's status stays as it was.
	for _, p := range []string{".jj/repo/op_store/x", ".jj/repo/config.toml", ".jj/working_copy/tree_state", "second/.jj/working_copy/checkout"} {
		write(t, filepath.Join(root, p))
	}
	start := Take(root, since, nil, nil)
	want := []string{
		filepath.Join(root, ".jj", "repo", "config-id"), filepath.Join(root, ".jj", "repo", "config.toml"),
		filepath.Join(root, ".jj", "repo", "store", "git_target"), filepath.Join(root, ".jj", "workspace-config-id"),
		filepath.Join(root, ".jj", "workspace-config.toml"), filepath.Join(root, "second", ".jj", "repo"),
	}
	for _, p := range want {
		write(t, p)
	}
	for _, p := range []string{".jj/repo/op_store/y", ".jj/repo/op_heads/heads/z", ".jj/working_copy/tree_state", "config/config.toml", "repo/config.toml"} {
		write(t, filepath.Join(root, p))
	}
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

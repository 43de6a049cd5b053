package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview35rGlobalHookRunsIgnoredScript: the exit moves aside an
// ignored script a repository's hook runs by its path, but asked only the
// repository's hooks. A hook of the user's global core.hooksPath (one
// folder of hooks for every repository, ~/.gitconfig's) that runs a
// project's local script when there is one (sh tools/pre-commit.local, as
// such hooks hand over to each repository) ran the one the session wrote
// where git ignores it: git status showed nothing, and the host's git
// commit ran it. Host-side proof: the host's git commit runs nothing
// planted.
func TestReplayReview35rGlobalHookRunsIgnoredScript(t *testing.T) {
	h := harness.NewHost(t)
	hooks := filepath.Join(h.Home, ".config", "git", "hooks")
	h.Write(filepath.Join(hooks, "pre-commit"), "#!/bin/sh\nif [ -f tools/pre-commit.local ]; then sh tools/pre-commit.local; fi\n")
	harness.Must(t, os.Chmod(filepath.Join(hooks, "pre-commit"), 0o755))
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[core]\n\thooksPath = ~/.config/git/hooks\n")
	proj := filepath.Join(h.Home, "code", "globalhook")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "*.local\n")
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-verify", "-m", "ignore")
	out := harness.PlantUnseen(t, h, proj, "ignored script a global hook runs", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/pre-commit.local`)
	h.RunsNothingPlanted(out, proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x")
}

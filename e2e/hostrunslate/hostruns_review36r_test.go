package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview36rGlobalHookAfterInclude: the exit asks the hooks of
// the user's global core.hooksPath whether they run an ignored script the
// session wrote, but took for git's the last value it read, an included
// file's read after the whole file that includes it. Git reads an
// included file where its include stands: a ~/.gitconfig that includes
// a shared base first and sets its own core.hooksPath after it (a
// dotfiles layout), or sets it before an includeIf for another folder
// (work repositories), has git run the hooks of ~/.gitconfig's own
// folder, which the exit did not read, and the host's git commit ran the
// session's tools/pre-commit.local. Host-side proof: the host's git
// commit runs nothing planted.
func TestReplayReview36rGlobalHookAfterInclude(t *testing.T) {
	for name, gitconfig := range map[string]string{
		"include before": "[include]\n\tpath = ~/.gitconfig.d/base\n[core]\n\thooksPath = ~/.config/git/hooks\n",
		"includeIf of another folder": "[core]\n\thooksPath = ~/.config/git/hooks\n" +
			"[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.gitconfig.d/base\n",
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			hooks := filepath.Join(h.Home, ".config", "git", "hooks")
			h.Write(filepath.Join(hooks, "pre-commit"), "#!/bin/sh\nif [ -f tools/pre-commit.local ]; then sh tools/pre-commit.local; fi\n")
			harness.Must(t, os.Chmod(filepath.Join(hooks, "pre-commit"), 0o755))
			h.Write(filepath.Join(h.Home, ".gitconfig.d", "base"), "[core]\n\thooksPath = ~/.work-hooks\n")
			h.Write(filepath.Join(h.Home, ".gitconfig"), gitconfig)
			proj := filepath.Join(h.Home, "code", "globalhook")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "*.local\n")
			h.Run(proj, nil, "git", "add", ".gitignore")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-verify", "-m", "ignore")
			out := harness.PlantUnseen(t, h, proj, "ignored script a global hook runs", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/pre-commit.local`)
			h.RunsNothingPlanted(out, proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x")
		})
	}
}

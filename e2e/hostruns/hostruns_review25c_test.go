package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25bClaudeConfigDirMadeInProject: CLAUDE_CONFIG_DIR
// names a directory in the project (a dotfiles repository's claude/)
// that does not exist yet. The sandbox makes it and writes settings.json
// with a hook, which the host's claude, started with that variable,
// runs. Host-side proof: no settings.json the session wrote stays there.
func TestReplayReview25bClaudeConfigDirMadeInProject(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(proj)
	config := filepath.Join(proj, "claude")
	out, _ := h.Command(proj, []string{"CLAUDE_CONFIG_DIR=" + config}, "claudebox", "--shell", "-c",
		`mkdir -p claude && echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/PWNED"}]}]}}' > claude/settings.json && echo WROTE`).CombinedOutput()
	if _, err := os.Lstat(filepath.Join(config, "settings.json")); err == nil {
		t.Errorf("the session's settings.json stays where the host's claude reads it:\n%s", out)
	}
	// Once it exists it stays hidden, and the launch works.
	h.Write(filepath.Join(config, ".credentials.json"), "sk-ant-oat01-the-login\n")
	out, err := h.Command(proj, []string{"CLAUDE_CONFIG_DIR=" + config}, "claudebox", "--shell", "-c", `cat claude/.credentials.json; echo LAUNCHED`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "LAUNCHED") || strings.Contains(string(out), "the-login") {
		t.Errorf("the launch beside an existing one: %v\n%s", err, out)
	}
}

// TestReplayReview25cEnvrcPathIfSet: an .envrc's export
// PATH="$PWD/bin${PATH:+:$PATH}" puts bin first on the PATH of the host's
// shell there. The exit audit split it at its colon and found no
// directory, only a word it could not spell, under which only files git
// ignores count: the session rewrites the tracked bin/git. Host-side
// proof: the host's git status under direnv, the .envrc allowed before,
// runs nothing the session wrote.
func TestReplayReview25cEnvrcPathIfSet(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "export PATH=\"$PWD/bin${PATH:+:$PATH}\"\n")
	h.Write(filepath.Join(proj, "bin", "git"), "#!/bin/sh\nexec /usr/bin/git \"$@\"\n")
	if err := os.Chmod(filepath.Join(proj, "bin", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "bin/git", `printf '#!/bin/sh\ntouch `+marker+`\n' > bin/git`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", "git status")
}

// TestReplayReview25cEnvrcSourcedPathAndLayout: what an .envrc sources
// sets PATH as its own lines do (source_env_if_exists .envrc.local
// holding PATH_add bin), and direnv's layout php puts vendor/bin there.
// The exit audit read neither: the session rewrites the tracked bin/git
// and writes vendor/bin/ls. Host-side proof: the host's git status and ls
// under direnv, the .envrc allowed before, run nothing the session wrote.
func TestReplayReview25cEnvrcSourcedPathAndLayout(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env_if_exists .envrc.local\nlayout php\n")
	h.Write(filepath.Join(proj, ".envrc.local"), "PATH_add bin\n")
	h.Write(filepath.Join(proj, "bin", "git"), "#!/bin/sh\nexec /usr/bin/git \"$@\"\n")
	if err := os.Chmod(filepath.Join(proj, "bin", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the programs", `mkdir -p vendor/bin && for p in bin/git vendor/bin/ls; do printf '#!/bin/sh\ntouch `+marker+`\n' > $p && chmod +x $p; done`)
	for _, command := range []string{"git status", "ls"} {
		h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", command)
	}
}

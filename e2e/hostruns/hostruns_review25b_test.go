package hostruns

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25bEnvrcPathCommandPwd: an .envrc's
// export PATH="$(pwd)/bin:$PATH", the common spelling, puts the project's
// bin first on the PATH of the host's shell there, as PATH_add bin does.
// The exit audit split its words at the parentheses and found no
// directory in it, so the session's new bin/git (git status shows it,
// untracked) stayed, and the host's git status under direnv ran it.
// Host-side proof: the host's git status under direnv, the .envrc allowed
// before, runs nothing the session wrote.
func TestReplayReview25bEnvrcPathCommandPwd(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "export PATH=\"$(pwd)/bin:$PATH\"\n")
	h.Write(filepath.Join(proj, "bin", "fmt.sh"), "#!/bin/sh\nexit 0\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the program", `printf '#!/bin/sh\ntouch `+marker+`\n' > bin/git && chmod +x bin/git`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", "git status")
}

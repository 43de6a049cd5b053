package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27MiseEnvSources: the project's mise.toml, the user's
// own and trusted, sources scripts/env.sh (tracked) into the
// environment, puts bin on PATH, loads the ignored config/dev.conf, and its
// .tool-versions runs a tool from a directory of the project
// (path:./tools). mise's activate and mise exec run them at every prompt
// and command, outside direnv, and the exit audit read none of them:
// the session appends to scripts/env.sh, rewrites the tracked bin/git
// and tools/bin/node, and writes a git configuration into config/dev.conf
// (core.fsmonitor, which git status runs). Host-side proof: the host's
// git status and node under mise exec run nothing the session wrote.
func TestReplayReview27MiseEnvSources(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "config/dev.conf\n")
	h.Write(filepath.Join(proj, "mise.toml"), "[env]\n_.source = \"./scripts/env.sh\"\n_.path = [\"./bin\"]\n_.file = \"config/dev.conf\"\n")
	h.Write(filepath.Join(proj, ".tool-versions"), "node path:./tools\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export APP_ENV=dev\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	writeProgram(t, h, filepath.Join(proj, "tools", "bin", "node"), "exit 0")
	commitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet")
	marker := h.Marker()
	out := h.InsideStderr(proj, `printf 'touch `+marker+`.source\n' >> scripts/env.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.path\nexec /usr/bin/git "$@"\n' > bin/git &&
		printf '#!/bin/sh\ntouch `+marker+`.tool\n' > tools/bin/node &&
		mkdir -p config && printf 'GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=core.fsmonitor\nGIT_CONFIG_VALUE_0="touch `+marker+`.file"\n' > config/dev.conf && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the files could not be planted:\n%s", out)
	}
	for _, command := range []string{"git status", "node"} {
		ran, _ := h.Command(proj, nil, "mise", "exec", "--", "sh", "-c", command).CombinedOutput()
		for _, what := range []string{"source", "path", "tool", "file"} {
			if _, err := os.Stat(marker + "." + what); err == nil {
				t.Errorf("the host's %s under mise ran what the session wrote (%s):\n%s\n%s", command, what, out, ran)
				os.Remove(marker + "." + what)
			}
		}
	}
}

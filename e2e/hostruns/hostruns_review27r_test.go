package hostruns

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27rMiseDottedEnv: the project's mise.toml, the user's
// own and trusted, puts bin on PATH with TOML's dotted key at its top
// (env._.path = ["./bin"], which mise reads as [env]'s _.path) and sources
// scripts/env.sh from a quoted table (["env"] in .mise.toml). The exit
// audit read only [env]'s own spelling: the session rewrites the tracked
// bin/git and appends to scripts/env.sh. Host-side proof: the host's git
// status under mise exec runs nothing the session wrote.
func TestReplayReview27rMiseDottedEnv(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "mise.toml"), "env._.path = [\"./bin\"]\n")
	h.Write(filepath.Join(proj, ".mise.toml"), "[ \"env\" ]\n_ . source = \"./scripts/env.sh\"\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export APP_ENV=dev\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	harness.CommitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet", "mise.toml")
	h.Run(proj, nil, "mise", "trust", "--quiet", ".mise.toml")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf 'touch `+marker+`.source\n' >> scripts/env.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.path\nexec /usr/bin/git "$@"\n' > bin/git`)
	ran, _ := h.Command(proj, nil, "mise", "exec", "--", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"source", "path"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under mise ran what the session wrote (%s):\n%s\n%s", what, out, ran)
			os.Remove(marker + "." + what)
		}
	}
}

// TestReplayReview27rMiseVarsAndOldSpellings: mise.local.toml, the user's
// own and trusted, puts tools on PATH with env_path (the spelling before
// env._.path, which mise still obeys) and sources scripts/vars.sh from
// [vars] (whose _.source runs the script as [env]'s does). The exit audit
// took both for plain values: the session rewrites the tracked
// tools/zz and appends to scripts/vars.sh. Host-side proof: zz under mise
// exec runs nothing the session wrote.
func TestReplayReview27rMiseVarsAndOldSpellings(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "mise.local.toml"), "env_path = [\"./tools\"]\n[vars]\n_.source = \"./scripts/vars.sh\"\n")
	h.Write(filepath.Join(proj, "scripts", "vars.sh"), "APP=1\n")
	writeProgram(t, h, filepath.Join(proj, "tools", "zz"), "exit 0")
	harness.CommitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet", "mise.local.toml")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf 'touch `+marker+`.source\n' >> scripts/vars.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.path\n' > tools/zz`)
	ran, _ := h.Command(proj, nil, "mise", "exec", "--", "sh", "-c", "zz").CombinedOutput()
	for _, what := range []string{"source", "path"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("zz under mise ran what the session wrote (%s):\n%s\n%s", what, out, ran)
			os.Remove(marker + "." + what)
		}
	}
}

// TestReplayReview27rMiseSettingsEnvFile: the project's mise.toml, the
// user's own and trusted, has mise load config/dev.conf (tracked) as a
// dotenv through [settings]' env_file. The exit audit took it for a
// setting: the session appends a git configuration to it
// (core.fsmonitor, which git status runs). Host-side proof: the host's
// git status under mise exec runs nothing the session wrote.
func TestReplayReview27rMiseSettingsEnvFile(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "mise.toml"), "[settings]\nenv_file = \"config/dev.conf\"\n")
	h.Write(filepath.Join(proj, "config", "dev.conf"), "APP_ENV=dev\n")
	harness.CommitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet", "mise.toml")
	marker := h.Marker()
	out := h.Plant(proj, "the file", `printf 'GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=core.fsmonitor\nGIT_CONFIG_VALUE_0="touch `+marker+`"\n' >> config/dev.conf`)
	h.RunsNothingPlanted(out, proj, nil, "mise", "exec", "--", "sh", "-c", "git status")
}

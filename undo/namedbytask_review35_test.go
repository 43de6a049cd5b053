package undo

import (
	"os"
	"path/filepath"
	"testing"
)

// An ignored file a git hook runs by its path (in .git/hooks, .githooks,
// .husky or the core.hooksPath directory .git/config names), or the host's
// agents' settings, VS Code's tasks, a dev container or a hook manager's
// configuration names, from the directory they run in, is one the host
// runs (sh tools/check at the host's git commit, claude -p); a .sample
// hook git never runs, and a hooks path outside the checkout, name
// nothing.
func TestNamedByHooksAndRunners(t *testing.T) {
	checkout := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(checkout, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, path), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/hooks/pre-commit", "#!/bin/sh\nsh tools/check\n")
	write(".git/hooks/pre-push.sample", "#!/bin/sh\nsh sample/run\n")
	write(".git/config", "[core]\n\thooksPath = scripts/git-hooks\n")
	write("scripts/git-hooks/commit-msg", "sh msg/check\n")
	write(".husky/pre-push", "sh push/check\n")
	write("web/.claude/settings.json", `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sh agent/start"}]}]}}`)
	write("web/.mcp.json", `{"mcpServers":{"x":{"command":"sh","args":["mcp/serve"]}}}`)
	write("app/.vscode/tasks.json", `{"tasks":[{"command":"sh gen/open","runOptions":{"runOn":"folderOpen"}}]}`)
	write("app/.devcontainer/devcontainer.json", `{"initializeCommand":"sh init/host"}`)
	write("lefthook.yml", "pre-commit:\n  commands:\n    x:\n      run: sh lh/run\n")
	write("ed/.helix/languages.toml", "[language-server.x]\ncommand = \"sh\"\nargs = [\"lsp/serve\"]\n")
	write("ed/.nvim.lua", "vim.fn.system({'sh', 'nv/start'})\n")
	write("sub/composer.json", `{"scripts":{"post-install-cmd":"sh post/install"}}`)
	// A repository below the top has hooks of its own, run from its top.
	write("lib/.git/hooks/post-checkout", "sh co/run\n")
	now := tree{}
	for path, want := range map[string]bool{
		"tools/check": true, "msg/check": true, "push/check": true,
		"web/agent/start": true, "web/mcp/serve": true, "app/gen/open": true, "app/init/host": true, "lh/run": true,
		"sub/post/install": true, "lib/co/run": true, "ed/lsp/serve": true, "ed/nv/start": true,
		"sample/run": false, "agent/start": false, "gen/open": false, "co/run": false, "other/x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
	// A hooks path outside the checkout names nothing in it.
	write(".git/config", "[core]\n\thooksPath = ../../elsewhere\n")
	if now.namedByTask(checkout, "msg/check") {
		t.Errorf("msg/check: named by a hooks path outside the checkout")
	}
}

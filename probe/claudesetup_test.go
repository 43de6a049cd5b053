package probe

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
)

// TestClaudeSetupShown: what the user's Claude Code setup names outside
// ~/.claude, and what claude's --plugin-dir names, is shown read-only at
// its place, exactly that path; what holds
// a secret, lies in one, or is the whole home is not shown, and named with
// why; a list the sandbox can write (settings.json linked into the
// project) is not obeyed.
func TestClaudeSetupShown(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for _, f := range []string{
		"src/mkt/.claude-plugin/marketplace.json", "bin/hook.sh", ".local/bin/status.sh",
		".local/share/notes/server.js", ".config/gh/hosts.yml", ".aws/hook.sh", "other/secret-notes",
		"code/app/hooks/in-project.sh", "files-mkt/marketplace.json", ".claude/logs/prompts.log", ".claude/agents/a.md",
		"src/my-plugin/.claude-plugin/plugin.json", "src/zipped.zip", ".pushover_token", "bin/notify", ".local/share/notes/token",
		"prompts/review.md", "code/other/main.go",
	} {
		testfs.Write(t, filepath.Join(home, f), "x\n")
	}
	source := func(kind, path string) map[string]any {
		return map[string]any{"source": map[string]any{"source": kind, "path": path}}
	}
	writeJSON := func(path string, v any) {
		b, _ := json.Marshal(v)
		testfs.Write(t, path, string(b))
	}
	os.Chmod(filepath.Join(home, "bin", "notify"), 0o755)
	writeJSON(filepath.Join(home, ".claude", "settings.json"), map[string]any{
		"extraKnownMarketplaces": map[string]any{
			"local": source("directory", "~/src/mkt"), "config": source("directory", filepath.Join(home, ".config")),
			"all": source("directory", home), "file": source("file", "$HOME/files-mkt/marketplace.json"),
			"remote": map[string]any{"source": map[string]any{"source": "github", "repo": "a/b"}},
		},
		"statusLine": map[string]any{"type": "command", "command": "~/.local/bin/status.sh --short"},
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": "bash '" + home + "/bin/hook.sh' >> " + home + "/other/secret-notes"},
			map[string]any{"type": "command", "command": home + "/.aws/hook.sh"},
			map[string]any{"type": "command", "command": proj + "/hooks/in-project.sh"},
			map[string]any{"type": "command", "command": "cat>>'$HOME/.claude/logs/prompts.log' 2>&1"},
			// A program is shown; the file it reads its token from is not.
			map[string]any{"type": "command", "command": "~/bin/notify --token \"$(cat ~/.pushover_token)\""},
		}}}},
	})
	// settings.local.json lives in the project: the sandbox could name
	// anything there.
	testfs.Write(t, filepath.Join(proj, "planted.json"), `{"statusLine":{"command":"`+home+`/other/secret-notes"}}`)
	os.Symlink(filepath.Join(proj, "planted.json"), filepath.Join(home, ".claude", "settings.local.json"))

	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	mcp := map[string]json.RawMessage{"notes": json.RawMessage(`{"command":"node","args":["~/.local/share/notes/server.js","--port","0","--token-file","~/.local/share/notes/token"]}`)}
	claudeArgs := []ClaudeArg{
		{Flag: "--plugin-dir", Path: "~/src/my-plugin"},
		{Flag: "--plugin-dir", Path: filepath.Join(home, "src", "zipped.zip")},
		{Flag: "--plugin-dir", Path: filepath.Join(home, ".aws")},
		{Flag: "--append-system-prompt-file", Path: "~/prompts/review.md"},
		{Flag: "--add-dir", Path: filepath.Join(home, "code", "other")},
		{Flag: "--add-dir", Path: proj},
	}
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin"), nil, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), mcp, claudeArgs, nil, nil)

	// A directory is shown entry by entry, in a read-only directory of
	// the sandbox's.
	shown := map[string]string{}
	for _, m := range h.Own {
		switch {
		case m.Kind == mount.Tmpfs && slices.ContainsFunc(h.Own, func(r mount.Mount) bool { return r.Kind == mount.RemountRO && r.Dest == m.Dest }):
		case m.Kind == mount.RemountRO, !strings.HasPrefix(m.Dest, home+"/"): // the system's settings, private copies
			continue
		case m.Kind != mount.RoBind:
			t.Errorf("%s mounted %s, want read-only", m.Dest, m.Kind)
		}
		shown[strings.TrimPrefix(m.Dest, home)] = m.Why
	}
	// A script a hook or the status line runs is a private copy of what
	// the launch read.
	for _, sc := range h.Scripts {
		if sc.Content != "x\n" {
			t.Errorf("%s copied as %q, want what the launch read", sc.Path, sc.Content)
		}
		shown[strings.TrimPrefix(sc.Path, home)] = sc.What
	}
	for _, want := range []string{"/src/mkt", "/src/mkt/.claude-plugin", "/src/my-plugin/.claude-plugin", "/files-mkt/marketplace.json", "/bin/hook.sh", "/.local/bin/status.sh", "/.local/share/notes/server.js", "/src/my-plugin", "/src/zipped.zip", "/bin/notify"} {
		if shown[want] == "" {
			t.Errorf("%s not shown; shown: %q", want, shown)
		}
	}
	for _, never := range []string{"", "/.config", "/.aws/hook.sh", "/other/secret-notes", "/code/app/hooks/in-project.sh", "/other", "/.pushover_token", "/.local/share/notes/token", "/code/other"} {
		if why, ok := shown[never]; ok {
			t.Errorf("%s shown (%s)", never, why)
		}
	}
	if h.AppendPrompt == nil || h.AppendPrompt.Text != "x\n" || h.AppendPrompt.Path != filepath.Join(home, "prompts", "review.md") {
		t.Errorf("the appended prompt file: %+v, want ~/prompts/review.md as read", h.AppendPrompt)
	}
	if !strings.Contains(shown["/src/mkt"], "plugin marketplace local, named in ~/.claude/settings.json") {
		t.Errorf("the marketplace's reason: %q", shown["/src/mkt"])
	}
	if len(h.HookOutputs) != 1 || h.HookOutputs[0] != (mount.HookOutput{Path: filepath.Join(home, ".claude", "logs"), Dir: true}) {
		t.Errorf("hook outputs %+v, want ~/.claude/logs", h.HookOutputs)
	}
	if slices.Contains(h.ClaudeEntries, filepath.Join(home, ".claude", "logs")) || len(h.ClaudeDirCopies) != 1 || h.ClaudeDirCopies[0].Path != filepath.Join(home, ".claude", "agents") {
		t.Errorf("~/.claude's entries shown: %q, copied: %+v", h.ClaudeEntries, h.ClaudeDirCopies)
	}
	var unshown []string
	for _, u := range h.Unshown {
		unshown = append(unshown, strings.ReplaceAll(u.String(), home, "~"))
	}
	if slices.ContainsFunc(unshown, func(u string) bool { return strings.HasPrefix(u, "~/code/app ") }) {
		t.Errorf("the project, inside already, named as not shown: %q", unshown)
	}
	for _, want := range []string{
		"~ (plugin marketplace all, named in ~/.claude/settings.json): it holds your whole home directory",
		"~/.config (plugin marketplace config, named in ~/.claude/settings.json): it holds secrets (~/.config/gh)",
		"~/.aws/hook.sh (a Stop hook's script, named in ~/.claude/settings.json): it lies in ~/.aws, which holds secrets",
		"~/.claude/settings.local.json (your Claude Code setup): it lies where the sandbox can write, so what it names is not shown",
		"~/.aws (claude --plugin-dir): it lies in ~/.aws, which holds secrets",
		"~/code/other (claude --add-dir): a directory for Claude to work in is shown only when you bind it: --bind it (or --ro-bind it)",
		"~/.pushover_token (a Stop hook's script, named in ~/.claude/settings.json): it is no script (not executable, no #! line, no script's extension): what runs may read its token from it",
	} {
		if !slices.Contains(unshown, want) {
			t.Errorf("not named: %q\nnamed: %q", want, unshown)
		}
	}
}

// TestClaudeSetupScriptInsideNotNamed: a hook's script with a credential
// written in it is named as not shown only where claudebox would show
// it: one in the project (the sandbox's own files) or the system is
// there already, and is not named; one in ~/.claude is blanked, one
// elsewhere in the home not shown.
func TestClaudeSetupScriptInsideNotNamed(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	script := "#!/bin/sh\nSLACK_TOKEN=xoxb-0123456789-abcdefghij\n"
	for _, f := range []string{"code/app/hooks/notify.sh", "bin/notify.sh", ".claude/hooks/notify.sh"} {
		testfs.Write(t, filepath.Join(home, f), script)
	}
	var hooks []any
	for _, f := range []string{"code/app/hooks/notify.sh", "bin/notify.sh", ".claude/hooks/notify.sh"} {
		hooks = append(hooks, map[string]any{"type": "command", "command": filepath.Join(home, f)})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": hooks}}}})
	testfs.Write(t, filepath.Join(home, ".claude", "settings.json"), string(b))
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	_, _, unshown, _, blanked, _ := claudeSetup(home, home, filepath.Join(home, ".claudebox"), project, nil, nil, bind.Secrets(home), nil, nil, nil)
	var named []string
	for _, u := range unshown {
		named = append(named, strings.TrimPrefix(u.Path, home))
	}
	if !slices.Equal(named, []string{"/bin/notify.sh"}) {
		t.Errorf("named as not shown: %q, want ~/bin/notify.sh alone", named)
	}
	if len(blanked) != 1 || blanked[0].path != filepath.Join(home, ".claude", "hooks", "notify.sh") {
		t.Errorf("blanked: %q, want ~/.claude/hooks/notify.sh", blanked)
	}
}

// An installed plugin's directory is named for the user's scope and the
// project's folders only: not for another project's installation, nor
// one whose project is not a path.
func TestPluginNamesOfProject(t *testing.T) {
	list := `{"plugins": {
		"a@m": [{"scope": "user", "installPath": "/u/a"}, {"scope": "project", "installPath": "/other/a", "projectPath": "/other"}],
		"b@m": [{"scope": "local", "installPath": "/p/sub/b", "projectPath": "/p/sub"}, {"scope": "project", "installPath": "/x/b", "projectPath": 7}],
		"c@m": [{"scope": "project", "installPath": "/c", "projectPath": "/"}, {"scope": "project", "installPath": "/pp/c", "projectPath": "/pp"}]}}`
	var got []string
	for _, n := range pluginNames([]byte(list), "/p", func(p string) string { return p }) {
		got = append(got, n.path)
	}
	if want := []string{"/u/a", "/p/sub/b", "/c"}; !slices.Equal(got, want) {
		t.Errorf("pluginNames = %q, want %q", got, want)
	}
}

package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview43InCommandWordDrawn: a token drawn at random as a
// command's word after a one-letter option (a Stop hook's ~/bin/pushover
// -t … -u …), after an option named for an identifier (--client-id …)
// or as a program's argument (a ~/bin script's exec ~/bin/ping-me …) was
// given to no name that said a secret, and crossed. The attack, from
// inside: read the settings and the script. Proof: none is readable
// inside; a hook that names a commit and one that fetches an OpenPGP
// key by its long id still are.
func TestReplayReview43InCommandWordDrawn(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "done"), "#!/bin/sh\nexec ~/bin/ping-me Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "done"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(bin, "sync"), "#!/bin/sh\nexec rclone-like --client-id Zx8kQ2mPp0wL7rT3vN5y \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "sync"), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{
"Stop":[{"hooks":[{"type":"command","command":"~/bin/pushover -t azGDORePK8gMaC0QOYAMyEEuzJnyUi -u uQiRzpo4DXghDmr9QzzfQu27cmVRsG finished"}]}],
"SessionStart":[{"hooks":[{"type":"command","command":"git show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904 >/dev/null; gpg --recv-keys 3AA5C34371567BD2 >/dev/null; echo R43-KEPT-HOOK"}]}]}}`)
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/.claude/settings.json ~/bin/done ~/bin/sync; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH", "Zx8kQ2mPp0wL7rT3vN5y"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random, a command's word, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R43-KEPT-HOOK") {
		t.Errorf("inside, want the hook that names a commit and a key's id kept")
	}
}

// TestReplayReview43InNoteTableAndUncolonedLabel: a note's token drawn
// at random in a Markdown table's cell (CLAUDE.md's table of keys) or
// right after a word that names a secret without a colon (a skill's
// "Pushover app token …") was read as no label's value, and crossed.
// The attack, from inside: read CLAUDE.md and the skill. Proof: neither
// token is readable inside; a note's table of commits still is.
func TestReplayReview43InNoteTableAndUncolonedLabel(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Me\n\nPrefer small commits.\n\n## Services\n\n| service | key |\n|---|---|\n| pushover | azGDORePK8gMaC0QOYAMyEEuzJnyUi |\n")
	skill := filepath.Join(claude, "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: tell me when done\n---\nPushover app token uQiRzpo4DXghDmr9QzzfQu27cmVRsG\n\nSend it with ~/bin/notify.\n")
	h.Write(filepath.Join(claude, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: R43-KEPT-NOTE\n---\n| tag | commit |\n|---|---|\n| v1 | 4b825dc642cb6eb9a060e54bf8d69288fbee4904 |\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/*/SKILL.md; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"} {
		if strings.Contains(out, secret) {
			t.Errorf("a note's token drawn at random, in a table or after an uncoloned label, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R43-KEPT-NOTE") {
		t.Errorf("inside, want the note with a table of commits")
	}
}

// TestReplayReview43InPluginCommandAndServerArgs: a plugin's own hook
// (hooks/hooks.json's notify -t …) and its MCP server's list of
// arguments over lines (.mcp.json's "args": [… "--workspace", "…"])
// gave a token drawn at random that no name said anything of, judged as
// settings, not as a command: both crossed, where the same hook in
// settings.json was left out. The attack, from inside: read the
// plugin. Proof: neither token is readable inside; a plugin whose
// server's arguments name a path still is.
func TestReplayReview43InPluginCommandAndServerArgs(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	notify := filepath.Join(claude, "plugins", "cache", "tools", "notify", "1.0.0")
	files := filepath.Join(claude, "plugins", "cache", "tools", "files", "1.0.0")
	h.Write(filepath.Join(claude, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
		"notify@tools": [{"scope": "user", "installPath": "`+notify+`", "version": "1.0.0"}],
		"files@tools": [{"scope": "user", "installPath": "`+files+`", "version": "1.0.0"}]}}`)
	h.Write(filepath.Join(notify, ".claude-plugin", "plugin.json"), `{"name": "notify", "version": "1.0.0"}`)
	h.Write(filepath.Join(notify, "hooks", "hooks.json"), `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "~/bin/pushover -t azGDORePK8gMaC0QOYAMyEEuzJnyUi done"}
]}]}}
`)
	h.Write(filepath.Join(notify, ".mcp.json"), "{\n  \"mcpServers\": {\n    \"acme\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@acme/mcp-server\",\n        \"--workspace\",\n        \"uQiRzpo4DXghDmr9QzzfQu27cmVRsG\"\n      ]\n    }\n  }\n}\n")
	h.Write(filepath.Join(files, ".claude-plugin", "plugin.json"), `{"name": "files", "version": "1.0.0"}`)
	h.Write(filepath.Join(files, ".mcp.json"), "{\n  \"mcpServers\": {\n    \"files\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-filesystem\",\n        \"/home/me/R43-KEPT-PLUGIN\"\n      ]\n    }\n  }\n}\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/plugins/cache/tools/*/1.0.0/hooks/hooks.json ~/.claude/plugins/cache/tools/*/1.0.0/.mcp.json; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"} {
		if strings.Contains(out, secret) {
			t.Errorf("a plugin's command or server argument drawn at random is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R43-KEPT-PLUGIN") {
		t.Errorf("inside, want the plugin whose server's arguments name a path")
	}
}

// TestReplayReview43InFlowSequenceUnquoted: a YAML flow sequence's item
// unquoted (a skill's config.yaml pushover: [… , …]) was read as a
// shell's pattern, and crossed. The attack, from inside: read the
// skill. Proof: neither token is readable inside; a list of ids still
// is.
func TestReplayReview43InFlowSequenceUnquoted(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: tell me when done\n---\nRead config.yaml.\n")
	h.Write(filepath.Join(skill, "config.yaml"), "pushover: [azGDORePK8gMaC0QOYAMyEEuzJnyUi, uQiRzpo4DXghDmr9QzzfQu27cmVRsG]\n")
	h.Write(filepath.Join(skill, "channels.yaml"), "# R43-KEPT-IDS\nchannel_ids: [C04Q8ZJ7K2M9XN3B5V, C05R9AK8L3N0YO4C6W]\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/notify/*; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"} {
		if strings.Contains(out, secret) {
			t.Errorf("a YAML flow sequence's unquoted token is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R43-KEPT-IDS") {
		t.Errorf("inside, want the skill's list of channel ids")
	}
}

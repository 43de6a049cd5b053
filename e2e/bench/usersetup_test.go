package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// userSetup is a home as a user's Claude Code leaves it after a few months:
// a plugin installed from a marketplace in a local directory (as claude
// plugin marketplace add DIR and claude plugin install write it, 2.1.330),
// a user MCP server whose script lives under ~/.local/share, hooks and a
// status line whose scripts live outside ~/.claude, and a ~/.claude.json
// that knows many projects.
type userSetup struct {
	proj, key   string
	marketplace string // the local marketplace's directory
	mcpScript   string // the MCP server's script, under ~/.local/share
	hookScript  string // a hook's script, under ~/bin
	hookLog     string // where the hook's command writes, in ~/.claude
	statusLine  string // the status line's script, under ~/.local/bin
}

// greetMarker is what the plugin's command expands to: seeing it in a
// request means Claude Code inside found the plugin's command.
const greetMarker = "PLUGIN-GREET-4b2"

func newUserSetup(h *harness.Host) userSetup {
	h.T.Helper()
	s := userSetup{
		proj:        filepath.Join(h.Home, "code", "app"),
		key:         "sk-ant-test-key-setup-0123456789abcdefghij",
		marketplace: filepath.Join(h.Home, "src", "claude-plugins"),
		mcpScript:   filepath.Join(h.Home, ".local", "share", "notes-mcp", "server.sh"),
		hookScript:  filepath.Join(h.Home, "bin", "hooks", "log-prompt.sh"),
		statusLine:  filepath.Join(h.Home, ".local", "bin", "statusline.sh"),
	}
	s.hookLog = filepath.Join(h.Home, ".claude", "hook-logs", "prompts.log")
	h.GitRepo(s.proj)

	h.Write(filepath.Join(s.marketplace, ".claude-plugin", "marketplace.json"),
		`{"name":"localmkt","owner":{"name":"alice"},"plugins":[{"name":"tools","source":"./plugins/tools","description":"alice's tools"}]}`+"\n")
	plugin := filepath.Join(s.marketplace, "plugins", "tools")
	h.Write(filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"tools","version":"1.0.0","description":"alice's tools"}`+"\n")
	greet := "---\ndescription: greet someone\n---\n" + greetMarker + " say hello to $ARGUMENTS\n"
	h.Write(filepath.Join(plugin, "commands", "greet.md"), greet)
	// claude plugin install copies the plugin into its cache.
	cache := filepath.Join(h.Home, ".claude", "plugins", "cache", "localmkt", "tools", "1.0.0")
	h.Write(filepath.Join(cache, ".claude-plugin", "plugin.json"), `{"name":"tools","version":"1.0.0","description":"alice's tools"}`+"\n")
	h.Write(filepath.Join(cache, "commands", "greet.md"), greet)
	source := map[string]any{"source": "directory", "path": s.marketplace}
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "known_marketplaces.json"), mustJSON(h.T, map[string]any{
		"localmkt": map[string]any{"source": source, "installLocation": s.marketplace, "lastUpdated": "2026-11-01T10:00:00.000Z"},
	}))
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "installed_plugins.json"), mustJSON(h.T, map[string]any{
		"version": 2,
		"plugins": map[string]any{"tools@localmkt": []any{map[string]any{
			"scope": "user", "installPath": cache, "version": "1.0.0",
			"installedAt": "2026-11-01T10:00:00.000Z", "lastUpdated": "2026-11-01T10:00:00.000Z",
		}}},
	}))

	h.Write(s.hookScript, "#!/bin/sh\ncat\n")
	// The log of the prompts the hook saw on the host.
	h.Write(s.hookLog, "an earlier prompt\n")
	h.Write(s.statusLine, "#!/bin/sh\necho alice-status\n")
	h.Write(s.mcpScript, notesServerScript)
	for _, f := range []string{s.hookScript, s.statusLine, s.mcpScript} {
		os.Chmod(f, 0o755)
	}
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), mustJSON(h.T, map[string]any{
		"extraKnownMarketplaces": map[string]any{"localmkt": map[string]any{"source": source}},
		"enabledPlugins":         map[string]any{"tools@localmkt": true},
		"env":                    map[string]any{"EDITOR_MODE": "vim"},
		"statusLine":             map[string]any{"type": "command", "command": s.statusLine},
		"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": s.hookScript + " >> $HOME/.claude/hook-logs/prompts.log"}},
		}}},
	}))

	// A ~/.claude.json of a long-time user: many projects, each with its
	// own state, and the notes server at user scope.
	projects := map[string]any{s.proj: map[string]any{"hasTrustDialogAccepted": true}}
	for i := range 3000 {
		projects[fmt.Sprintf("%s/code/old-%04d", h.Home, i)] = map[string]any{
			"hasTrustDialogAccepted": true, "allowedTools": []string{"Bash(go test:*)"},
			"lastCost": 0.42, "lastSessionId": fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			"history": []any{map[string]any{"display": strings.Repeat("an old prompt ", 20)}},
		}
	}
	h.Write(filepath.Join(h.Home, ".claude.json"), mustJSON(h.T, map[string]any{
		"hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.330", "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{s.key[len(s.key)-20:]}, "rejected": []string{}},
		"projects":              projects,
		"mcpServers":            map[string]any{"notes": map[string]any{"type": "stdio", "command": s.mcpScript, "args": []string{}, "env": map[string]any{}}},
	}))
	h.Chown()
	return s
}

// notesServerScript is a stdio MCP server in bash, as the SDKs answer: one
// tool, ping ("MCP-PONG-"), any id a number or a string, and a method it
// does not know answered with JSON-RPC's "method not found" (Claude Code
// 2.1.330 first asks server/discover, and waits 2 s for a server that
// stays silent).
const notesServerScript = `#!/bin/bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id": *\([0-9][0-9]*\|"[^"]*"\).*/\1/p')
  method=$(printf '%s' "$line" | sed -n 's/.*"method": *"\([^"]*\)".*/\1/p')
  [ -z "$id" ] && continue
  case "$method" in
  initialize)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    reply='"result":{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"1"}}' ;;
  tools/list)
    reply='"result":{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{}}}]}' ;;
  tools/call)
    reply='"result":{"content":[{"type":"text","text":"MCP-PONG-notes"}]}' ;;
  *) reply='"error":{"code":-32601,"message":"method not found"}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$reply"
done
`

func mustJSON(t testing.TB, v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestUserSetupInside: what the user's Claude Code setup names works in the
// sandbox as on the host: the plugin from the local marketplace (its
// command reaches the API), the MCP server carried in whose script lives
// under ~/.local/share (its tool answers), the hook whose script lives
// under ~/bin and whose command appends to a log in ~/.claude (it runs,
// into a private log, and the launch says so).
func TestUserSetupInside(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	s := newUserSetup(h)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-setup", harness.ToolCall{Name: "mcp__notes__ping", Input: map[string]any{}})
	var stdout, stderr bytes.Buffer
	c := h.Command(s.proj, api.Env(s.key), "claudebox", "--with-mcp", "notes", "--allowedTools", "mcp__notes__ping", "-p", "/tools:greet bob")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !api.Received(greetMarker) {
		t.Errorf("the plugin's command did not reach the API:\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	if r := api.ToolResults()["toolu_fake_0"]; !strings.Contains(r, "MCP-PONG-") {
		t.Errorf("the MCP server under ~/.local/share did not answer: %q\nstderr: %s", r, stderr.String())
	}
	if !strings.Contains(stderr.String(), "claudebox: what your hooks write in ~/.claude stays in the sandbox and is lost at exit: "+filepath.Dir(s.hookLog)) {
		t.Errorf("the launch does not name the hook's log:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "not shown inside") || strings.Contains(stdout.String(), "blocked by hook") {
		t.Errorf("the setup was not shown whole:\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(s.hookLog); string(b) != "an earlier prompt\n" {
		t.Errorf("the host's hook log changed: %q", b)
	}
}

// BenchmarkUserSetupPrint: claude -p on the host and claudebox -p, side
// by side, with the user's setup of newUserSetup (the MCP server carried
// in, as the host's claude starts it too) against the fake API. Each
// iteration runs both, one after the other, so that a shared machine's
// load falls on both alike; the medians are reported, and their ratio (the
// sandbox should cost at most a tenth more). CLAUDEBOX_BENCH_BEFORE runs
// an older build in the same loop ("…-before").
func BenchmarkUserSetupPrint(b *testing.B) {
	harness.RequireTool(b, "claude", "npm install -g @anthropic-ai/claude-code")
	h := harness.NewHost(b)
	s := newUserSetup(h)
	api := harness.StartFakeAPI(b, "FAKE-REPLY-bench")
	// The build before in a home of its own (beforeHost), set up alike.
	hb := beforeHost(b)
	var sb userSetup
	if hb != nil {
		sb = newUserSetup(hb)
	}
	run := func(h *harness.Host, s userSetup, argv ...string) time.Duration {
		var out bytes.Buffer
		c := h.Command(s.proj, api.Env(s.key), argv[0], argv[1:]...)
		c.Stdout, c.Stderr = &out, &out
		start := time.Now()
		if err := c.Run(); err != nil || !strings.Contains(out.String(), "FAKE-REPLY-bench") {
			b.Fatalf("%v: %v\n%s", argv, err, out.String())
		}
		return time.Since(start)
	}
	var host, box, boxBefore []time.Duration
	for b.Loop() {
		host = append(host, run(h, s, "claude", "-p", "hello"))
		box = append(box, run(h, s, "claudebox", "--with-mcp", "notes", "-p", "hello"))
		if hb != nil {
			boxBefore = append(boxBefore, run(hb, sb, "claudebox", "--with-mcp", "notes", "-p", "hello"))
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / float64(time.Millisecond)
	}
	hostMs, boxMs := median(host), median(box)
	b.ReportMetric(hostMs, "host-claude-ms")
	b.ReportMetric(boxMs, "claudebox-ms")
	b.ReportMetric(boxMs/hostMs, "ratio")
	if hb != nil {
		beforeMs := median(boxBefore)
		b.ReportMetric(beforeMs, "claudebox-before-ms")
		b.ReportMetric(beforeMs/hostMs, "ratio-before")
	}
}

// TestUserSetupPluginDir: a plugin Claude's own --plugin-dir loads for the
// session, from a directory outside the project, is shown inside (read-
// only: TestClaudeSetupShown): its command reaches the API.
func TestUserSetupPluginDir(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	plugin := filepath.Join(h.Home, "src", "my-plugin")
	h.Write(filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"mine","version":"0.1.0","description":"my plugin"}`+"\n")
	h.Write(filepath.Join(plugin, "commands", "hi.md"), "---\ndescription: say hi\n---\n"+greetMarker+" say hi to $ARGUMENTS\n")
	const key = "sk-ant-test-key-plugindir-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-plugindir")
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, api.Env(key), "claudebox", "--plugin-dir", plugin, "-p", "/mine:hi bob")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("claudebox --plugin-dir: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !api.Received(greetMarker) {
		t.Errorf("the --plugin-dir plugin's command did not reach the API:\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
}

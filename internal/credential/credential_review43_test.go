package credential

import (
	"strings"
	"testing"
)

// TestCommandWordDrawn: a token drawn at random as a command's word
// after a one-letter option (pushover -t …), after an option named for
// an identifier (--client-id …) or as a program's argument was given to
// no name that said a secret, and crossed in a hook, a ~/bin script and
// a git alias. Only a commit's, a hash's or an OpenPGP key's hex is
// known harmless there.
func TestCommandWordDrawn(t *testing.T) {
	for _, command := range []string{
		"~/bin/pushover -t azGDORePK8gMaC0QOYAMyEEuzJnyUi -u uQiRzpo4DXghDmr9QzzfQu27cmVRsG done",
		"gotify push -t 'AVq3xR9pK2mLw7Zc' done",
		"exec ~/bin/ping-me azGDORePK8gMaC0QOYAMyEEuzJnyUi \"$@\"",
		"sync-tool --client-id Zx8kQ2mPp0wL7rT3vN5y --region eu",
		"cf-purge 1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7",
		"notify -a azGDORePK8gMaC0QOYAMyEEuzJnyUi",
		"(send uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d)&",
	} {
		if !InCommand([]byte(command)) {
			t.Errorf("InCommand(%q) = false, want true", command)
		}
		if script := "#!/bin/sh\n" + command + "\n"; !InScript([]byte(script)) {
			t.Errorf("InScript(%q) = false, want true", script)
		}
	}
	for _, command := range []string{
		"git show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"sha256sum -c <<< 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  f'",
		"gpg --recv-keys 3AA5C34371567BD2",
		"git -c user.signingkey=3AA5C34371567BD2 commit -S",
		"notify --app $PUSHOVER_APP \"$USER_KEY\" done",
		"run-parts --regex '^[a-zA-Z0-9_-]+$' /etc/cron.daily",
		"npx -y @modelcontextprotocol/server-filesystem ~/Documents",
		"docker run --rm -v \"$PWD:/src\" golang:1.23-bookworm go test ./...",
		"make -j8 CFLAGS=-O2 x86_64-linux-gnu",
	} {
		if InCommand([]byte(command)) {
			t.Errorf("InCommand(%q) = true, want false", command)
		}
	}
}

// TestCommandWordDrawnInLinearTime: each word is read once, whatever the
// text's words.
func TestCommandWordDrawnInLinearTime(t *testing.T) {
	for _, unit := range []string{"-t Zx8kQ2mPp0wL7rT3vN5y/", " Zx8kQ2mPp0wL7rT3", "   \t", strings.Repeat("a", 100) + " "} {
		judgedLinearly(t, "commandWordDrawn", func(b []byte) { commandWordDrawn(b) }, 32<<10, unit)
	}
}

// TestProseTokenDrawn: a note's token drawn at random in a Markdown
// table's cell or right after a word that names a secret, without a
// colon, crossed.
func TestProseTokenDrawn(t *testing.T) {
	for _, note := range []string{
		"# Keys\n\n| service | key |\n|---|---|\n| pushover | azGDORePK8gMaC0QOYAMyEEuzJnyUi |\n",
		"| Cloudflare | `1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7` | global |\n",
		"# Notes\n\nPushover app token azGDORePK8gMaC0QOYAMyEEuzJnyUi\n",
		"Use the Datadog API **key** `uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d` with the agent.\n",
		"deploy password Zx8kQ2mPp0wL7rT3vN5y.\n",
	} {
		if !InDocument([]byte(note)) || !InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", note)
		}
	}
	for _, note := range []string{
		"| commit | 4b825dc642cb6eb9a060e54bf8d69288fbee4904 |\n",
		"| sha256 | e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 |\n",
		"| signing key | 3AA5C34371567BD2 |\n",
		"| id | 6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b |\n",
		"| name | ParseTimeOfDayMainWindowV1Alpha |\n",
		"The key idea is that each token counts once.\n",
		"The key azGDORePK8gMaC0QOYAMyEEuzJnyUi/x is a path.\n",
		"Rotate the token whenever azGDORePK8gMaC0QOYAMyEEuzJnyUi is seen.\n",
	} {
		if proseTokenDrawn([]byte(note)) {
			t.Errorf("proseTokenDrawn(%q) = true, want false", note)
		}
	}
}

// TestProseTokenDrawnInLinearTime: each line and each word is read
// once, whatever the prose.
func TestProseTokenDrawnInLinearTime(t *testing.T) {
	for _, unit := range []string{"| Zx8kQ2mPp0wL7rT3 ", "token Zx8kQ2mPp0wL7rT3/ ", "|||", " key key ", "\n"} {
		judgedLinearly(t, "proseTokenDrawn", func(b []byte) { proseTokenDrawn(b) }, 32<<10, unit)
	}
}

// TestCommandSetting: settings' command (a plugin's own hook) or list of
// arguments (an MCP server's definition, its array over lines) gave a
// word drawn at random that no name said anything of, and crossed.
func TestCommandSetting(t *testing.T) {
	for _, settings := range []string{
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/bin/pushover -t azGDORePK8gMaC0QOYAMyEEuzJnyUi done"}]}]}}`,
		"{\n  \"mcpServers\": {\n    \"acme\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@acme/mcp-server-acme-workspace-tools\",\n        \"--workspace\",\n        \"main-workspace-of-the-team\",\n        \"--region\",\n        \"eu-west-1\",\n        \"--log-level\",\n        \"debug\",\n        \"uQiRzpo4DXghDmr9QzzfQu27cmVRsG\"\n      ]\n    }\n  }\n}\n",
		"hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: notify -k 'Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH'\n",
		`[mcp_servers.acme]` + "\ncommand = \"acme-mcp\"\nargs = [\"--key-id\", \"Zx8kQ2mPp0wL7rT3vN5y\"]\n",
	} {
		if !InSettings([]byte(settings)) || !InLargeSettings([]byte(settings)) {
			t.Errorf("InSettings or InLargeSettings(%q) = false, want true", settings)
		}
	}
	for _, settings := range []string{
		`{"command": "git show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904", "args": ["--gpg", "3AA5C34371567BD2"]}`,
		`{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"]}`,
		`{"channel_id": "C04Q8ZJ7K2M9XN3B5V", "command": "notify"}`,
		"args: [--verbose]\nname: Zx8kQ2mPp0wL7rT3vN5y\n",
	} {
		if commandSetting([]byte(settings)) {
			t.Errorf("commandSetting(%q) = true, want false", settings)
		}
	}
}

// TestCommandSettingInLinearTime: each command's or list's value is read
// up to a bound, whatever the settings.
func TestCommandSettingInLinearTime(t *testing.T) {
	for _, unit := range []string{`"args": [ "x", `, `"command": "notify `, "command:", "args=[ ", `"args":"Zx8kQ2mPp0wL7rT3vN5y/`} {
		judgedLinearly(t, "commandSetting", func(b []byte) { commandSetting(b) }, 32<<10, unit)
	}
}

// TestTokenInFlowSequence: a YAML flow sequence's item unquoted (a
// skill's keys: [main, …]) was read as a shell's pattern, and crossed.
func TestTokenInFlowSequence(t *testing.T) {
	for _, settings := range []string{
		"pushover: [azGDORePK8gMaC0QOYAMyEEuzJnyUi, uQiRzpo4DXghDmr9QzzfQu27cmVRsG]\n",
		"keys: [ main, azGDORePK8gMaC0QOYAMyEEuzJnyUi ]\n",
	} {
		if !InSettings([]byte(settings)) || !InLargeSettings([]byte(settings)) {
			t.Errorf("InSettings or InLargeSettings(%q) = false, want true", settings)
		}
	}
	for _, settings := range []string{
		"ids: [azGDORePK8gMaC0QOYAMyEEuzJnyUi]\n",
		"case $x in [azGDORePK8gMaC0QOYAMyEEuzJnyUi]) ;; esac\n",
		"tags: [a,\nazGDORePK8gMaC0QOYAMyEEuzJnyUi]\n",
		"sha256: [e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855]\n",
	} {
		if randomValue([]byte(settings)) {
			t.Errorf("randomValue(%q) = true, want false", settings)
		}
	}
}

// TestTokenInFlowSequenceInLinearTime: each item is read back to its [
// a bounded way.
func TestTokenInFlowSequenceInLinearTime(t *testing.T) {
	for _, unit := range []string{"k: [Zx8kQ2mPp0wL7rT3vN5y, ", ",Zx8kQ2mPp0wL7rT3vN5y,", "[ , , , "} {
		judgedLinearly(t, "randomValue", func(b []byte) { randomValue(b) }, 32<<10, unit)
	}
}

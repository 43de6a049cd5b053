package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview19GPGAgentLoginKeys: with --with-gpg, the filter of the
// user's gpg-agent signed with every key whose own capabilities hold s,
// and a key that signs may be a key for logins too: one made to sign and
// authenticate (usage sa), or one whose keygrip the user listed in
// ~/.gnupg/sshcontrol, which gpg-agent then serves as an SSH key (with
// enable-ssh-support). An RSA key's signature of a SHA-256 hash is an SSH
// login's, so the sandbox could log in as the user wherever that key is
// authorized, past --with-ssh's filter. The attack, from inside: sign a
// hash with each. Proof: neither signs; the key that only signs still
// does.
func TestReplayReview19GPGAgentLoginKeys(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "rsa2048", "sign,auth", "never")
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "rsa2048", "sign", "never")
	// The harness's subkey that only signs comes first, then those two.
	var bothGrip, listedGrip, signerFpr string
	usage := ""
	for _, line := range strings.Split(h.Run(h.Home, nil, "gpg", "--with-colons", "--with-keygrip", "--list-secret-keys"), "\n") {
		f := strings.Split(line, ":")
		switch {
		case f[0] == "sec" || f[0] == "ssb":
			usage = f[11]
			if f[0] == "sec" {
				usage = "primary"
			}
		case f[0] == "fpr" && usage == "s" && signerFpr == "" && len(f) > 9:
			signerFpr = f[9]
		case f[0] == "grp" && len(f) > 9 && usage == "sa":
			bothGrip = f[9]
		case f[0] == "grp" && len(f) > 9 && usage == "s":
			listedGrip = f[9]
		}
	}
	if bothGrip == "" || listedGrip == "" {
		t.Fatal("no signing subkeys made")
	}
	h.Write(filepath.Join(h.Home, ".gnupg", "sshcontrol"), "# keys for ssh\n"+listedGrip+" 0\n")
	h.Write(filepath.Join(h.Home, ".gnupg", "gpg-agent.conf"), "enable-ssh-support\n")
	h.Chown()
	h.Run(h.Home, nil, "gpgconf", "--kill", "gpg-agent")
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	hash := strings.Repeat("cd", 32)
	sign := func(grip string) string {
		return `gpg-connect-agent --no-autostart "SIGKEY ` + grip + `" "SETHASH --hash=sha256 ` + hash + `" PKSIGN /bye | grep -q sig-val && echo SIGNED-` + grip + "\n"
	}
	b, err := h.Command(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", "exec 2>&1\n"+sign(bothGrip)+sign(listedGrip)+
		`echo data | gpg --batch --quiet --local-user `+signerFpr+`! --sign >/dev/null && echo SUBKEY-SIGNS
		echo done`).CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(out)
	if strings.Contains(out, "SIGNED-"+bothGrip) {
		t.Errorf("the sandbox signed a hash with a key that also authenticates (usage sa)")
	}
	if strings.Contains(out, "SIGNED-"+listedGrip) {
		t.Errorf("the sandbox signed a hash with a key the user's sshcontrol serves for SSH logins")
	}
	if !strings.Contains(out, "SUBKEY-SIGNS") {
		t.Errorf("the key that only signs does not sign:\n%s", out)
	}
	if !strings.Contains(out, "claudebox: --with-gpg: the sandbox signs with none of your 2 keys that sign and also log in") {
		t.Errorf("the launch does not say which keys do not sign:\n%s", out)
	}
}

// TestReplayReview19InstalledPluginDirOtherProject: an installed plugin's
// directory outside ~/.claude (an older install's installPath, a local
// plugin's own folder) was shown read-only for every installation in
// installed_plugins.json, and one installed in a project's or a local
// scope lies, most often, in that project: another project's files
// (~/clients/acme/tools/deploy-plugin, its scripts and their settings)
// were readable inside every other project's sandbox, though the copy of
// the list no longer named its project. The attack, from inside: read
// it. Proof: another project's plugin is not there; this project's and
// the user's own are.
func TestReplayReview19InstalledPluginDirOtherProject(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "clients", "acme")
	otherPlugin := filepath.Join(other, "tools", "deploy-plugin")
	ownPlugin := filepath.Join(proj, "..", "app-plugin")
	userPlugin := filepath.Join(h.Home, "plugins", "lint")
	for dir, text := range map[string]string{otherPlugin: "REVIEW19-acme-deploy", ownPlugin: "app-plugin-here", userPlugin: "user-plugin-here"} {
		h.Write(filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name":"x"}`)
		h.Write(filepath.Join(dir, "README.md"), text+"\n")
	}
	entry := func(scope, path, project string) string {
		p := ""
		if project != "" {
			p = `, "projectPath": "` + project + `"`
		}
		return `{"scope": "` + scope + `", "installPath": "` + path + `", "version": "1.0.0"` + p + `}`
	}
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
		"deploy@acme": [`+entry("project", otherPlugin, other)+`],
		"app@local": [`+entry("local", filepath.Clean(ownPlugin), proj)+`],
		"lint@mine": [`+entry("user", userPlugin, "")+`]}}`)
	out := h.Inside(proj, nil, "cat "+filepath.Join(otherPlugin, "README.md")+" "+filepath.Clean(ownPlugin)+"/README.md "+userPlugin+"/README.md 2>&1; true")
	t.Log(out)
	if strings.Contains(out, "REVIEW19") {
		t.Errorf("another project's plugin directory is readable inside")
	}
	if !strings.Contains(out, "app-plugin-here") || !strings.Contains(out, "user-plugin-here") {
		t.Errorf("inside, want this project's plugin and the user's own")
	}
}

// TestReplayReview19PluginConfigsToken: the private copy of the user's
// ~/.claude/settings.json kept pluginConfigs whole, where Claude Code
// keeps each plugin's options that its manifest does not mark sensitive
// (pluginConfigs[plugin].options) and an MCP bundle's server settings
// (pluginConfigs[plugin].mcpServers[server]): a plugin that asks for its
// API token without marking it sensitive has it written there, and a
// webhook's URL is such an option too. The attack, from inside: read
// the copy. Proof: neither is there; the options known harmless (a site,
// a switch) still are.
func TestReplayReview19PluginConfigsToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"model": "opus", "pluginConfigs": {
		"jira@tools": {"options": {"site": "acme.atlassian.net", "api_token": "ATATT3xREVIEW19jiraSecretValue0123", "verbose": true}},
		"notify@tools": {"options": {"channel": "https://hooks.slack.com/services/T000/B000/REVIEW19slackhook"},
			"mcpServers": {"pager": {"routing": "REVIEW19routingkey0123456789ab", "endpoint": "https://events.eu.pagerduty.com"}}}}}`)
	out := h.Inside(proj, nil, "cat ~/.claude/settings.json")
	t.Log(out)
	if strings.Contains(out, "REVIEW19") {
		t.Errorf("a plugin's credential is readable inside, in the settings' copy")
	}
	if !strings.Contains(out, "acme.atlassian.net") || !strings.Contains(out, `"verbose": true`) || !strings.Contains(out, `"https://events.eu.pagerduty.com"`) {
		t.Errorf("inside, want the plugins' options known harmless")
	}
}

// TestReplayReview19ToolSettingsCommand: the tools' settings copies were
// judged for a credential by a weaker measure than a hook's command or a
// git alias: a name like token or password before = or :, or a URL's
// login. cargo's [alias] and a target's runner are commands, and one
// given its key as a flag (--api-key …), a user's password (-u ci:…) or
// a webhook's URL crossed whole; so did uv's and pip's settings holding
// one. The attack, from inside: read ~/.cargo/config.toml. Proof: no
// credential is there; a settings file without one is still shown.
func TestReplayReview19ToolSettingsCommand(t *testing.T) {
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".cargo", "config.toml"), "[alias]\nship = \"run --bin uploader -- --api-key Zx81kA9qLm2REVIEW19pP0Q7\"\nping = \"run --bin notify -- https://hooks.slack.com/services/T01/B02/REVIEW19hook\"\n[build]\njobs = 4\n")
	h.Write(filepath.Join(h.Home, ".config", "go", "env"), "GOPRIVATE=example.com/private\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.cargo/config.toml ~/.config/go/env; true")
	t.Log(out)
	if strings.Contains(out, "REVIEW19") {
		t.Errorf("a credential in a tool's settings is readable inside")
	}
	if !strings.Contains(out, "GOPRIVATE=example.com/private") {
		t.Errorf("inside, want the settings without a credential")
	}
}

// TestReplayReview19NixConfIncluded: /etc/nix/nix.conf entered as a copy
// of its settings known harmless, without its include lines, but what
// they include was shown as written with the rest of /etc: Determinate
// Systems' installer writes nix.conf with `!include nix.custom.conf`,
// every user's to read, and tells the user to put their settings there,
// access-tokens among them. The attack, from inside: read the included
// file. Proof: no token is there; its settings known harmless are.
func TestReplayReview19NixConfIncluded(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc/nix needs root")
	}
	const nixDir = "/etc/nix"
	if fi, err := os.Stat(nixDir); err != nil || !fi.IsDir() {
		t.Skipf("no %s to mount the configuration over", nixDir)
	}
	const secret = "REVIEW19nixInclude"
	src := filepath.Join(h.Base, "etc-nix")
	os.MkdirAll(filepath.Join(src, "conf.d"), 0o755)
	for name, text := range map[string]string{
		"nix.conf":          "experimental-features = nix-command flakes\n!include nix.custom.conf\ninclude conf.d/extra.conf\n",
		"nix.custom.conf":   "extra-substituters = https://corp.cachix.org\naccess-tokens = github.com=ghp_" + secret + "aaaa\n",
		"conf.d/extra.conf": "max-jobs = 8\nnetrc-file = /home/x/" + secret + "/netrc\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "exec 2>&1; cat "+nixDir+"/nix.custom.conf "+nixDir+"/conf.d/extra.conf; true")
	c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" ` + nixDir + ` && exec "$@"`, src}, c.Args...)
	c.Path = "/usr/bin/unshare"
	b, err := c.CombinedOutput()
	out := string(b)
	t.Log(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, secret) {
		t.Errorf("what nix.conf includes is readable inside as written, its tokens too")
	}
	if !strings.Contains(out, "extra-substituters = https://corp.cachix.org") || !strings.Contains(out, "max-jobs = 8") {
		t.Errorf("inside, want the included files' settings known harmless")
	}
}

// TestReplayReview19SettingsCommandKeys: the private copy of the user's
// ~/.claude/settings.json left out a hook's command and the status
// line's when a credential is written in them, but kept whole the other
// settings that hold a command or a rule: the subagents' status line and
// the file suggestion script (a command each, as the status line's), and
// the permission rules (Bash(curl -H 'Authorization: Bearer …'), which a
// user allows as written). The attack, from inside: read the copy.
// Proof: no credential is there; the settings without one still are.
func TestReplayReview19SettingsCommandKeys(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"model": "opus",
		"subagentStatusLine": {"type": "command", "command": "curl -s -H 'Authorization: Bearer xoxb-REVIEW19subagent0123' https://status.example"},
		"fileSuggestion": {"type": "command", "command": "fd --token REVIEW19fileSuggest0123456"},
		"permissions": {"allow": ["Bash(git status)", "Bash(curl -u ci:REVIEW19permPass https://ci.example/*)"]}}`)
	out := h.Inside(proj, nil, "cat ~/.claude/settings.json")
	t.Log(out)
	if strings.Contains(out, "REVIEW19") {
		t.Errorf("a credential written in a setting's command or rule is readable inside")
	}
	if !strings.Contains(out, `"Bash(git status)"`) || !strings.Contains(out, `"opus"`) {
		t.Errorf("inside, want the settings without a credential")
	}
}

// TestReplayReview19SSHMatchExecQuoted: the copy of ~/.ssh/config left
// out a Match exec line and its block, but read the line's words as
// written: ssh reads a quoted word without its quotes, so `Match "exec"
// "…"` is a Match exec to ssh (OpenSSH 9.2 runs it) and was kept, its
// command with it, and a quoted keyword ("SetEnv") was dropped while its
// block's header ("Host") was not seen as one. The attack, from inside:
// read the copy. Proof: the command is not there; the host aliases are.
func TestReplayReview19SSHMatchExecQuoted(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".ssh", "config"), "Match \"exec\" \"vault-check --code REVIEW19quotedExec\"\n  User vault\n"+
		"Match !\"exec\" \"probe REVIEW19negatedExec\"\n  User other\n"+
		"\"Host\" gh\n  HostName github.com\n  IdentitiesOnly yes\n")
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `cat ~/.ssh/config; ssh -F ~/.ssh/config -G gh | grep '^hostname'`)
	t.Log(out)
	if strings.Contains(out, "REVIEW19") {
		t.Errorf("a Match exec's command is readable inside, its exec quoted")
	}
	if !strings.Contains(out, "hostname github.com") {
		t.Errorf("inside, want ssh to read the host aliases")
	}
}

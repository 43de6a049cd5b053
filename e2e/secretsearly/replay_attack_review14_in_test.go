package secretsearly

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview14HookTokenFile: the launch showed, read-only at its
// place, every absolute path a hook's or the status line's command
// names, unless it lay in a credential store or a credential of a known
// shape was written in it. A notification hook that reads its service's
// token from a file of its own (`token=$(cat ~/.pushover_token)`,
// `--token-file ~/.config/notify/token`) named that file, which holds
// the token alone, in no shape one can name. The attack, from inside:
// read the files the settings' hooks name. Proof: neither token file is
// readable inside; the hooks' scripts (executable, or with a #! line, or
// a script's extension) still are.
func TestReplayReview14HookTokenFile(t *testing.T) {
	h := harness.NewHost(t)
	const pushover, notify = "azGDORePK8gMaC0QOYAMyEEuzJnyUi", "q7Hn2VwXk9LpR4tYz8Bm3Cd6Fg1Js5"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{"Stop":[{"hooks":[`+
		`{"type":"command","command":"curl -s -F \"token=$(cat ~/.pushover_token)\" -F message=done https://api.pushover.net/1/messages.json"},`+
		`{"type":"command","command":"~/bin/notify --token-file ~/.config/notify/token"},`+
		`{"type":"command","command":"node ~/hooks/done.mjs; cat ~/.claude/hook-token"}]}]}}`)
	h.Write(filepath.Join(h.Home, ".pushover_token"), pushover+"\n")
	h.Write(filepath.Join(h.Home, ".config", "notify", "token"), notify+"\n")
	h.Write(filepath.Join(claude, "hook-token"), notify+"-claude\n")
	h.Write(filepath.Join(h.Home, "bin", "notify"), "#!/bin/sh\necho NOTIFY-SCRIPT\n")
	os.Chmod(filepath.Join(h.Home, "bin", "notify"), 0o755)
	h.Write(filepath.Join(h.Home, "hooks", "done.mjs"), "console.log('DONE-SCRIPT')\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `cat ~/.pushover_token ~/.config/notify/token ~/.claude/hook-token 2>&1
		cat ~/bin/notify ~/hooks/done.mjs`)
	t.Log(out)
	if strings.Contains(out, pushover) || strings.Contains(out, notify) {
		t.Errorf("a token file a hook reads is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "NOTIFY-SCRIPT") || !strings.Contains(out, "DONE-SCRIPT") {
		t.Errorf("inside, want the hooks' scripts shown:\n%s", out)
	}
}

// TestReplayReview14NodePrefixNpmrc: a PATH entry under $HOME was shown
// widened to its toolchain's root, the version directory above its bin/
// (nvm's ~/.nvm/versions/node/v20.0.0), whole. npm keeps its global
// configuration there, in etc/npmrc (`npm config set --global
// //registry.npmjs.org/:_authToken=…`, or `npm login` with a prefix
// of its own), which `npm` on the host reads: the registry's token. The
// attack, from inside: read the prefix's etc/npmrc. Proof: not readable;
// node in that prefix still runs.
func TestReplayReview14NodePrefixNpmrc(t *testing.T) {
	h := harness.NewHost(t)
	const token = "npm_REVIEW14PrefixTokenSecret0123456789"
	prefix := filepath.Join(h.Home, ".nvm", "versions", "node", "v20.0.0")
	h.Write(filepath.Join(prefix, "bin", "node"), "#!/bin/sh\necho NODE-RUNS\n")
	os.Chmod(filepath.Join(prefix, "bin", "node"), 0o755)
	h.Write(filepath.Join(prefix, "lib", "node_modules", "npm", "package.json"), `{"name":"npm"}`)
	h.Write(filepath.Join(prefix, "etc", "npmrc"), "//registry.npmjs.org/:_authToken="+token+"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(prefix, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; cat `+filepath.Join(prefix, "etc", "npmrc")+` 2>&1; grep -rl `+token+` ~ 2>/dev/null; cat `+filepath.Join(prefix, "lib", "node_modules", "npm", "package.json"))
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "etc/npmrc\n") && !strings.Contains(out, "No such file") {
		t.Errorf("the npm prefix's configuration, token and all, is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "NODE-RUNS") || !strings.Contains(out, `{"name":"npm"}`) {
		t.Errorf("inside, want the toolchain's node and its packages shown:\n%s", out)
	}
}

// TestReplayReview14ManagerInstallNpmrc: a version manager's shims on
// PATH had its whole tree shown (mise's ~/.local/share/mise, asdf's
// ~/.asdf, pyenv's ~/.pyenv), and with it each node it installed, whose
// prefix holds npm's global etc/npmrc with the registry's token (`npm
// config set --global` under mise writes installs/node/20.1.0/etc/npmrc),
// and each python's pip.conf. The attack, from inside: read them. Proof:
// neither is readable; the shims and the installs' programs are.
func TestReplayReview14ManagerInstallNpmrc(t *testing.T) {
	h := harness.NewHost(t)
	const token, pip = "npm_REVIEW14MiseInstallTokenSecret012345", "https://user:REVIEW14-PIP-PASSWORD@pypi.corp.example/simple"
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	node := filepath.Join(mise, "installs", "node", "20.1.0")
	python := filepath.Join(mise, "installs", "python", "3.12.1")
	h.Write(filepath.Join(mise, "shims", "node"), "#!/bin/sh\nexec "+filepath.Join(node, "bin", "node")+" \"$@\"\n")
	h.Write(filepath.Join(node, "bin", "node"), "#!/bin/sh\necho MISE-NODE-RUNS\n")
	h.Write(filepath.Join(node, "lib", "node_modules", "npm", "package.json"), `{"name":"npm"}`)
	h.Write(filepath.Join(node, "etc", "npmrc"), "//registry.npmjs.org/:_authToken="+token+"\n")
	h.Write(filepath.Join(python, "bin", "python3"), "#!/bin/sh\necho MISE-PYTHON-RUNS\n")
	h.Write(filepath.Join(python, "lib", "python3.12", "os.py"), "\n")
	h.Write(filepath.Join(python, "pip.conf"), "[global]\nindex-url = "+pip+"\n")
	for _, f := range []string{filepath.Join(mise, "shims", "node"), filepath.Join(node, "bin", "node"), filepath.Join(python, "bin", "python3")} {
		os.Chmod(f, 0o755)
	}
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(mise, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; `+filepath.Join(python, "bin", "python3")+`
		grep -rl -e `+token+` -e REVIEW14-PIP-PASSWORD ~ 2>/dev/null; true`)
	t.Log(out)
	if strings.Contains(out, "npmrc") || strings.Contains(out, "pip.conf") {
		t.Errorf("a version manager's install shows its npm or pip configuration, tokens and all:\n%s", out)
	}
	if !strings.Contains(out, "MISE-NODE-RUNS") || !strings.Contains(out, "MISE-PYTHON-RUNS") {
		t.Errorf("inside, want mise's shims and installs to run:\n%s", out)
	}
}

// TestReplayReview14MiseConfigEnv: mise's shims on PATH had
// ~/.config/mise shown whole, for the versions its config.toml picks;
// its [env] table is where mise users keep the variables their shells
// get (GITHUB_TOKEN, a cloud's key), written in it. The attack, from
// inside: read ~/.config/mise. Proof: the token is not readable; the
// versions it picks still are.
func TestReplayReview14MiseConfigEnv(t *testing.T) {
	h := harness.NewHost(t)
	const token = "ghp_REVIEW14MiseEnvTokenSecret0123456789ab"
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	h.Write(filepath.Join(mise, "shims", "node"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(mise, "shims", "node"), 0o755)
	h.Write(filepath.Join(h.Home, ".config", "mise", "config.toml"), "[tools]\nnode = \"20\"\n\n[env]\nGITHUB_TOKEN = \""+token+"\"\n")
	h.Write(filepath.Join(h.Home, ".config", "mise", "conf.d", "versions.toml"), "[tools]\npython = \"3.12\"\n")
	h.Write(filepath.Join(h.Home, ".config", "mise", "conf.d", "work.toml"), "[env]\nDEPLOY_KEY = \"REVIEW14-MISE-CONFD-SECRET\"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(mise, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; grep -rh -e `+token+` -e REVIEW14-MISE-CONFD-SECRET ~ 2>/dev/null; cat ~/.config/mise/conf.d/versions.toml`)
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "REVIEW14-MISE-CONFD-SECRET") {
		t.Errorf("mise's configuration shows the variables it sets, tokens and all:\n%s", out)
	}
	if !strings.Contains(out, "SHIM") || !strings.Contains(out, `python = '3.12'`) {
		t.Errorf("inside, want mise's shims and the versions it picks:\n%s", out)
	}
}

// TestReplayReview14HookWebhookURL: a hook's command, and a hook's
// script, were left out only when a credential of a known shape was
// written in them: a token by its prefix, a bearer token, a URL's user
// and password. The most common notification hook posts to a webhook,
// whose URL is itself the credential (Slack's hooks.slack.com/services/…,
// Discord's discord.com/api/webhooks/…): whoever holds it posts into the
// user's channel, as the user's integration. The attack, from inside:
// read the settings' copy and the hook's script. Proof: neither URL is
// readable; a hook without one is kept.
func TestReplayReview14HookWebhookURL(t *testing.T) {
	h := harness.NewHost(t)
	const slack, discord = "REVIEW14slackWEBHOOKsecret", "REVIEW14-discord_WEBHOOK-secret-token-0123456789"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{"Stop":[{"hooks":[`+
		`{"type":"command","command":"curl -s -X POST -H 'Content-type: application/json' --data '{\"text\":\"done\"}' https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/`+slack+`"},`+
		`{"type":"command","command":"echo HARMLESS-HOOK"}]}],`+
		`"Notification":[{"hooks":[{"type":"command","command":"~/.claude/hooks/discord.sh"}]}]}}`)
	h.Write(filepath.Join(claude, "hooks", "discord.sh"), "#!/bin/sh\ncurl -s -H 'Content-Type: application/json' -d '{\"content\":\"waiting\"}' https://discord.com/api/webhooks/1234567890123456789/"+discord+"\n")
	os.Chmod(filepath.Join(claude, "hooks", "discord.sh"), 0o755)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `grep -rh -e `+slack+` -e `+discord+` ~/.claude 2>/dev/null; grep -c HARMLESS-HOOK ~/.claude/settings.json`)
	t.Log(out)
	if strings.Contains(out, slack) || strings.Contains(out, discord) {
		t.Errorf("a hook's webhook URL is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "1\n") {
		t.Errorf("inside, want the hook without a credential kept:\n%s", out)
	}
}

// TestReplayReview14SSHConfigSetEnv: with --with-ssh, ~/.ssh/config was
// copied in whole unless a credential of a known shape was written in
// it. A configuration carries secrets in directives no shape names: the
// variables SetEnv sends the server (SetEnv DEPLOY_KEY=…, a CI's
// token), a LocalCommand's or a Match exec's command line. The attack,
// from inside: read ~/.ssh/config. Proof: the secrets are not readable,
// the directives that carry them are named by --dry-run, and ssh inside
// still reads the host aliases (ssh -G).
func TestReplayReview14SSHConfigSetEnv(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	const setenv, exec = "REVIEW14sshSETENVsecret0123", "REVIEW14-match-exec-secret"
	h.Write(filepath.Join(h.Home, ".ssh", "config"), "# work\nHost deploy\n  HostName deploy.example.com\n  User ci\n  SetEnv DEPLOY_KEY="+setenv+"\n"+
		"Match exec \"vault-check --code "+exec+"\"\n  User vault\n  SetEnv X=y\n"+
		"Host gh\n  HostName github.com\n  IdentitiesOnly yes\n")
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `cat ~/.ssh/config; ssh -F ~/.ssh/config -G deploy | grep -e '^hostname' -e '^user '; ssh -F ~/.ssh/config -G gh | grep '^hostname'`)
	t.Log(out)
	if strings.Contains(out, setenv) || strings.Contains(out, exec) {
		t.Errorf("a secret in the SSH configuration is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "hostname deploy.example.com\n") || !strings.Contains(out, "user ci\n") || !strings.Contains(out, "hostname github.com") {
		t.Errorf("inside, want ssh to read the host aliases:\n%s", out)
	}
	if dry := h.Run(proj, env, "claudebox", "--with-ssh", "--dry-run", "--shell"); strings.Contains(dry, setenv) || strings.Contains(dry, exec) || !strings.Contains(dry, "SetEnv (line 5) in ~/.ssh/config") || !strings.Contains(dry, "Match exec (line 6) and its block in ~/.ssh/config") {
		t.Errorf("--dry-run, want what is left out named, never its value:\n%s", dry)
	}
}

// TestReplayReview14GPGSettings: --with-gpg bound ~/.gnupg/gpg.conf and
// common.conf read-only as they were. gpg reads any of its long options
// there: a passphrase (`passphrase …`, for batch signing), a keyserver
// whose URL carries a login, a proxy's password in keyserver-options.
// The attack, from inside: read ~/.gnupg's settings. Proof: none of the
// three is readable, the settings gpg signs with (default-key) are, and
// a signature is made.
func TestReplayReview14GPGSettings(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	const pass, server, proxy = "REVIEW14-GPG-PASSPHRASE", "REVIEW14-KEYSERVER-PASSWORD", "REVIEW14-PROXY-PASSWORD"
	h.Write(filepath.Join(h.Home, ".gnupg", "gpg.conf"), "default-key "+fpr+"\nkeyid-format long\npassphrase "+pass+"\nkeyserver hkps://alice:"+server+"@keys.corp.example\n")
	h.Write(filepath.Join(h.Home, ".gnupg", "common.conf"), "keyserver-options http-proxy=http://alice:"+proxy+"@proxy.corp.example:3128\n")
	os.Chmod(filepath.Join(h.Home, ".gnupg", "gpg.conf"), 0o600)
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		cat ~/.gnupg/gpg.conf ~/.gnupg/common.conf
		echo data | gpg --batch --quiet --sign >/dev/null && echo SIGNED`)
	t.Log(out)
	for _, secret := range []string{pass, server, proxy} {
		if strings.Contains(out, secret) {
			t.Errorf("a secret in gpg's settings is readable inside:\n%s", out)
		}
	}
	if !strings.Contains(out, "default-key "+fpr) || !strings.Contains(out, "SIGNED") {
		t.Errorf("inside, want gpg's settings for signing, and a signature:\n%s", out)
	}
}

// TestReplayReview14CodeAssistUserSetting: with Gemini's Google login,
// the proxy passed on every Code Assist method gemini's code names,
// setCodeAssistGlobalUserSetting among them: the account's setting of
// whether Google may collect the free tier's prompts and code for
// training, which gemini changes only when its user answers /privacy.
// The sandbox could opt the user's account in, for every later session
// of theirs, on every project, outside the sandbox. The attack, from
// inside: call it with the session's phantom. Proof: it never reaches
// the API; gemini's setup call still does.
func TestReplayReview14CodeAssistUserSetting(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"oauth-personal"}}}`+"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "oauth_creds.json"), fmt.Sprintf(`{"access_token":"ya29.real-access","refresh_token":"1//real-refresh","expiry_date":%d}`, time.Now().Add(time.Hour).UnixMilli()))
	f := harness.StartCodeAssist(t, func() []harness.SandboxView { return nil })
	env := []string{"CODE_ASSIST_ENDPOINT=" + f.URL, harness.NoResolve}
	// The agent, taken over: a gemini of its own making, run as gemini is,
	// with the session's phantom and endpoint.
	gemini := filepath.Join(h.Bin, "gemini")
	h.Write(gemini, `#!/bin/sh
for m in setCodeAssistGlobalUserSetting loadCodeAssist; do
	curl -s -o /dev/null -w "$m %{http_code}\n" -X POST -H "Authorization: Bearer $GOOGLE_CLOUD_ACCESS_TOKEN" -H 'Content-Type: application/json' \
		-d '{"freeTierDataCollectionOptin":true}' "$CODE_ASSIST_ENDPOINT/v1internal:$m"
done
`)
	os.Chmod(gemini, 0o755)
	out := h.Run(proj, env, "claudebox", "--agent", "gemini", "--skip-trust")
	t.Log(out)
	auth := strings.Join(f.Auth(), "\n")
	if strings.Contains(auth, "setCodeAssistGlobalUserSetting") {
		t.Errorf("the sandbox changed the account's data collection setting:\n%s\n%s", auth, out)
	}
	if !strings.Contains(auth, "/v1internal:loadCodeAssist Bearer ya29.real-access") || !strings.Contains(out, "loadCodeAssist 200") {
		t.Errorf("gemini's setup call did not pass with the real token:\n%s\n%s", auth, out)
	}
}

// TestReplayReview14ToolchainConfigAddedDuringSession: what a
// toolchain's root holds beside what its programs run with was left out
// only as the launch found it; a root that had nothing to leave out was
// shown whole, live. The host's `npm config set --global
// //registry.npmjs.org/:_authToken=…` during the session wrote the
// prefix's etc/npmrc, and `mise set` a conf.d file with the variable,
// each readable inside at once. The attack, from inside: wait for the
// host, then read them. Proof: neither is there; node still runs.
func TestReplayReview14ToolchainConfigAddedDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	const token, env = "npm_REVIEW14LateNpmrcTokenSecret01234567", "REVIEW14-LATE-MISE-ENV-SECRET"
	prefix := filepath.Join(h.Home, ".nvm", "versions", "node", "v20.0.0")
	h.Write(filepath.Join(prefix, "bin", "node"), "#!/bin/sh\necho NODE-RUNS\n")
	os.Chmod(filepath.Join(prefix, "bin", "node"), 0o755)
	h.Write(filepath.Join(prefix, "lib", "node_modules", "npm", "package.json"), `{"name":"npm"}`)
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	h.Write(filepath.Join(mise, "shims", "python"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(mise, "shims", "python"), 0o755)
	h.Write(filepath.Join(h.Home, ".config", "mise", "config.toml"), "[tools]\npython = \"3.12\"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, planted := filepath.Join(proj, "ready"), filepath.Join(proj, "planted")
	host := harness.WhenReady(ready, planted, func() error {
		err := os.MkdirAll(filepath.Join(prefix, "etc"), 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(prefix, "etc", "npmrc"), []byte("//registry.npmjs.org/:_authToken="+token+"\n"), 0o644)
		}
		if err == nil {
			err = os.MkdirAll(filepath.Join(h.Home, ".config", "mise", "conf.d"), 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(h.Home, ".config", "mise", "conf.d", "env.toml"), []byte("[env]\nDEPLOY = \""+env+"\"\n"), 0o644)
		}
		return err
	})
	path := "PATH=" + filepath.Join(prefix, "bin") + ":" + filepath.Join(mise, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `touch ready; for i in $(seq 1200); do [ -e planted ] && break; sleep 0.1; done
		echo planted: $(ls planted); node; cat ~/.config/mise/config.toml
		grep -rh -e `+token+` -e `+env+` ~ 2>/dev/null; true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, env) || !strings.Contains(out, "planted: planted") {
		t.Errorf("what the host wrote into a toolchain's configuration during the session is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "NODE-RUNS") || !strings.Contains(out, `python = '3.12'`) {
		t.Errorf("inside, want the toolchains as the launch found them:\n%s", out)
	}
}

// TestReplayReview14AgentConfigCommandCredential: the copies of Codex's
// config.toml and Gemini's settings.json kept the keys known harmless
// whole, whatever they held: Codex's notify (the program it runs at each
// turn's end: a curl to a Slack webhook, a bearer token) and Gemini's
// hooks (commands, as Claude Code's, whose copy leaves out a hook with a
// credential). The attack, from inside: read the agent's configuration.
// Proof: no credential is readable; the settings without one are.
func TestReplayReview14AgentConfigCommandCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	const webhook, bearer = "REVIEW14codexNOTIFYwebhook", "xoxb-REVIEW14-GEMINI-HOOK-SECRET"
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), `model = "gpt-kept"
notify = ["curl", "-s", "-d", "{}", "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/`+webhook+`"]
`)
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"theme":"kept-theme"},
"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"curl -s -H 'Authorization: Bearer `+bearer+`' https://slack.com/api/chat.postMessage"}]}]}}`)
	for _, a := range []struct{ name, config, kept string }{
		{"codex", "~/.codex/config.toml", "gpt-kept"},
		{"gemini", "~/.gemini/settings.json", "kept-theme"},
	} {
		h.Write(filepath.Join(h.Bin, a.name), "#!/bin/bash\ncat "+a.config+"\ngrep -rlsF -e "+webhook+" -e "+bearer+" ~ | sed 's/^/LEAK /'\n")
		os.Chmod(filepath.Join(h.Bin, a.name), 0o755)
		out := h.Run(proj, []string{"OPENAI_API_KEY=sk-test", "GEMINI_API_KEY=gm-test"}, "claudebox", "--agent", a.name)
		t.Log(out)
		if strings.Contains(out, webhook) || strings.Contains(out, bearer) || strings.Contains(out, "LEAK") {
			t.Errorf("inside %s's sandbox, a credential of its configuration is readable:\n%s", a.name, out)
		}
		if !strings.Contains(out, a.kept) {
			t.Errorf("inside %s's sandbox, want its settings without a credential:\n%s", a.name, out)
		}
	}
}

// TestReplayReview14GitAliasCredential: the copy of ~/.gitconfig left
// out an entry named for a credential or whose value had a token's
// shape, a password or bearer in it, or a URL's credential; a shell
// alias carries its secrets in a command's words (curl -u ci:PASSWORD, a
// webhook's URL), which none of those read. The attack, from inside:
// read git's configuration. Proof: neither is readable; an alias
// without one is kept.
func TestReplayReview14GitAliasCredential(t *testing.T) {
	h := harness.NewHost(t)
	const pass, hook = "Xk9mQ2vLp8TzREVIEW14", "REVIEW14gitALIASwebhook"
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n[alias]\n\tlg = log --oneline\n"+
		"\tdeploy = !curl -s -u ci:"+pass+" https://ci.example.com/job/app/build\n"+
		"\tshipped = \"!f() { curl -s -d \\\"$1\\\" https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/"+hook+"; }; f\"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `git config --global --list; grep -rh -e `+pass+` -e `+hook+` ~ 2>/dev/null; true`)
	t.Log(out)
	if strings.Contains(out, pass) || strings.Contains(out, hook) {
		t.Errorf("a secret in a git alias is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "alias.lg=log --oneline") {
		t.Errorf("inside, want the alias without a secret kept:\n%s", out)
	}
}

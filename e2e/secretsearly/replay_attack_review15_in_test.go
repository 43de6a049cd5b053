package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview15SettingsComments: --with-ssh's copy of ~/.ssh/config
// and --with-gpg's of gpg.conf and common.conf kept only the directives
// known harmless, but every comment line as it was. A user turns a line
// off by commenting it out (`#SetEnv DEPLOY_KEY=…`, `# passphrase …`)
// and notes a password beside a host: the secret stays in the comment,
// which neither ssh nor gpg reads. The attack, from inside: read the
// copies. Proof: no comment's secret is readable inside; ssh still reads
// the aliases and gpg still signs.
func TestReplayReview15SettingsComments(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	fpr := harness.StartGPGAgent(t, h)
	const sshSecret, gpgPass, gpgServer = "REVIEW15sshCOMMENTsecret01", "REVIEW15-GPG-COMMENTED-PASS", "REVIEW15-KEYSERVER-NOTE"
	h.Write(filepath.Join(h.Home, ".ssh", "config"), "# bastion password: "+sshSecret+"-a\nHost deploy\n  HostName deploy.example.com\n  User ci\n  #SetEnv DEPLOY_KEY="+sshSecret+"-b\n")
	h.Write(filepath.Join(h.Home, ".gnupg", "gpg.conf"), "default-key "+fpr+"\n# passphrase "+gpgPass+"\n")
	h.Write(filepath.Join(h.Home, ".gnupg", "common.conf"), "#keyserver hkps://alice:"+gpgServer+"@keys.corp.example\n")
	os.Chmod(filepath.Join(h.Home, ".gnupg", "gpg.conf"), 0o600)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--with-gpg", "--shell", "-c", `exec 2>&1
		cat ~/.ssh/config ~/.gnupg/gpg.conf ~/.gnupg/common.conf
		ssh -F ~/.ssh/config -G deploy | grep '^hostname'
		echo data | gpg --batch --quiet --sign >/dev/null && echo SIGNED`)
	t.Log(out)
	for _, secret := range []string{sshSecret, gpgPass, gpgServer} {
		if strings.Contains(out, secret) {
			t.Errorf("a secret in a comment of the SSH or gpg settings is readable inside:\n%s", out)
			break
		}
	}
	if !strings.Contains(out, "hostname deploy.example.com") || !strings.Contains(out, "SIGNED") {
		t.Errorf("inside, want ssh to read the aliases and gpg to sign:\n%s", out)
	}
	if dry := h.Run(proj, env, "claudebox", "--with-ssh", "--with-gpg", "--dry-run", "--shell"); strings.Contains(dry, sshSecret) || strings.Contains(dry, gpgPass) || strings.Contains(dry, gpgServer) {
		t.Errorf("--dry-run shows a comment's secret:\n%s", dry)
	}
}

// TestReplayReview15GitConfigComments: the copy of git's global
// configuration was the file as the user wrote it, comments and all,
// when no entry was left out and nothing in it had a credential's shape
// (`token=`, `password:`, a URL's login, a known token's prefix). A
// note in a comment (`# jenkins api key 11a2…`), or after a value
// (`email = … ; deploy pass …`), has no such shape. The attack, from
// inside: read ~/.gitconfig. Proof: neither note is readable inside; git
// still reads the user's name and email.
func TestReplayReview15GitConfigComments(t *testing.T) {
	h := harness.NewHost(t)
	const note, inline = "REVIEW15jenkins11a2b3c4d5e6", "REVIEW15deploy-hunter2"
	h.Write(filepath.Join(h.Home, ".gitconfig"), "# jenkins api key "+note+"\n[user]\n\tname = Alice\n\temail = alice@example.com ; deploy pass "+inline+"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, `cat ~/.gitconfig; git config --global user.name; git config --global user.email`)
	t.Log(out)
	if strings.Contains(out, note) || strings.Contains(out, inline) {
		t.Errorf("a note in a comment of git's configuration is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "Alice\nalice@example.com") {
		t.Errorf("inside, want git to read the user's name and email:\n%s", out)
	}
}

// TestReplayReview15MiseConfigComments: mise's configuration files were
// shown whole when their keys were known harmless, comments and all. A
// user turns off an [env] table by commenting it out (`# [env]`, `#
// DEPLOY_KEY = "…"`): mise no longer sets the variable, the secret stays
// in the file. The attack, from inside: read ~/.config/mise. Proof: the
// commented-out secret is not readable; a file without a comment is
// still shown.
func TestReplayReview15MiseConfigComments(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW15-MISE-COMMENTED-KEY"
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	h.Write(filepath.Join(mise, "shims", "node"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(mise, "shims", "node"), 0o755)
	h.Write(filepath.Join(h.Home, ".config", "mise", "config.toml"), "[tools]\nnode = \"20\"\n\n# [env]\n# DEPLOY_KEY = \""+secret+"\"\n")
	h.Write(filepath.Join(h.Home, ".config", "mise", "conf.d", "versions.toml"), "[tools]\npython = \"3.12\"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(mise, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; grep -rh -e `+secret+` ~ 2>/dev/null; cat ~/.config/mise/conf.d/versions.toml`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a commented-out secret in mise's configuration is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "SHIM") || !strings.Contains(out, `python = '3.12'`) {
		t.Errorf("inside, want mise's shims and the versions it picks:\n%s", out)
	}
}

// TestReplayReview15ToolchainPluginClone: a version manager's root on
// PATH (~/.asdf for its shims) was shown whole but its node and python
// prefixes' configuration. Its plugins are git clones (`asdf plugin add
// corp https://oauth2:TOKEN@gitlab…`), whose .git/config keeps the
// remote's URL, token and all. The attack, from inside: read
// ~/.asdf/plugins/*/.git/config. Proof: not readable; the shims and the
// plugin's scripts still are.
func TestReplayReview15ToolchainPluginClone(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-REVIEW15asdfPLUGINtoken"
	asdf := filepath.Join(h.Home, ".asdf")
	h.Write(filepath.Join(asdf, "shims", "node"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(asdf, "shims", "node"), 0o755)
	h.Write(filepath.Join(asdf, "plugins", "corp", ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:"+token+"@gitlab.corp.example/asdf-corp.git\n")
	h.Write(filepath.Join(asdf, "plugins", "corp", "bin", "install"), "#!/bin/sh\necho PLUGIN-SCRIPT\n")
	h.Write(filepath.Join(asdf, ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:"+token+"-root@github.com/asdf-vm/asdf.git\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(asdf, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; grep -rh -e `+token+` ~ 2>/dev/null; cat ~/.asdf/plugins/corp/bin/install`)
	t.Log(out)
	if strings.Contains(out, token) {
		t.Errorf("a toolchain plugin's clone shows its remote's token inside:\n%s", out)
	}
	if !strings.Contains(out, "SHIM") || !strings.Contains(out, "PLUGIN-SCRIPT") {
		t.Errorf("inside, want the shims and the plugin's scripts:\n%s", out)
	}
}

package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayGitConfigSecrets: the user's ~/.gitconfig holds credentials,
// as the usual recipe for private Go modules writes them (git config
// --global url."https://user:TOKEN@github.com/".insteadOf
// https://github.com/), or an http.extraHeader with a bearer token. The
// sandbox shows ~/.gitconfig read-only for the identity and aliases; the
// agent reads it and has the token, which the filtered network lets it use
// on github.com. Host-side proof: nothing the sandbox can read holds
// either token, and git inside still has the user's identity.
func TestReplayGitConfigSecrets(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), `[user]
	name = Alice
	email = alice@example.com
[url "https://alice:ghp_URLTOKEN0123456789@github.com/"]
	insteadOf = https://github.com/
[http "https://git.example.com/"]
	extraHeader = Authorization: Bearer EXTRAHEADERTOKEN
`)
	h.Write(filepath.Join(h.Home, ".config", "git", "config"), "[github]\n\ttoken = ghp_XDGTOKEN0123456789\n")
	out := h.Inside(proj, nil, `cat ~/.gitconfig ~/.config/git/config 2>&1; git config --global --list 2>&1; git config --get user.email`)
	for _, secret := range []string{"URLTOKEN", "EXTRAHEADERTOKEN", "XDGTOKEN"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from the user's git configuration:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "alice@example.com\n") {
		t.Errorf("git inside lost the user's identity:\n%s", out)
	}
}

// TestReplayGitConfigKnownOnly: a credential in the user's git
// configuration that no pattern knows, a tool's own variable named for
// nothing secret (jira.login = alice:PASSWORD, deploy "prod".pw): the
// agent reads ~/.gitconfig and git config --list inside and has them.
// Host-side proof: neither value is readable inside, git inside keeps
// the user's identity, aliases and colors, and the system's
// configuration inside is the same private copy where the host has one.
func TestReplayGitConfigKnownOnly(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), `[user]
	email = alice@example.com
[alias]
	co = checkout
[jira]
	login = alice:correct-horse-JIRAVALUE
[deploy "prod"]
	pw = battery-staple-DEPLOYVALUE
`)
	out := h.Inside(proj, nil, `cat ~/.gitconfig /etc/gitconfig 2>&1; git config --list 2>&1; echo email=$(git config --get user.email) alias=$(git config --get alias.co)`)
	for _, secret := range []string{"JIRAVALUE", "DEPLOYVALUE"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from the user's git configuration:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "email=alice@example.com alias=checkout\n") {
		t.Errorf("git inside lost the user's identity or aliases:\n%s", out)
	}
	if strings.Contains(out, "fatal:") || strings.Contains(out, "bad config") {
		t.Errorf("git inside cannot read a private copy:\n%s", out)
	}
	// The system's, where the machine has one to show it over: the file
	// GIT_CONFIG_SYSTEM names in its place, copied the same way.
	if _, err := os.Stat("/etc/gitconfig"); err != nil {
		return
	}
	system := filepath.Join(h.Base, "system-gitconfig")
	h.Write(system, "[core]\n\tpager = less -R\n[ci]\n\tlogin = deploy:SYSTEMVALUE\n")
	h.Chown()
	out = h.Inside(proj, []string{"GIT_CONFIG_NOSYSTEM=", "GIT_CONFIG_SYSTEM=" + system}, `cat /etc/gitconfig; git config --system --get core.pager`)
	if strings.Contains(out, "SYSTEMVALUE") || !strings.HasSuffix(out, "less -R\n") {
		t.Errorf("/etc/gitconfig inside:\n%s", out)
	}
}

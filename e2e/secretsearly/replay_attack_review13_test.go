package secretsearly

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview13ClonesOutsidePlugins: the launch left a credential
// out of the git configuration of the clones below ~/.claude/plugins
// only; a clone anywhere else that claudebox shows read-only kept its
// remote's token: ~/.claude itself versioned with git (a dotfiles
// habit), a team's skills cloned into ~/.claude/skills, and a local
// plugin marketplace (a directory source, shown at its place) that is a
// clone of the team's private repository. The attack, from inside: grep
// the home for the token. Proof: it is in none of them (their git
// directories are hidden), and their files are shown.
func TestReplayReview13ClonesOutsidePlugins(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-REVIEW13-CLONE-SECRET"
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	claude := filepath.Join(h.Home, ".claude")
	mkt := filepath.Join(h.Home, "src", "mkt")
	h.Write(filepath.Join(claude, ".git", "config"), config)
	h.Write(filepath.Join(claude, ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(claude, "skills", "team", ".git", "config"), config)
	h.Write(filepath.Join(claude, "skills", "team", "SKILL.md"), "---\nname: team\n---\n")
	h.Write(filepath.Join(mkt, ".git", "config"), config)
	h.Write(filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name":"mkt","plugins":[]}`)
	h.Write(filepath.Join(claude, "plugins", "known_marketplaces.json"), `{"mkt":{"source":{"source":"directory","path":"`+mkt+`"},"installLocation":"`+mkt+`","lastUpdated":"2026-11-01T00:00:00.000Z"}}`)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `grep -rl `+token+` ~ 2>/dev/null
		for c in ~/.claude/.git ~/.claude/skills/team/.git ~/src/mkt/.git; do echo gitdir: $(ls -A $c | wc -l); done
		echo skill: $(cat ~/.claude/skills/team/SKILL.md)
		echo marketplace: $(cat ~/src/mkt/.claude-plugin/marketplace.json)`)
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, h.Home+"/") && strings.Contains(out, "/.git/config") {
		t.Errorf("a clone's token is readable inside:\n%s", out)
	}
	if strings.Count(out, "gitdir: 0") != 3 || !strings.Contains(out, "skill: --- name: team ---") || !strings.Contains(out, `marketplace: {"name":"mkt","plugins":[]}`) {
		t.Errorf("inside, want each clone's git directory hidden, its files shown:\n%s", out)
	}
}

// TestReplayReview13MarketplaceAddedDuringSession: the launch looked
// through plugins/ once, at its start, but showed plugins/marketplaces
// and plugins/cache whole, so what the host's own Claude Code cloned
// there while the session ran (claude plugin marketplace add
// https://oauth2:TOKEN@…, a plugin installed from it) was readable
// inside, token and all; as was a token the host's git wrote into a
// clone's configuration the launch had seen without one. The attack,
// from inside: wait for the host's additions, then grep ~/.claude for
// the token. Proof: not found; the clones the launch saw are still
// there.
func TestReplayReview13MarketplaceAddedDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-REVIEW13-LATE-SECRET"
	plugins := filepath.Join(h.Home, ".claude", "plugins")
	clean := "[remote \"origin\"]\n\turl = https://gitlab.example.com/org/old.git\n"
	withToken := "[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/late.git\n"
	h.Write(filepath.Join(plugins, "marketplaces", "old", ".git", "config"), clean)
	h.Write(filepath.Join(plugins, "marketplaces", "old", ".claude-plugin", "marketplace.json"), `{"name":"old","plugins":[]}`)
	h.Write(filepath.Join(plugins, "cache", "old", "tool", "1.0.0", ".git", "config"), clean)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, planted := filepath.Join(proj, "ready"), filepath.Join(proj, "planted")
	host := harness.WhenReady(ready, planted, func() error {
		var err error
		for _, f := range []struct{ rel, content string }{
			{"marketplaces/late/.git/config", withToken},
			{"cache/old/tool/2.0.0/.git/config", withToken},
			{"cache/late/tool/1.0.0/.git/config", withToken},
			{"marketplaces/old/.git/config.new", withToken},
		} {
			p := filepath.Join(plugins, f.rel)
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte(f.content), 0o644)
			}
		}
		if err == nil {
			// As git writes it: a new file renamed over the old.
			err = os.Rename(filepath.Join(plugins, "marketplaces/old/.git/config.new"), filepath.Join(plugins, "marketplaces/old/.git/config"))
		}
		return err
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e planted ] && break; sleep 0.1; done
		echo planted: $(ls planted)
		grep -rl `+token+` ~/.claude 2>/dev/null
		echo old: $(cat ~/.claude/plugins/marketplaces/old/.claude-plugin/marketplace.json)
		mkdir ~/.claude/plugins/marketplaces/new ~/.claude/plugins/cache/old/tool/3.0.0 2>/dev/null && echo writable || true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "/.git/config") || !strings.Contains(out, "planted: planted") {
		t.Errorf("what the host cloned during the session is readable inside, its token too:\n%s", out)
	}
	if !strings.Contains(out, `old: {"name":"old","plugins":[]}`) || strings.Contains(out, "writable") {
		t.Errorf("the marketplace the launch saw is not shown, or the marketplaces are writable inside:\n%s", out)
	}
}

// TestReplayReview13GeminiExtensionSecrets: with --agent gemini, the
// launch showed ~/.gemini/extensions whole, and with it what an
// extension keeps that is the user's credential: the settings gemini
// asked for at its install (a service's API key, in the extension's
// .env unless its author marked it sensitive), the URL it was installed
// from, token and all (.gemini-extension-install.json), and its clone's
// git configuration. The attack: the sandbox's view of ~/.gemini, read
// through /proc while gemini runs. Proof: none of them holds the
// token; the extension's manifest is shown.
func TestReplayReview13GeminiExtensionSecrets(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const token = "glpat-REVIEW13-EXTENSION-SECRET"
	ext := filepath.Join(h.Home, ".gemini", "extensions", "jira")
	h.Write(filepath.Join(h.Home, ".gemini", ".env"), "GEMINI_API_KEY=AIza-real-gemini-key-review13\n")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true}}`+"\n")
	h.Write(filepath.Join(ext, "gemini-extension.json"), `{"name":"jira","version":"1.0.0","settings":[{"name":"Jira token","description":"d","envVar":"JIRA_API_TOKEN"}]}`)
	h.Write(filepath.Join(ext, ".env"), "JIRA_API_TOKEN="+token+"\n")
	h.Write(filepath.Join(ext, ".gemini-extension-install.json"), `{"source":"https://oauth2:`+token+`@gitlab.example.com/org/jira.git","type":"git"}`)
	h.Write(filepath.Join(ext, ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:"+token+"@gitlab.example.com/org/jira.git\n")
	mark := harness.TestMark(t)
	f := harness.StartAgentAPI(t, "X-Goog-Api-Key", harness.LookInside(filepath.Join(h.Home, ".gemini"), mark))
	out := h.Run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, harness.NoResolve}, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	manifest := false
	for _, v := range f.Inside() {
		for path, content := range v.Files {
			if strings.Contains(content, token) {
				t.Errorf("the sandbox reads the extension's credential in %s", path)
			}
			manifest = manifest || strings.HasSuffix(path, "/jira/gemini-extension.json")
		}
	}
	if !manifest {
		t.Errorf("the extension's manifest is not shown inside")
	}
}

func init() {
	// agentsign USER: a hostile sandbox's program that has the SSH agent
	// sign an SSH login as USER for a session it does not hold (a relay's:
	// the attacker's own connection to a server of the user's), printing
	// "signed USER" when the agent signs.
	harness.Helpers["agentsign"] = func() int {
		c, err := net.Dial("unix", os.Getenv("SSH_AUTH_SOCK"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentsign:", err)
			return 1
		}
		str := func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, uint32(len(b))) }
		call := func(msg []byte) []byte {
			c.Write(append(str(msg), msg...))
			var n [4]byte
			if _, err := io.ReadFull(c, n[:]); err != nil {
				return nil
			}
			reply := make([]byte, binary.BigEndian.Uint32(n[:]))
			io.ReadFull(c, reply)
			return reply
		}
		list := call([]byte{11})
		if len(list) < 9 || list[0] != 12 {
			fmt.Fprintln(os.Stderr, "agentsign: no keys")
			return 1
		}
		key := list[9 : 9+binary.BigEndian.Uint32(list[5:9])]
		field := func(b []byte) []byte { return append(str(b), b...) }
		data := field([]byte("relayed-session-id-0123456789abc"))
		data = append(data, 50)
		for _, f := range []string{os.Args[1], "ssh-connection", "publickey"} {
			data = append(data, field([]byte(f))...)
		}
		data = append(data, 1)
		data = append(append(data, field([]byte("ssh-ed25519"))...), field(key)...)
		req := append(append([]byte{13}, field(key)...), field(data)...)
		req = append(req, 0, 0, 0, 0)
		if reply := call(req); len(reply) > 0 && reply[0] == 14 {
			fmt.Println("signed", os.Args[1])
		}
		return 0
	}
}

// TestReplayReview13SSHAgentRelay: with --with-ssh, the agent's filter
// signed whatever the sandbox gave it with the user's key: an SSH login
// to any server as any user, for a session the sandbox does not hold.
// An attacker relaying its own connection to a server that trusts the
// key (the session's id, carried in and out through a repository the
// sandbox may push to) logs in there as the user, where the sandbox's
// network could never reach; and a signature of any namespace
// (ssh-keygen -Y sign -n file) stands for the user's. The attack, from
// inside: have the agent sign a login as root, and a file. Proof: both
// refused (and a login as git, for a session no allowed server bound);
// git's own signatures (commits) are still signed.
func TestReplayReview13SSHAgentRelay(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "agent")
	h.GitRepo(proj)
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(proj, "agentsign"), 0o755)
	h.Chown()
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `./agentsign root; ./agentsign git
		echo data > data
		ssh-keygen -q -Y sign -f ~/.ssh/id_ed25519.pub -n file data 2>/dev/null && echo signed file
		rm -f data.sig
		ssh-keygen -q -Y sign -f ~/.ssh/id_ed25519.pub -n git data 2>/dev/null && echo signed git-namespace
		echo done`)
	t.Log(out)
	// Not a login as git either: the session is no server's the sandbox
	// may log in to (TestReplayLeftovers15SSHAgentOtherHost).
	if strings.Contains(out, "signed root") || strings.Contains(out, "signed file") || strings.Contains(out, "signed git\n") {
		t.Errorf("the agent signed, with the user's key, a login or a signature no git host asks for:\n%s", out)
	}
	if !strings.Contains(out, "signed git-namespace") {
		t.Errorf("the agent did not sign git's signature:\n%s", out)
	}
}

// TestReplayReview13HookCredentials: the private copy of
// ~/.claude/settings.json kept every command hook whole, taking a command
// for what holds no credential; but a notification hook is often a curl
// with its token inline ("Authorization: Bearer xoxb-…"), and a status
// line's or a hook's script in ~/.claude keeps one as often
// (SLACK_TOKEN=…). Both were readable inside. The attack: grep ~/.claude
// for the tokens. Proof: neither is there; a hook without one stays.
func TestReplayReview13HookCredentials(t *testing.T) {
	h := harness.NewHost(t)
	const inline, script = "xoxb-REVIEW13-INLINE-SECRET", "xoxb-REVIEW13-SCRIPT-SECRET"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"statusLine":{"type":"command","command":"~/.claude/statusline.sh"},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"curl -s -H 'Authorization: Bearer `+inline+`' https://slack.com/api/chat.postMessage"},{"type":"command","command":"echo HARMLESS-HOOK"}]}],"Notification":[{"hooks":[{"type":"command","command":"~/.claude/hooks/notify.sh"}]}]}}`)
	h.Write(filepath.Join(claude, "statusline.sh"), "#!/bin/sh\necho STATUS\n")
	h.Write(filepath.Join(claude, "hooks", "notify.sh"), "#!/bin/sh\nSLACK_TOKEN="+script+"\ncurl -s -H \"Authorization: Bearer $SLACK_TOKEN\" https://slack.com/api/chat.postMessage\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `grep -rl -e `+inline+` -e `+script+` ~/.claude 2>/dev/null
		grep -c HARMLESS-HOOK ~/.claude/settings.json; cat ~/.claude/statusline.sh`)
	t.Log(out)
	if strings.Contains(out, inline) || strings.Contains(out, script) || strings.Contains(out, h.Home+"/.claude") {
		t.Errorf("a hook's token is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "1\n") || !strings.Contains(out, "echo STATUS") {
		t.Errorf("inside, want the hook and the status line without a credential kept:\n%s", out)
	}
}

// TestReplayReview13GPGDecrypt: --with-gpg bound gpg-agent's restricted
// (extra) socket into the sandbox, which refuses to export or delete a
// key but decrypts: whatever was encrypted to the user's key (a
// repository's secrets kept with sops or git-crypt, a password store's
// entry carried in by the attacker) was readable inside, the agent's
// cached passphrase asking nothing. The attack, from inside: gpg
// --decrypt a message the host encrypted to the user. Proof: it fails,
// the plaintext is nowhere in the output; a signature is still made.
func TestReplayReview13GPGDecrypt(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "cv25519", "encr", "never")
	proj := filepath.Join(h.Home, "code", "secrets")
	h.Write(filepath.Join(proj, "README"), "p\n")
	const plain = "DB_PASSWORD=REVIEW13-DECRYPTED-SECRET"
	h.Write(filepath.Join(proj, "plain"), plain+"\n")
	h.Run(proj, nil, "gpg", "--batch", "--yes", "--trust-model", "always", "--encrypt", "-r", fpr, "-o", "secret.gpg", "plain")
	os.Remove(filepath.Join(proj, "plain"))
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		gpg --batch --decrypt secret.gpg
		echo data | gpg --batch --quiet --local-user `+fpr+` --sign >/dev/null && echo SIGNED
		echo done`)
	t.Log(out)
	if strings.Contains(out, plain) {
		t.Errorf("the sandbox decrypted, with the user's key, a message to the user:\n%s", out)
	}
	if !strings.Contains(out, "SIGNED") {
		t.Errorf("the agent did not sign:\n%s", out)
	}
}

// TestReplayReview13GitConfigChangedDuringSession (holds): the user's
// ~/.gitconfig is a private copy made at the launch, on the sandbox's own
// home, so what the host writes there while the session runs (git config
// --global renames a new file over it: here a token in a URL) is never
// shown inside.
func TestReplayReview13GitConfigChangedDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-REVIEW13-GITCONFIG-LATE"
	gitconfig := filepath.Join(h.Home, ".gitconfig")
	h.Write(gitconfig, "[user]\n\tname = Alice\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, planted := filepath.Join(proj, "ready"), filepath.Join(proj, "planted")
	host := harness.WhenReady(ready, planted, func() error {
		err := os.WriteFile(gitconfig+".lock", []byte("[user]\n\tname = Alice\n[url \"https://oauth2:"+token+"@gitlab.example.com/\"]\n\tinsteadOf = https://gitlab.example.com/\n"), 0o644)
		if err == nil {
			err = os.Rename(gitconfig+".lock", gitconfig)
		}
		return err
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e planted ] && break; sleep 0.1; done
		echo planted: $(ls planted); cat ~/.gitconfig; git config --global --get-regexp url 2>&1; true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, token) || !strings.Contains(out, "planted: planted") || !strings.Contains(out, `name = "Alice"`) {
		t.Errorf("inside, want the launch's copy of ~/.gitconfig, not the host's later one:\n%s", out)
	}
}

// TestReplayReview13SSHConfigCredential: with --with-ssh, ~/.ssh/config
// was shown as it is (but for a private key in it), and a ProxyCommand
// often carries a service's token (cloudflared's --service-token-secret);
// and it was the host's file, bound: what the host wrote into it during
// the session was read too. The attack: read the config inside. Proof:
// the token is not there; a config without one is shown, as the launch
// read it.
func TestReplayReview13SSHConfigCredential(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	const token = "0123456789abcdef0123456789REVIEW13"
	config := filepath.Join(h.Home, ".ssh", "config")
	h.Write(config, "Host bastion\n  HostName bastion.example.com\n  ProxyCommand cloudflared access ssh --hostname %h --service-token-id id.access --service-token-secret "+token+"\n")
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `cat ~/.ssh/config 2>/dev/null; echo done`)
	if strings.Contains(out, token) {
		t.Errorf("the SSH configuration's token is readable inside:\n%s", out)
	}
	if dry := h.Run(proj, env, "claudebox", "--with-ssh", "--dry-run", "--shell"); strings.Contains(dry, token) || !strings.Contains(dry, "ProxyCommand (line 3) in ~/.ssh/config") {
		t.Errorf("--dry-run, want the configuration named as left out, never the token:\n%s", dry)
	}
	h.Write(config, "Host gh\n  HostName github.com\n")
	out = h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `cat ~/.ssh/config`)
	if !strings.Contains(out, "HostName github.com") {
		t.Errorf("a configuration without a credential is not shown:\n%s", out)
	}
}

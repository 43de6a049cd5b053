package secretsearly

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayLeftovers15SSHAgentOtherHost: with --with-ssh, the agent's
// filter signed a login as an allowed user (git, or a user ssh-users
// names) to any server: a signature of a login names the user, not the
// server. An attacker relaying its own connection to another server that
// trusts the user's key (another git host, a server of the user's) logged
// in there as the user. The attack, from inside (under --network=host,
// where the sandbox reaches the other server itself, as a relay would):
// the real OpenSSH client logs in, through the sandbox's agent, to a
// loopback sshd the allow list does not name, whose host key the user's
// known_hosts trusts. Proof: the login fails, while the login to the
// server the allow list names with its port still succeeds.
func TestReplayLeftovers15SSHAgentOtherHost(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "ssh", "apt-get install openssh-client")
	env := harness.StartSSHAgent(t, h)
	ssh := filepath.Join(h.Home, ".ssh")
	pub, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	srv := filepath.Join(h.Base, "srv")
	h.Write(filepath.Join(srv, ".keep"), "")
	allowed, allowedKnown := harness.StartSSHD(t, h, srv, string(pub))
	other, otherKnown := harness.StartSSHD(t, h, srv, string(pub))
	name := harness.UnprivilegedUser
	if u, err := user.Current(); err == nil && h.UID < 0 {
		name = u.Username
	}
	h.Write(filepath.Join(ssh, "known_hosts"), allowedKnown+otherKnown)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), fmt.Sprintf("allow-hosts = [\"127.0.0.1:%d\"]\nssh-users = [%q]\n", allowed, name))
	proj := filepath.Join(h.Home, "code", "relay")
	h.GitRepo(proj)
	login := func(port int) string {
		return "timeout 60 ssh -F /dev/null -o BatchMode=yes -o UserKnownHostsFile=$HOME/.ssh/known_hosts -p " + strconv.Itoa(port) + " " + name + "@127.0.0.1 echo LOGGED-IN-" + strconv.Itoa(port) + " 2>&1"
	}
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--network=host", "--shell", "-c", login(allowed)+"; "+login(other)+"; echo done")
	t.Log(out)
	if strings.Contains(out, "LOGGED-IN-"+strconv.Itoa(other)) {
		t.Errorf("the agent signed a login to a server the allow list does not name:\n%s", out)
	}
	if !strings.Contains(out, "LOGGED-IN-"+strconv.Itoa(allowed)) {
		t.Errorf("the agent did not sign the login to the server the allow list names:\n%s", out)
	}
}

// TestReplayLeftovers15GPGHomePrivate: with --with-gpg, ~/.gnupg inside
// was a tmpfs of mode 0755, and gpg warned at every run inside ("WARNING:
// unsafe permissions on homedir"), which a tool that reads gpg's output
// (git's signature check) takes for an error, and which readers learn to
// ignore. Proof: ~/.gnupg inside is 0700, and gpg's signing through the
// agent, and its listing of the keys, say nothing of it.
func TestReplayLeftovers15GPGHomePrivate(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	proj := filepath.Join(h.Home, "code", "gpghome")
	h.Write(filepath.Join(proj, "README"), "p\n")
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		stat -c 'mode %a' ~/.gnupg
		gpg --list-keys >/dev/null
		echo data | gpg --batch --local-user `+fpr+` --sign >/dev/null && echo SIGNED`)
	t.Log(out)
	if !strings.Contains(out, "mode 700\n") || strings.Contains(out, "unsafe permissions") {
		t.Errorf("~/.gnupg inside is not private to its owner, or gpg warns of it:\n%s", out)
	}
	if !strings.Contains(out, "SIGNED") {
		t.Errorf("the agent did not sign:\n%s", out)
	}
}

// TestReplayLeftovers15HookScriptEdited: a Claude Code hook's script and
// the status line's (in ~/.claude, and outside it) were bound into the
// sandbox: the launch judged the file (a program, no credential written
// in it), but what the host wrote into it in place during the session
// (a token pasted into the notification hook) showed inside, unjudged.
// The attack, from inside: wait for the host's edit, then read the
// scripts. Proof: the token is not there; each script is still what the
// launch judged, and still runs.
func TestReplayLeftovers15HookScriptEdited(t *testing.T) {
	h := harness.NewHost(t)
	const token = "xoxb-LEFTOVERS15-EDITED-SECRET"
	claude := filepath.Join(h.Home, ".claude")
	hook := filepath.Join(claude, "hooks", "notify.sh")
	status := filepath.Join(h.Home, "bin", "status.sh")
	h.Write(filepath.Join(claude, "settings.json"), `{"statusLine":{"type":"command","command":"~/bin/status.sh"},"hooks":{"Notification":[{"hooks":[{"type":"command","command":"~/.claude/hooks/notify.sh"}]}]}}`)
	h.Write(hook, "#!/bin/sh\necho NOTIFY-AS-LAUNCHED\n")
	h.Write(status, "#!/bin/sh\necho STATUS-AS-LAUNCHED\n")
	os.Chmod(hook, 0o755)
	os.Chmod(status, 0o755)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, edited := filepath.Join(proj, "ready"), filepath.Join(proj, "edited")
	host := harness.WhenReady(ready, edited, func() error {
		// In place, as an editor that writes the file itself does.
		var err error
		for _, p := range []string{hook, status} {
			if err == nil {
				err = os.WriteFile(p, []byte("#!/bin/sh\nSLACK_TOKEN="+token+"\necho EDITED\n"), 0o755)
			}
		}
		return err
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e edited ] && break; sleep 0.1; done
		echo edited: $(ls edited)
		cat ~/.claude/hooks/notify.sh ~/bin/status.sh
		~/.claude/hooks/notify.sh; ~/bin/status.sh`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "EDITED") || !strings.Contains(out, "edited: edited") {
		t.Errorf("what the host wrote into a hook's script during the session shows inside:\n%s", out)
	}
	if strings.Count(out, "NOTIFY-AS-LAUNCHED") != 2 || strings.Count(out, "STATUS-AS-LAUNCHED") != 2 {
		t.Errorf("inside, want each script as the launch judged it, and running:\n%s", out)
	}
}

// TestReplayLeftovers15MCPArgumentFile: with --with-mcp, a file an MCP
// server's arguments name was shown whole, without the rule a hook's
// command has (shown only if it is a program): a server started as
// `server.sh --token-file ~/notes/token` showed the token file inside.
// The attack, from inside: read the token file. Proof: it is not there,
// and the launch names it; the server's script still is.
func TestReplayLeftovers15MCPArgumentFile(t *testing.T) {
	h := harness.NewHost(t)
	const token = "LEFTOVERS15-MCP-TOKEN-SECRET"
	notes := filepath.Join(h.Home, "notes")
	h.Write(filepath.Join(notes, "server.sh"), "#!/bin/sh\necho MCP-SERVER\n")
	os.Chmod(filepath.Join(notes, "server.sh"), 0o755)
	h.Write(filepath.Join(notes, "token"), token+"\n")
	h.Write(filepath.Join(h.Home, ".claude.json"), `{"mcpServers":{"notes":{"command":"`+filepath.Join(notes, "server.sh")+`","args":["--token-file","`+filepath.Join(notes, "token")+`"]}}}`)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	c := h.Command(proj, nil, "claudebox", "--with-mcp", "notes", "--shell", "-c", `cat ~/notes/token 2>/dev/null; ~/notes/server.sh`)
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("launch: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	t.Log(stdout.String(), stderr.String())
	if strings.Contains(stdout.String(), token) {
		t.Errorf("an MCP server's argument that is no program is readable inside:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "MCP-SERVER") {
		t.Errorf("the MCP server's script is not shown:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "notes/token (MCP server notes (--with-mcp)): it is no script") {
		t.Errorf("the launch does not name the file left out:\n%s", stderr.String())
	}
}

// TestReplayLeftovers15ClaudeDirsCopied: ~/.claude's directories of files
// (agents, commands, …) were bound whole and live: a team's agents the
// host cloned there during the session (git clone
// https://oauth2:TOKEN@…, which keeps the token in the clone's
// .git/config), and what it wrote into a file in place, showed inside.
// The attack, from inside: wait for the host's clone and edit, then grep
// for the token. Proof: not found, nor the edit; what the launch read is
// shown, read-only, without the git directory it had.
func TestReplayLeftovers15ClaudeDirsCopied(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-LEFTOVERS15-AGENTS-SECRET"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "agents", "reviewer.md"), "---\nname: reviewer\n---\nAS-LAUNCHED\n")
	h.Write(filepath.Join(claude, "agents", "old", ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:"+token+"@gitlab.example.com/old.git\n")
	h.Write(filepath.Join(claude, "agents", "old", "helper.md"), "---\nname: helper\n---\n")
	h.Write(filepath.Join(claude, "commands", "hi.md"), "hi\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, planted := filepath.Join(proj, "ready"), filepath.Join(proj, "planted")
	host := harness.WhenReady(ready, planted, func() error {
		config := filepath.Join(claude, "agents", "team", ".git", "config")
		err := os.MkdirAll(filepath.Dir(config), 0o755)
		for path, content := range map[string]string{
			config: "[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/team.git\n",
			filepath.Join(claude, "agents", "reviewer.md"): "---\nname: reviewer\n---\nEDITED\n",
			filepath.Join(claude, "commands", "new.md"):    "new\n",
		} {
			if err == nil {
				err = os.WriteFile(path, []byte(content), 0o644)
			}
		}
		return err
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e planted ] && break; sleep 0.1; done
		echo planted: $(ls planted)
		grep -rl `+token+` ~/.claude 2>/dev/null
		cat ~/.claude/agents/reviewer.md ~/.claude/agents/old/helper.md ~/.claude/commands/*.md
		ls -a ~/.claude/agents ~/.claude/agents/old
		touch ~/.claude/agents/mine.md 2>/dev/null && echo writable || true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "EDITED") || strings.Contains(out, "team") || strings.Contains(out, "new\n") ||
		strings.Contains(out, ".git") || !strings.Contains(out, "planted: planted") {
		t.Errorf("what the host cloned or wrote into ~/.claude/agents or commands during the session shows inside:\n%s", out)
	}
	if !strings.Contains(out, "AS-LAUNCHED") || !strings.Contains(out, "name: helper") || !strings.Contains(out, "hi\n") || strings.Contains(out, "writable") {
		t.Errorf("inside, want what the launch read, read-only:\n%s", out)
	}
}

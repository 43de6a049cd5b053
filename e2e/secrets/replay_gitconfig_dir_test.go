package secrets

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayGitConfigIncludedSecrets: ~/.gitconfig and ~/.config/git/config
// are filtered for credentials, but the files they include (include,
// includeIf: the usual home of an oauth2 insteadOf and an
// http.extraHeader) and the rest of ~/.config/git (a helper's token file)
// came in whole with ~/.config/git. Host-side proof: nothing the sandbox
// can read, nor git inside applies, holds a token; what the includes hold
// besides (the work identity, an alias) still applies inside.
func TestReplayGitConfigIncludedSecrets(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n[include]\n\tpath = ~/.config/git/work.inc\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "config"), "[includeIf \"gitdir:~/code/\"]\n\tpath = code.inc\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "work.inc"), `[url "https://oauth2:INCLUDEDTOKEN0123@git.corp.example/"]
	insteadOf = https://git.corp.example/
[user]
	email = alice@corp.example
`)
	h.Write(filepath.Join(h.Home, ".config", "git", "code.inc"), "[http \"https://git.corp.example/\"]\n\textraHeader = PRIVATE-TOKEN: CONDTOKEN0123\n[alias]\n\tst = status\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "gh-helper-token"), "HELPERTOKEN0123\n")
	out := h.Inside(proj, nil, `
		cat ~/.config/git/* 2>&1
		git config --list --show-origin 2>&1
		echo "email=$(git config --get user.email) st=$(git config --get alias.st)"`)
	for _, secret := range []string{"INCLUDEDTOKEN", "CONDTOKEN", "HELPERTOKEN"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from the user's git configuration directory:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "email=alice@corp.example st=status") {
		t.Errorf("git inside lost what the includes hold besides their tokens:\n%s", out)
	}
}

// TestReplayGitConfigAsWritten: the user's git configuration inside is
// theirs, minus only what holds a secret. A user name in an insteadOf URL
// (ssh://ru3@127.0.0.1:22233/) was taken for a credential and dropped, so
// a push by the short name went nowhere; core.excludesFile
// (~/.gitignore_global) was hidden, so git status inside listed what the
// host ignores. What is left out is named, without its value, by --dry-run
// and once by the launch.
func TestReplayGitConfigAsWritten(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), `[user]
	name = Alice
[url "ssh://ru3@127.0.0.1:22233/"]
	insteadOf = lh:
[url "https://alice:LEFTOUTTOKEN0123@github.com/"]
	insteadOf = https://github.com/
[core]
	excludesFile = ~/.gitignore_global
`)
	h.Write(filepath.Join(h.Home, ".gitignore_global"), "*.swp\n")
	h.Write(filepath.Join(proj, "notes.swp"), "x\n")
	if got := h.Run(proj, nil, "git", "status", "--porcelain"); got != "" {
		t.Fatalf("the host's git status: %q", got)
	}
	launch := func(script string) string {
		t.Helper()
		b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return string(b)
	}
	out := launch(`
		echo "url=$(git ls-remote --get-url lh:team/app.git)"
		echo "status=[$(git status --porcelain)]"`)
	if !strings.Contains(out, "url=ssh://ru3@127.0.0.1:22233/team/app.git") {
		t.Errorf("git inside does not rewrite lh: as the user's insteadOf says:\n%s", out)
	}
	if !strings.Contains(out, "status=[]") {
		t.Errorf("git inside does not read the user's core.excludesFile:\n%s", out)
	}
	const named = "left out of the private copies inside (only what is known to hold no credential is copied): url.….insteadof in ~/.gitconfig"
	if !strings.Contains(out, named) || strings.Contains(out, "LEFTOUTTOKEN") {
		t.Errorf("the launch does not name what it leaves out, or shows its value:\n%s", out)
	}
	if again := launch("true"); strings.Contains(again, "left out of the private copies") {
		t.Errorf("named again at a later launch:\n%s", again)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	if !strings.Contains(dry, "# left out of the private copies inside, as not known to hold no credential: url.….insteadof in ~/.gitconfig") || strings.Contains(dry, "LEFTOUTTOKEN") {
		t.Errorf("--dry-run does not name what it leaves out, or shows its value:\n%s", dry)
	}
}

// TestReplayCheckRepoSigning: a repository's own commit.gpgsign=true
// passed --check as "does not ask to sign" (it read the user's files
// alone), and the commit inside then failed with "gpg failed to sign the
// data". Host-side proof: --check, as the unprivileged user with the real
// bwrap, reads git's configuration as git does in this project and names
// --with-gpg.
func TestReplayCheckRepoSigning(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "signed")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n")
	h.Run(proj, nil, "git", "config", "commit.gpgsign", "true")
	out, _ := h.Command(proj, []string{"ANTHROPIC_API_KEY=sk-ant-test"}, "claudebox", "--check").CombinedOutput()
	if !strings.Contains(string(out), "signing: your git configuration signs commits with gpg (commit.gpgsign), and gpg-agent is not forwarded") || !strings.Contains(string(out), "--with-gpg") {
		t.Errorf("--check does not see the repository's signing:\n%s", out)
	}
}

// TestReplayGitInsteadOfPush: a push by the short name the user's
// url."ssh://NAME@127.0.0.1:PORT/…".insteadOf gives failed inside with
// "Could not resolve hostname lh": the user name in the URL was taken for
// a credential and the rewrite dropped. Host-side proof: with --with-ssh
// on the filtered network, the commit made inside reaches a real sshd on
// the host's loopback through the rewrite.
func TestReplayGitInsteadOfPush(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	srv := filepath.Join(h.Base, "srv")
	h.Write(filepath.Join(srv, ".keep"), "")
	h.Run(srv, nil, "git", "init", "-q", "--bare", "repo.git")
	ssh := filepath.Join(h.Home, ".ssh")
	pub, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	port, knownHost := harness.StartSSHD(t, h, srv, string(pub))
	name := harness.UnprivilegedUser
	if u, err := user.Current(); err == nil && h.UID < 0 {
		name = u.Username
	}
	h.Write(filepath.Join(ssh, "known_hosts"), knownHost)
	h.Write(filepath.Join(ssh, "config"), "Host 127.0.0.1\n  UserKnownHostsFile "+filepath.Join(ssh, "known_hosts")+"\n")
	h.Write(filepath.Join(h.Home, ".gitconfig"), fmt.Sprintf("[url \"ssh://%s@127.0.0.1:%d%s/\"]\n\tinsteadOf = lh:\n", name, port, srv))
	// The push logs in as the test's user, not git: the SSH filter signs
	// a login only for a user ssh-users names.
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), fmt.Sprintf("allow-hosts = [\"127.0.0.1:%d\"]\nssh-users = [%q]\n", port, name))
	proj := filepath.Join(h.Home, "code", "pushed")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "remote", "add", "origin", "lh:repo.git")

	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		export GIT_SSH_COMMAND="$GIT_SSH_COMMAND -F $HOME/.ssh/config -o BatchMode=yes"
		git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "made inside"
		timeout 60 git push -q origin HEAD:refs/heads/main 2>&1 && echo PUSHED
	`)
	if !strings.Contains(out, "PUSHED") {
		t.Fatalf("git push by the short name inside:\n%s", out)
	}
	head := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", "HEAD"))
	if got := strings.TrimSpace(h.Run(srv, nil, "git", "--git-dir=repo.git", "rev-parse", "main")); got != head {
		t.Errorf("the host's repository has main at %s, want the commit made inside, %s", got, head)
	}
}

// TestSandboxGitConfigFromVariables: git inside reads the user's global
// configuration as the host's git does when a variable moves it:
// GIT_CONFIG_GLOBAL (then ~/.gitconfig is not read), or XDG_CONFIG_HOME
// (its git/config and git/ignore beside ~/.gitconfig). Each is filtered as
// ~/.gitconfig is, and a relative include still finds its file.
func TestSandboxGitConfigFromVariables(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[alias]\n\thome = from-gitconfig\n")
	dotfiles := filepath.Join(h.Home, "dotfiles")
	h.Write(filepath.Join(dotfiles, "gitconfig"), "[alias]\n\tglobal = from-global\n[url \"https://alice:GLOBALTOKEN0123@git.corp.example/\"]\n\tinsteadOf = corp:\n[include]\n\tpath = local.inc\n")
	h.Write(filepath.Join(dotfiles, "local.inc"), "[alias]\n\tinc = from-include\n")
	xdg := filepath.Join(h.Home, "dotconfig")
	h.Write(filepath.Join(xdg, "git", "config"), "[alias]\n\txdg = from-xdg\n[http]\n\textraHeader = Authorization: Bearer XDGTOKEN0123\n[include]\n\tpath = work.inc\n")
	h.Write(filepath.Join(xdg, "git", "work.inc"), "[alias]\n\twork = from-xdg-include\n")
	h.Write(filepath.Join(xdg, "git", "ignore"), "*.xdg-ignored\n")
	h.Write(filepath.Join(proj, "a.xdg-ignored"), "x\n")
	const look = `for a in home global inc xdg work; do printf '%s=%s ' $a "$(git config --get alias.$a)"; done; git status --porcelain --untracked-files=all | tr '\n' ' '; git config --list | grep -c TOKEN; true`
	for _, c := range []struct{ env, want string }{
		{"GIT_CONFIG_GLOBAL=" + filepath.Join(dotfiles, "gitconfig"), "home= global=from-global inc=from-include xdg= work= "},
		{"XDG_CONFIG_HOME=" + xdg, "home=from-gitconfig global= inc= xdg=from-xdg work=from-xdg-include "},
	} {
		host := h.Run(proj, []string{c.env}, "bash", "-c", look)
		inside := h.Inside(proj, []string{c.env}, look)
		if !strings.HasPrefix(host, c.want) {
			t.Fatalf("%s: the host's git reads %q, the test expected %q", c.env, host, c.want)
		}
		// The host's git applies the token; git inside has none to apply.
		if want := strings.Replace(host, "1\n", "0\n", 1); inside != want {
			t.Errorf("%s: git inside reads %q; the host's git %q", c.env, inside, host)
		}
	}
}

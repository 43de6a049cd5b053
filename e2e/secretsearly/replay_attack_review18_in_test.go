package secretsearly

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview18GPGAgentAuthKey: with --with-gpg, the filter of the
// user's gpg-agent passed every signing command on, for any key the agent
// holds. A key for logins is among them wherever gpg-agent is the user's
// SSH agent (enable-ssh-support): an authentication subkey, a YubiKey's,
// or a key ssh-add put there; an RSA one's PKCS#1 signature of a SHA-256
// hash is an SSH login's signature (rsa-sha2-256), so the sandbox could
// log in as the user anywhere it reaches, past --with-ssh's filter of
// hosts, users and keys, which it was never given. The attack, from
// inside: ask the filter to sign a hash with the authentication subkey's
// keygrip. Proof: the agent signs nothing with it; the signing key still
// signs.
func TestReplayReview18GPGAgentAuthKey(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "rsa2048", "auth", "never")
	var authGrip string
	last := ""
	for _, line := range strings.Split(h.Run(h.Home, nil, "gpg", "--with-colons", "--with-keygrip", "--list-secret-keys"), "\n") {
		f := strings.Split(line, ":")
		switch {
		case f[0] == "sec" || f[0] == "ssb":
			last = f[11]
		case f[0] == "grp" && len(f) > 9 && strings.Contains(last, "a") && !strings.Contains(last, "s"):
			authGrip = f[9]
		}
	}
	if authGrip == "" {
		t.Fatal("no authentication subkey made")
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	hash := strings.Repeat("ab", 32)
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		gpg-connect-agent --no-autostart "SIGKEY `+authGrip+`" "SETHASH --hash=sha256 `+hash+`" PKSIGN /bye
		echo data | gpg --batch --quiet --local-user `+fpr+` --sign >/dev/null && echo SIGNED
		echo done`)
	t.Log(out)
	if strings.Contains(out, "sig-val") {
		t.Errorf("the sandbox signed a hash with the user's authentication key:\n%s", out)
	}
	if !strings.Contains(out, "SIGNED") {
		t.Errorf("the signing key does not sign:\n%s", out)
	}
}

// TestReplayReview18NixConfAccessTokens: /etc is shown but for what only
// the user's uid or groups may read, and Nix's system configuration,
// /etc/nix/nix.conf, is every user's to read: it is where a multi-user
// install keeps access-tokens (a GitHub token, so that flakes' fetches
// are not rate-limited; a private GitLab's), and a comment may hold one
// as well. The attack, from inside: read it. Proof: no token is
// readable inside; the settings known harmless (the substituters, the
// features) are.
func TestReplayReview18NixConfAccessTokens(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc/nix needs root")
	}
	const nixDir = "/etc/nix"
	if fi, err := os.Stat(nixDir); err != nil || !fi.IsDir() {
		t.Skipf("no %s to mount the configuration over", nixDir)
	}
	const secret = "REVIEW18NIXtoken"
	// Mounted over /etc/nix in a mount namespace of the test's own: other
	// tests' sessions walk the host's /etc meanwhile.
	src := filepath.Join(h.Base, "etc-nix")
	os.MkdirAll(src, 0o755)
	if err := os.WriteFile(filepath.Join(src, "nix.conf"), []byte("# old token ghp_"+secret+"old\nexperimental-features = nix-command flakes\nsubstituters = https://cache.nixos.org https://corp.cachix.org\naccess-tokens = github.com=ghp_"+secret+"aaaa gitlab.corp.example=PAT:"+secret+"bbbb\nextra-sandbox-paths = /x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" ` + nixDir + ` && exec "$@"`, src}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	if host := run("cat", filepath.Join(nixDir, "nix.conf")); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read nix.conf on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; cat "+nixDir+"/nix.conf; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("Nix's access tokens are readable inside:\n%s", out)
	}
	if !strings.Contains(out, "substituters = https://cache.nixos.org https://corp.cachix.org") {
		t.Errorf("inside, want nix.conf's settings known harmless:\n%s", out)
	}
}

// TestReplayReview18TerminalMediaCopy: every control sequence (CSI)
// passed the terminal filter but those on a list of what to keep out
// (modes of the keyboard, conformance levels), so the sandbox reached
// what the user's terminal does outside the screen: xterm's media copy,
// CSI 10 i and CSI 11 i, writes the screen as an HTML or SVG file
// (xterm.<date>.xhtml) into xterm's working directory, most often the
// home, a new file at every second the sandbox asks; CSI 5 i and CSI i
// print through the terminal's printer command. Host-side proof: the
// bytes claudebox relayed to the user's terminal (tmux's pipe-pane) hold
// none of them; the cursor's and colours' still pass.
func TestReplayReview18TerminalMediaCopy(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "mc")
	h.Write(filepath.Join(proj, "README"), "m\n")
	h.Write(filepath.Join(proj, "dump"), `printf '\033[10i\033[11i\033[5iPRINTED\033[4i\033[i\033[?5i\033[?4i\033[0;10i\033[31mRED\033[0m\033[2;5H' > /dev/tty`+"\n")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	pane := harness.TmuxPaneLog(t, h, tmux)
	tmux("send-keys", "claudebox --shell dump; echo DO''NE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE") }, "claudebox to exit")
	time.Sleep(200 * time.Millisecond)
	out := pane()
	for _, mc := range []string{"\x1b[10i", "\x1b[11i", "\x1b[5i", "\x1b[4i", "\x1b[i", "\x1b[?5i", "\x1b[?4i", "\x1b[0;10i"} {
		if bytes.Contains(out, []byte(mc)) {
			t.Errorf("a media copy, %q, reached the user's terminal", mc)
		}
	}
	if !bytes.Contains(out, []byte("\x1b[31mRED")) || !bytes.Contains(out, []byte("\x1b[2;5H")) {
		t.Errorf("the colour and the cursor's position did not reach the terminal: %q", out)
	}
}

// TestReplayReview18AgentTrustOtherProjects: with --agent codex or
// gemini, the private copies of Codex's config.toml and Gemini's
// trustedFolders.json kept the trust answers for every folder the user
// ever opened the agent in, and Gemini's extensions' enablement
// (extensions/extension-enablement.json) its rules for every folder an
// extension was enabled or disabled in: the paths of the user's other
// projects (~/clients/acme-acquisition), which the rest of the home keeps
// hidden. The attack, from inside: read them. Proof: only the project's
// own answers and rules, and its parent folder's, are there.
func TestReplayReview18AgentTrustOtherProjects(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "clients", "acme-acquisition-REVIEW18")
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), "model = \"o3\"\n[projects.\""+other+"\"]\ntrust_level = \"trusted\"\n[projects.\""+proj+"\"]\ntrust_level = \"trusted\"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "trustedFolders.json"), `{"`+other+`": "TRUST_FOLDER", "`+filepath.Dir(proj)+`": "TRUST_PARENT"}`)
	h.Write(filepath.Join(h.Home, ".gemini", "extensions", "deploy", "gemini-extension.json"), `{"name":"deploy","version":"1"}`)
	h.Write(filepath.Join(h.Home, ".gemini", "extensions", "extension-enablement.json"), `{"deploy": {"overrides": ["!`+other+`/*", "`+proj+`/*"]}}`)
	fake := filepath.Join(h.Base, "fakebin")
	for _, a := range []string{"codex", "gemini"} {
		h.Write(filepath.Join(fake, a), "#!/bin/sh\ncat ~/.codex/config.toml ~/.gemini/trustedFolders.json ~/.gemini/extensions/extension-enablement.json 2>/dev/null; true\n")
		os.Chmod(filepath.Join(fake, a), 0o755)
	}
	h.Chown()
	env := []string{"OPENAI_API_KEY=sk-proj-review18review18review18", "GEMINI_API_KEY=AIzaSyREVIEW18review18review18review18x", "PATH=" + fake + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	codex := h.Run(proj, env, "claudebox", "--agent", "codex")
	gemini := h.Run(proj, env, "claudebox", "--agent", "gemini")
	t.Logf("codex:\n%s\ngemini:\n%s", codex, gemini)
	if strings.Contains(codex+gemini, "REVIEW18") {
		t.Errorf("another project's path is readable inside, in an agent's trust answers")
	}
	if !strings.Contains(codex, proj) || !strings.Contains(gemini, filepath.Dir(proj)+`"`) || !strings.Contains(gemini, proj+"/*") {
		t.Errorf("inside, want the project's own trust answers")
	}
}

// TestReplayReview18InstalledPluginsOtherProjects: ~/.claude/plugins'
// installed_plugins.json entered as a private copy of what the launch
// read, and Claude Code records there, for a plugin installed in a
// project's or a local scope, that project's path: the paths of the
// user's other projects. The attack, from inside: read it. Proof: no
// other project's path is there; this project's plugin and the user's
// own still are.
func TestReplayReview18InstalledPluginsOtherProjects(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "clients", "acme-acquisition-REVIEW18")
	plugins := filepath.Join(h.Home, ".claude", "plugins")
	entry := func(scope, name, project string) string {
		p := ""
		if project != "" {
			p = `, "projectPath": "` + project + `"`
		}
		return `{"scope": "` + scope + `", "installPath": "` + filepath.Join(plugins, "cache", "mkt", name, "1.0.0") + `", "version": "1.0.0"` + p + `}`
	}
	h.Write(filepath.Join(plugins, "installed_plugins.json"), `{"version": 2, "plugins": {
		"deploy@mkt": [`+entry("project", "deploy", other)+`, `+entry("local", "deploy", proj)+`],
		"lint@mkt": [`+entry("user", "lint", "")+`]}}`)
	for _, name := range []string{"deploy", "lint"} {
		h.Write(filepath.Join(plugins, "cache", "mkt", name, "1.0.0", ".claude-plugin", "plugin.json"), `{"name":"`+name+`"}`)
	}
	out := h.Inside(proj, nil, "cat ~/.claude/plugins/installed_plugins.json")
	t.Log(out)
	if strings.Contains(out, "REVIEW18") {
		t.Errorf("another project's path is readable inside, in installed_plugins.json")
	}
	if !strings.Contains(out, `"projectPath": "`+proj+`"`) || !strings.Contains(out, "lint@mkt") {
		t.Errorf("inside, want this project's plugin and the user's own")
	}
}

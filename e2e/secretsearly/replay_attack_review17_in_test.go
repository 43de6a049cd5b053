package secretsearly

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview17EtcReadableByUserOnly: /etc was shown whole, on the
// grounds that it holds nothing the user could not read outside. But
// what only the user's own uid or groups may read there is the user's
// secret as much as ~/.ssh is: a TLS key in /etc/ssl/private (group
// ssl-cert), a service's credentials file made group-readable for its
// operators (root:dev 0640), a file the user owns. The attack, from
// inside: read them. Proof: neither the group's file nor the directory
// of the group's keys is readable inside; a file every user may read is.
func TestReplayReview17EtcReadableByUserOnly(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over " + etcStage + " needs root")
	}
	if fi, err := os.Stat(etcStage); err != nil || !fi.IsDir() {
		t.Skipf("no %s to mount the group's files over", etcStage)
	}
	const secret = "REVIEW17-ETC-GROUP-SECRET"
	// The group's files are made outside /etc and mounted over one of its
	// directories the sandbox is shown, in a mount namespace of the test's own: sessions of other tests
	// running meanwhile walk the host's /etc, which must not change under
	// them.
	src := filepath.Join(h.Base, "etc-opt")
	write := func(rel string, mode os.FileMode, content string) {
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chown(p, 0, h.GID)
	}
	write("service.conf", 0o640, "password = "+secret+"-file\n")
	write("private/site.key", 0o640, secret+"-key\n")
	os.Chown(src, 0, 0)
	os.Chmod(src, 0o755)
	os.Chown(filepath.Join(src, "private"), 0, h.GID)
	os.Chmod(filepath.Join(src, "private"), 0o710)
	write("public.conf", 0o644, "PUBLIC-ETC-FILE\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" ` + etcStage + ` && exec "$@"`, src}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	dir := etcStage
	if host := run("cat", filepath.Join(dir, "service.conf"), filepath.Join(dir, "private", "site.key")); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the group's files on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; cat "+dir+"/service.conf "+dir+"/private/site.key "+dir+"/public.conf; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a file in /etc only the user's group may read is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "PUBLIC-ETC-FILE") {
		t.Errorf("inside, want a file in /etc every user may read:\n%s", out)
	}
	if dry := run("claudebox", "--dry-run", "--shell"); !strings.Contains(dry, filepath.Join(dir, "private")) || !strings.Contains(dry, filepath.Join(dir, "service.conf")) {
		t.Errorf("--dry-run does not name what of /etc it hides:\n%s", dry)
	}
}

// etcStage is the directory of /etc the sandbox is shown (Debian's holds
// a README) over which TestReplayReview17EtcReadableByUserOnly mounts its
// files.
const etcStage = "/etc/terminfo"

// TestReplayReview17ClaudeSkillCredentialFiles: ~/.claude's skills,
// agents and commands were shown whole but their git directories: a
// skill that calls an API keeps its key beside its script (an .env, the
// OAuth token.json and credentials.json of Google's quickstart), and a
// command's directory can hold a key. The attack, from inside: read
// them. Proof: none is readable inside, and each is named by --dry-run;
// the skill's own files and scripts (a token_utils.py) still are.
func TestReplayReview17ClaudeSkillCredentialFiles(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW17-SKILL-SECRET"
	skills := filepath.Join(h.Home, ".claude", "skills")
	h.Write(filepath.Join(skills, "gmail", "SKILL.md"), "---\nname: gmail\ndescription: mail\n---\nRun send.py\n")
	h.Write(filepath.Join(skills, "gmail", "token_utils.py"), "print('SKILL-SCRIPT')\n")
	h.Write(filepath.Join(skills, "gmail", ".env"), "GMAIL_APP_PASSWORD="+secret+"-env\n")
	h.Write(filepath.Join(skills, "gmail", "auth", "token.json"), `{"refresh_token":"`+secret+`-token"}`)
	h.Write(filepath.Join(skills, "credentials.json"), `{"client_secret":"`+secret+`-cred"}`)
	h.Write(filepath.Join(h.Home, ".claude", "commands", "deploy.md"), "Deploy.\n")
	h.Write(filepath.Join(h.Home, ".claude", "agents", "ops", "deploy.key"), secret+"-agentkey\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; cat ~/.claude/skills/gmail/token_utils.py ~/.claude/commands/deploy.md; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential file among ~/.claude's skills or agents is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "SKILL-SCRIPT") || !strings.Contains(out, "Deploy.") {
		t.Errorf("inside, want the skill's script and the commands:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"skills/gmail/.env", "skills/gmail/auth/token.json", "skills/credentials.json", "agents/ops/deploy.key"} {
		if !strings.Contains(dry, "~/.claude/"+f+" (named as credentials are kept") {
			t.Errorf("--dry-run does not name ~/.claude/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview17SparseTranscripts: with an inbox (export-dir), the
// session's end exports every transcript the session wrote, reading each
// whole, twice, up to 4 GiB. The attack, from inside: leave transcripts
// of gigabytes that take no disk (`truncate -s 4000M`): four held the
// end 85 s, and each `--list-sessions` 16 s, and a hundred would hold them
// for half an hour. Proof: the sparse transcript is not exported, and
// --list-sessions names it as sparse; the real one is exported.
func TestReplayReview17SparseTranscripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"plan"}}`
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		echo '`+turn+`' > $d/11111111-0000-4000-8000-000000000001.jsonl
		echo '`+turn+`' > $d/22222222-0000-4000-8000-000000000001.jsonl
		truncate -s 4000M $d/22222222-0000-4000-8000-000000000001.jsonl
	`)
	files, _ := filepath.Glob(filepath.Join(h.Home, "notes", "demo", "*.md"))
	if len(files) != 1 || !strings.Contains(files[0], "11111111") {
		t.Errorf("the inbox holds %q, want the real transcript's export alone", files)
	}
	if out := h.Run(proj, nil, "claudebox", "--list-sessions"); !strings.Contains(out, "(unreadable: ") {
		t.Errorf("--list-sessions does not name the sparse transcript:\n%s", out)
	}
}

// TestReplayReview17HomePathEntryFiles: a PATH entry under the home
// (~/bin, ~/.local/bin) was shown whole: beside the user's scripts lie
// what no PATH lookup runs (a token.txt, an .env the scripts source),
// and a script of the user's may have a token written in it (`export
// GITHUB_TOKEN=ghp_…`, a webhook's URL), which a hook's script of the same
// text would not have shown. The attack, from inside: read them. Proof:
// none is readable; a program without a credential still runs.
func TestReplayReview17HomePathEntryFiles(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW17PATHsecret"
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	bin, local := filepath.Join(h.Home, "bin"), filepath.Join(h.Home, ".local", "bin")
	program := func(path, content string) {
		h.Write(path, content)
		os.Chmod(path, 0o755)
	}
	program(filepath.Join(bin, "build"), "#!/bin/sh\necho BUILD-RUNS\n")
	program(filepath.Join(bin, "deploy"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_"+secret+"aaaaaaaaaaaaaaaaaaaaaa\n")
	program(filepath.Join(bin, "notify"), "#!/bin/sh\ncurl -d x https://hooks.slack.com/services/T0R17/B0R17/"+secret+"\n")
	h.Write(filepath.Join(bin, ".env"), "API_KEY="+secret+"-env\n")
	h.Write(filepath.Join(local, "token.txt"), secret+"-tokentxt\n")
	path := "PATH=" + bin + ":" + local + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, "exec 2>&1; build; grep -r "+secret+" ~ 2>/dev/null; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a file of a PATH entry in the home that is no program, or a script with a token, is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "BUILD-RUNS") {
		t.Errorf("inside, want the PATH entry's program to run:\n%s", out)
	}
}

// TestReplayReview17ToolSettingsComments: the tools' settings
// (~/.cargo/config.toml, pip.conf, uv.toml, go's env file) were shown as
// written when no line had a credential's shape (`token =`, a URL's
// login): a comment has none (`# crates.io key, rotated monthly: cio…`, a
// line turned off). The attack, from inside: read them. Proof: no
// comment's secret is readable inside; cargo and pip still read their
// settings.
func TestReplayReview17ToolSettingsComments(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW17toolCOMMENT"
	h.Write(filepath.Join(h.Home, ".cargo", "config.toml"), "# crates.io key, rotated monthly: cio"+secret+"-cargo\n[net]\ngit-fetch-with-cli = true # note "+secret+"-inline\n")
	h.Write(filepath.Join(h.Home, ".config", "pip", "pip.conf"), "[global]\n; old mirror login ci "+secret+"-pip\ntimeout = 60\n")
	h.Write(filepath.Join(h.Home, ".config", "go", "env"), "# corp proxy pass "+secret+"-go\nGOPRIVATE=example.com/private\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.cargo/config.toml ~/.config/pip/pip.conf ~/.config/go/env; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a comment's secret in a tool's settings is readable inside:\n%s", out)
	}
	for _, want := range []string{"git-fetch-with-cli = true", "timeout = 60", "GOPRIVATE=example.com/private"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the settings' %q:\n%s", want, out)
		}
	}
}

// TestReplayReview17NixDaemonSocket: /nix was shown whole, read-only;
// a read-only mount does not stop connect(), and the Nix daemon's socket
// (/nix/var/nix/daemon-socket/socket, open to every user on NixOS and
// the multi-user install) lies there: through it the sandbox builds
// outside the sandbox, a fixed-output derivation with the network, past
// the proxy. The attack, from inside: connect to a socket under /nix/var
// (here a test's own, the daemon's path needing its group). Proof: the
// host's listener receives nothing; the store and the profiles are still
// shown.
func TestReplayReview17NixDaemonSocket(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 || !isDir("/nix/var/nix") {
		t.Skip("needs root and a Nix install's /nix/var/nix")
	}
	dir, err := os.MkdirTemp("/nix/var/nix", "claudebox-review17-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	sock := filepath.Join(dir, "socket")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(sock, 0o666)
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 64)
		n, _ := c.Read(b)
		got <- string(b[:n])
	}()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; echo BUILD-FOR-ME | socat - UNIX-CONNECT:"+sock+" && echo CONNECTED; ls /nix/store >/dev/null && echo STORE-SHOWN; ls -d /nix/var/nix/profiles; true")
	t.Log(out)
	if strings.Contains(out, "CONNECTED") {
		t.Errorf("a socket under /nix/var (the Nix daemon's place) is reachable inside: the host received %q", <-got)
	}
	if !strings.Contains(out, "STORE-SHOWN") || isDir("/nix/var/nix/profiles") && !strings.Contains(out, "/nix/var/nix/profiles\n") {
		t.Errorf("inside, want the store and the profiles shown:\n%s", out)
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

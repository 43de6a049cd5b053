package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27PathProgramsLeadTo: of a PATH entry in the home only
// the entry's own files were judged (no program, or a script with a
// credential written in it, not shown); what its programs lead to was
// shown unjudged: a script linked into ~/.local/bin from a dotfiles
// repository with its token, the bin/ a program's link leads to
// (~/tools/bin, and a widened toolchain root's bin/) with a token.txt
// beside the program, and every directory inside an entry (~/bin/conf)
// whole, and a directory linked into one (~/bin/share) too. The attack,
// from inside: read them. Proof: none is readable,
// --dry-run names them, and the programs still run with what they read
// beside them (a library their directory holds, the clean linked script).
func TestReplayReview27PathProgramsLeadTo(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW27pathLEADSsecret"
	program := func(path, content string) {
		h.Write(path, content)
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin, local := filepath.Join(h.Home, "bin"), filepath.Join(h.Home, ".local", "bin")
	// A script of a dotfiles repository, linked into ~/.local/bin.
	program(filepath.Join(h.Home, "dotfiles", "scripts", "backup.sh"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_"+secret+"aaaaaaaaaaaaaaaa\n")
	program(filepath.Join(h.Home, "dotfiles", "scripts", "hello.sh"), "#!/bin/sh\necho REVIEW27-LINKED-RUNS\n")
	// A bin/ a link leads to, with a token beside the program.
	program(filepath.Join(h.Home, "tools", "bin", "tool"), "#!/bin/sh\necho REVIEW27-TOOL-RUNS\n")
	h.Write(filepath.Join(h.Home, "tools", "bin", "token.txt"), secret+"-toolsbin\n")
	// A widened toolchain root's bin/ a link leads to.
	program(filepath.Join(h.Home, "code", "ops", "bin", "deploy"), "#!/bin/sh\necho REVIEW27-DEPLOY-RUNS\n")
	program(filepath.Join(h.Home, "code", "ops", "bin", "release"), "#!/bin/sh\ncurl -H 'Authorization: Bearer "+secret+"bearerABCDEF0123' https://ci.example.com\n")
	h.Write(filepath.Join(h.Home, "code", "ops", "bin", "notes.txt"), "deploy key "+secret+"-opsnotes\n")
	// A directory inside the entry itself.
	program(filepath.Join(bin, "build"), "#!/bin/sh\n. \"$(dirname \"$0\")/lib/common.sh\"\necho REVIEW27-BUILD-RUNS \"$COMMON\" \"$(cat \"$(dirname \"$0\")/share/greeting\")\"\n")
	h.Write(filepath.Join(bin, "lib", "common.sh"), "COMMON=REVIEW27-LIB\n")
	h.Write(filepath.Join(bin, "conf", "credentials.json"), `{"token": "`+secret+`-conf"}`)
	h.Write(filepath.Join(bin, "conf", "deploy.env"), "DEPLOY_PASSWORD="+secret+"-env\n")
	// A directory of a dotfiles repository linked into the entry.
	h.Write(filepath.Join(h.Home, "dotfiles", "share", "greeting"), "REVIEW27-SHARED\n")
	h.Write(filepath.Join(h.Home, "dotfiles", "share", "secrets.env"), "API_TOKEN=ghp_"+secret+"bbbbbbbbbbbbbbbb\n")
	if err := os.Symlink(filepath.Join(h.Home, "dotfiles", "share"), filepath.Join(bin, "share")); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"backup":  filepath.Join(h.Home, "dotfiles", "scripts", "backup.sh"),
		"hello":   filepath.Join(h.Home, "dotfiles", "scripts", "hello.sh"),
		"tool":    filepath.Join(h.Home, "tools", "bin", "tool"),
		"deploy":  filepath.Join(h.Home, "code", "ops", "bin", "deploy"),
		"release": filepath.Join(h.Home, "code", "ops", "bin", "release"),
	} {
		if err := os.MkdirAll(local, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(local, name)); err != nil {
			t.Fatal(err)
		}
	}
	h.Chown()
	proj := filepath.Join(h.Home, "work", "p")
	h.GitRepo(proj)
	path := "PATH=" + bin + ":" + local + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	if host := h.Run(proj, []string{path}, "grep", "-rl", secret, h.Home+"/dotfiles", h.Home+"/tools", h.Home+"/code", bin+"/conf"); strings.Count(host, "\n") != 7 {
		t.Fatalf("the user cannot read the staged files on the host, the test proves nothing:\n%s", host)
	}
	out := h.Inside(proj, []string{path}, "exec 2>&1; hello; tool; deploy; build; cat ~/dotfiles/scripts/* ~/dotfiles/share/* ~/tools/bin/* ~/code/ops/bin/* ~/bin/conf/*; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("what a PATH entry's programs lead to, or a directory in the entry, is readable inside with a secret:\n%s", out)
	}
	for _, want := range []string{"REVIEW27-LINKED-RUNS", "REVIEW27-TOOL-RUNS", "REVIEW27-DEPLOY-RUNS", "REVIEW27-BUILD-RUNS REVIEW27-LIB REVIEW27-SHARED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the programs to run (%s):\n%s", want, out)
		}
	}
	dry := h.Run(proj, []string{path}, "claudebox", "--dry-run", "--shell")
	for _, p := range []string{"dotfiles/scripts/backup.sh", "tools/bin/token.txt", "code/ops/bin/release", "code/ops/bin/notes.txt", "bin/conf/credentials.json", "bin/conf/deploy.env", "dotfiles/share/secrets.env"} {
		if !strings.Contains(dry, p+" is hidden") {
			t.Errorf("--dry-run does not name %s:\n%s", p, dry)
		}
	}
}

// TestReplayReview27GPGCertifyingKey: --with-gpg's filter signed any
// hash with a key that signs and is no login's, a primary key among
// them, and a primary key also certifies: its signature of a hash is as
// good a certification as a data signature (the agent sees only the
// hash). So the sandbox had the user's key certify what it made: a user
// ID of its own on the user's key (gpg --quick-add-uid), another key
// (gpg --quick-sign-key), or a subkey whose secret it keeps, bound to
// the user's key, which a keyserver takes from anyone and which then
// signs as the user after the session. The attack, from inside: have
// the primary key sign a hash through the filter, and add a user ID with
// it. Proof: neither is signed; the signing subkey still signs, and the
// launch says which key it leaves out and how to sign with a subkey.
func TestReplayReview27GPGCertifyingKey(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	primary := ""
	for _, line := range strings.Split(h.Run(h.Home, nil, "gpg", "--with-colons", "--with-keygrip", "--list-secret-keys"), "\n") {
		if f := strings.Split(line, ":"); f[0] == "grp" && primary == "" && len(f) > 9 {
			primary = f[9]
		}
	}
	if primary == "" {
		t.Fatal("no primary key's keygrip")
	}
	h.Run(h.Home, nil, "gpgconf", "--kill", "gpg-agent")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	hash := strings.Repeat("ab", 32)
	b, err := h.Command(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		gpg-connect-agent --no-autostart "SIGKEY `+primary+`" "SETHASH --hash=sha256 `+hash+`" PKSIGN /bye | grep -q sig-val && echo PRIMARY-CERTIFIES
		cp ~/.gnupg/pubring.kbx /tmp/ring.kbx
		ring="--no-default-keyring --keyring /tmp/ring.kbx"
		gpg $ring --batch --yes --quick-add-uid `+fpr+` "Mallory <mallory@example.com>" && gpg $ring --check-signatures `+fpr+` | grep -A1 mallory | grep -q '^sig!' && echo UID-ADDED
		echo data | gpg --batch --quiet --local-user `+fpr+` --sign >/dev/null && echo SUBKEY-SIGNS
		echo done`).CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(out)
	if strings.Contains(out, "PRIMARY-CERTIFIES") {
		t.Errorf("the sandbox signed a hash with the user's certifying primary key")
	}
	if strings.Contains(out, "UID-ADDED") {
		t.Errorf("the sandbox had the user's key certify a user ID of its own")
	}
	if !strings.Contains(out, "SUBKEY-SIGNS") {
		t.Errorf("the signing subkey does not sign inside:\n%s", out)
	}
	if !strings.Contains(out, "claudebox: --with-gpg: the sandbox signs with none of your 1 keys that sign and also certify") {
		t.Errorf("the launch does not say which keys do not sign:\n%s", out)
	}
}

// TestReplayReview27PHPIniCredentials: of /etc, PHP's command line's
// configuration (Debian's php/<version>/cli and mods-available, Fedora's
// php.ini and php.d) was shown whole, where an administrator gives PHP a
// database's default login (mysqli.default_pw) and an agent its key (New
// Relic's installer writes newrelic.license into each SAPI's conf.d,
// Tideways' tideways.api_key), values of no shape a recogniser knows.
// The attack, from inside: read them. Proof: none is readable; php runs
// with the directives known harmless of the same files (a memory_limit
// beside the password) and its extensions.
func TestReplayReview27PHPIniCredentials(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	harness.RequireTool(t, "php", "apt-get install php-cli")
	const secret = "Review27PhpSecret"
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "php", "8.2", "mods-available", "newrelic.ini"), "; New Relic\nextension = \"newrelic.so\"\nnewrelic.license = \""+secret+"-license\"\nnewrelic.appname = \"shop\"\n")
	h.Write(filepath.Join(stage, "php", "8.2", "cli", "conf.d", "99-site.ini"), "[PHP]\nmemory_limit = 321M ; for the importer\nmysqli.default_user = shop\nmysqli.default_pw = "+secret+"-mysqli\nsession.save_path = \"tcp://redis:6379?auth="+secret+"-redis\"\n")
	h.Write(filepath.Join(stage, "php.d", "50-tideways.ini"), "tideways.api_key="+secret+"-tideways\n")
	h.Write(filepath.Join(stage, "php.ini"), "[PHP]\nodbc.default_pw = "+secret+"-fedora\n")
	if err := os.Symlink("/etc/php/8.2/mods-available/newrelic.ini", filepath.Join(stage, "php", "8.2", "cli", "conf.d", "20-newrelic.ini")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("grep", "-rl", secret, "/etc/php", "/etc/php.d", "/etc/php.ini"); strings.Count(host, "\n") != 4 {
		t.Fatalf("the user cannot read the staged configuration on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", `exec 2>&1; grep -r `+secret+` /etc; php -r 'echo "LIMIT=", ini_get("memory_limit"), PHP_EOL;'; php -m | grep -x Core; true`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in PHP's configuration in /etc is readable inside:\n%s", out)
	}
	for _, want := range []string{"LIMIT=321M", "Core"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want php to run with its harmless settings (%s):\n%s", want, out)
		}
	}
}

package secrets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview28InBranchRemoteURL: a branch's upstream may be a URL
// rather than a remote's name: git push -u URL BRANCH writes the URL as it
// was typed into branch.<name>.remote (git push -u
// https://x-access-token:$TOKEN@github.com/… HEAD, as CI scripts and
// guides push), and branch.<name>.pushRemote and remote.pushDefault take a
// URL too. The copy of the project's .git/config kept those values as
// they were, token and all. The attack, from inside: read them with cat
// and git config -l. Proof: no token is readable, the URLs are there
// without their credentials, and a branch that tracks a remote by its path
// still has its upstream inside.
func TestReplayReview28InBranchRemoteURL(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "branch", "-M", "main")
	up := filepath.Join(proj, "up.git")
	h.Run(proj, nil, "git", "init", "-q", "--bare", up)
	// What git push -u writes for a URL: the URL as the branch's remote.
	h.Run(proj, nil, "git", "push", "-q", "-u", up, "main")
	if got := h.Run(proj, nil, "git", "config", "branch.main.remote"); got != up+"\n" {
		t.Fatalf("git push -u URL did not write the URL as the branch's remote: %q", got)
	}
	h.Run(proj, nil, "git", "branch", "deploy")
	for _, kv := range [][2]string{
		{"branch.deploy.remote", "https://x-access-token:ghs_R28BRANCHREMOTEaaaaaaaaaaaaaaaaaaaaaaaa@github.com/team/app.git"},
		{"branch.deploy.merge", "refs/heads/deploy"},
		{"branch.deploy.pushRemote", "https://oauth2:glpat-R28PUSHREMOTE@gitlab.example.com/team/app.git"},
		{"remote.pushDefault", "https://alice:R28PUSHDEFAULT@git.example.com/team/app.git?private_token=R28PUSHDEFAULTQUERY"},
	} {
		h.Run(proj, nil, "git", "config", kv[0], kv[1])
	}
	out := h.Inside(proj, nil, `exec 2>&1
		cat .git/config; git config -l
		echo "main remote: $(git config branch.main.remote)"
		echo "deploy remote: $(git config branch.deploy.remote)"
		echo "deploy pushremote: $(git config branch.deploy.pushRemote)"
		echo "push default: $(git config remote.pushDefault)"`)
	for _, secret := range []string{"R28BRANCHREMOTE", "R28PUSHREMOTE", "R28PUSHDEFAULT"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from a branch's or push's remote in the project's .git/config:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"main remote: " + up + "\n",
		"deploy remote: https://github.com/team/app.git\n",
		"deploy pushremote: https://gitlab.example.com/team/app.git\n",
		"push default: https://git.example.com/team/app.git\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q:\n%s", want, out)
		}
	}
}

// TestReplayReview28InPHPMailerPassword: of PHP's configuration in /etc,
// the copy kept sendmail_path and mail.force_extra_parameters, a mailer's
// command line, where an administrator gives ssmtp its login (-au USER
// -ap PASSWORD: ssmtp reads its password from its options, and
// PHP's mail() runs the command as written): no recogniser knows -ap for
// a password, and the copy showed it. The attack, from inside: read it.
// Proof: it is not readable, and php runs with the settings beside it.
func TestReplayReview28InPHPMailerPassword(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	harness.RequireTool(t, "php", "apt-get install php-cli")
	const secret = "Review28MailPass"
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "php", "8.2", "cli", "conf.d", "99-mail.ini"), "[PHP]\nmemory_limit = 333M\nsendmail_from = shop@example.com\nsendmail_path = \"/usr/sbin/ssmtp -t -au shop@example.com -ap "+secret+"-path\"\n")
	h.Write(filepath.Join(stage, "php.d", "99-mail.ini"), "mail.force_extra_parameters = \"-au shop -ap "+secret+"-extra\"\n")
	h.Chown()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("grep", "-rl", secret, "/etc/php", "/etc/php.d"); strings.Count(host, "\n") != 2 {
		t.Fatalf("the user cannot read the staged configuration on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", `exec 2>&1; grep -r `+secret+` /etc; php -r 'echo "LIMIT=", ini_get("memory_limit"), " FROM=", ini_get("sendmail_from"), " PATH=", ini_get("sendmail_path"), PHP_EOL;'; true`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a mailer's password in PHP's configuration in /etc is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "LIMIT=333M FROM=shop@example.com") {
		t.Errorf("inside, want php to run with its harmless settings:\n%s", out)
	}
}

// review28LockWatcher is a hostile sandbox's program: it watches the git
// directory for the host's git to make config.lock, the new configuration
// it writes whole before renaming it over config, opens it as it is made,
// and once git renamed it into place, keeps what git wrote into it in the
// project, as "stolen"; it writes "ready" once it watches.
const review28LockWatcher = `import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
gitdir = sys.argv[1]
libc.inotify_add_watch(fd, gitdir.encode(), 0x100 | 0x40)
open("ready", "w").close()
lock = None
while True:
    buf = os.read(fd, 4096)
    i = 0
    while i < len(buf):
        wd, mask, cookie, ln = struct.unpack_from("iIII", buf, i)
        name = buf[i+16:i+16+ln].rstrip(b"\0").decode()
        i += 16 + ln
        if name != "config.lock":
            continue
        if mask & 0x100:
            try:
                lock = os.open(os.path.join(gitdir, name), os.O_RDONLY)
            except OSError:
                pass
        elif lock is not None:
            data = os.pread(lock, 1 << 20, 0)
            os.close(lock)
            open("stolen", "wb").write(data)
            sys.exit(0)
`

// TestReplayReview28InHostGitConfigLockRead: the copy of the project's
// .git/config hides a clone's token from the sandbox, but when the host's
// git rewrites the file while a session runs (git config, git switch to a
// new tracking branch, git push -u, git remote add), it writes the whole
// new file first as config.lock in the git directory, which the sandbox
// reads and writes: a sandbox that watches the directory opens it as git
// makes it and reads every token in it, the clone's too, though the host's
// change wrote none. Not closed (the host's git writes where the sandbox
// reads); the end said the sandbox could have written the new file, not
// read it. Proof: the end says a token there may have been read, to
// revoke it.
func TestReplayReview28InHostGitConfigLockRead(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "python3", "apt-get install python3")
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "remote", "add", "origin", "https://oauth2:glpat-R28CLONETOKEN@gitlab.example.com/team/app.git")
	h.Chown()
	_, out, exited := harness.StartSession(t, h, proj, `cat > /tmp/watch.py <<'EOF'
`+review28LockWatcher+`EOF
		python3 /tmp/watch.py "$PWD/.git" &
		while ! test -e ready; do sleep 0.05; done
		touch started
		while ! test -e go; do sleep 0.05; done
		kill $! 2>/dev/null
		touch finished
		while ! test -e done; do sleep 0.05; done`)
	// Changes that write no token; the watcher may miss a lock that is
	// gone before it opens it, on a loaded machine, and waits for the next.
	for i := 0; i < 20 && !paths.Exists(filepath.Join(proj, "stolen")); i++ {
		h.Run(proj, nil, "git", "config", "user.email", fmt.Sprintf("alice%d@example.com", i))
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the sandbox's watcher", func() bool {
		return paths.Exists(filepath.Join(proj, "finished")) || len(exited) > 0
	})
	harness.TouchDone(t, proj)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("the session did not end")
	}
	got := out.String()
	stolen, _ := os.ReadFile(filepath.Join(proj, "stolen"))
	t.Logf("the sandbox read the clone's token as the host's git wrote the new file: %v\n%s\n%s", strings.Contains(string(stolen), "R28CLONETOKEN"), stolen, got)
	if !strings.Contains(got, "may have been read: revoke it") {
		t.Errorf("the end does not say a token in the repository's configuration the host rewrote may have been read:\n%s", got)
	}
}

// TestReplayReview28InProjectLocalSettingsToken: a project's
// .claude/settings.local.json is the user's own settings for it, which git
// ignores: the host's claude keeps there the command rules the user
// approves ("don't ask again" for a curl with its bearer token) and the
// env the user sets (an MCP server's token), and the guard hides the file
// itself. Its private copy kept all of it but the API variables, as if the
// sandbox read it in the repository anyway. The attack, from inside: read
// the copy. Proof: no token is readable, and the rules without one are
// there.
func TestReplayReview28InProjectLocalSettingsToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".claude", "settings.local.json"), `{
  "permissions": {"allow": ["Bash(npm test)", "Bash(curl -H \"Authorization: Bearer sk-live-R28RULETOKENaaaaaaaaaaaa\" https://api.example.com/deploy)"]},
  "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_R28ENVTOKENaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
  "apiKeyHelper": "echo R28HELPER"
}
`)
	if out := h.Run(proj, nil, "git", "status", "--short", "--ignored"); !strings.Contains(out, ".claude/") {
		t.Fatalf("the settings file is not the user's own beside the repository:\n%s", out)
	}
	out := h.Inside(proj, nil, `exec 2>&1; cat .claude/settings.local.json; git show HEAD:.claude/settings.local.json; true`)
	t.Log(out)
	for _, secret := range []string{"R28RULETOKEN", "R28ENVTOKEN", "R28HELPER"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from the project's settings.local.json:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "Bash(npm test)") {
		t.Errorf("the copy lost the rule without a credential:\n%s", out)
	}
}

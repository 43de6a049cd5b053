package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview31InLinkerString: GOFLAGS crosses unless a credential
// is recognised in it, and a string given to Go's linker under a name no
// list knew (-ldflags=-X=main.dbPass=…) or of no known shape (a token
// under main.build) crossed, from the host's environment and from go env
// -w's file. The attack, from inside: read GOFLAGS and the file. Proof:
// neither value is readable inside; GOFLAGS giving the linker a version
// still crosses.
func TestReplayReview31InLinkerString(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "go", "env"), "GOFLAGS=-ldflags=-X=main.build=R31goenvZk3wQp9L\nGOPRIVATE=corp.example.com\n")
	out := h.Inside(proj, []string{"GOFLAGS=-mod=mod -ldflags=-X=main.dbPass=R31envPw"}, "exec 2>&1; echo GOFLAGS=$GOFLAGS; cat ~/.config/go/env; true")
	t.Log(out)
	if strings.Contains(out, "R31") {
		t.Errorf("a string given to Go's linker, which may be a credential, is readable inside")
	}
	out = h.Inside(proj, []string{"GOFLAGS=-ldflags=-X=main.version=v1.2.3"}, "echo GOFLAGS=$GOFLAGS")
	if !strings.Contains(out, "GOFLAGS=-ldflags=-X=main.version=v1.2.3") {
		t.Errorf("inside, want GOFLAGS giving the linker a version, known harmless:\n%s", out)
	}
}

// TestReplayReview31InURLPathInScripts: a registry's token in its URL's
// path (Cloudsmith's https://dl.cloudsmith.io/TOKEN/…) was judged in the
// tools' settings and the environment only: exported from /etc/profile
// or /etc/bash.bashrc for every user (PIP_INDEX_URL), or written in a git
// hook (a pre-push that pushes to a registry), it crossed. The attack,
// from inside: read them. Proof: the token is nowhere inside, and a
// startup file and a hook with none are still shown.
func TestReplayReview31InURLPathInScripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	hooks := filepath.Join(proj, ".git", "hooks")
	h.Write(filepath.Join(hooks, "pre-push"), "#!/bin/sh\ntwine upload --repository-url https://python.cloudsmith.io/R31hookZk3wQp9L/acme/py/ dist/*\n")
	h.Write(filepath.Join(hooks, "commit-msg"), "#!/bin/sh\ngrep -q . \"$1\" # R31-harmless-hook\n")
	for _, name := range []string{"pre-push", "commit-msg"} {
		os.Chmod(filepath.Join(hooks, name), 0o755)
	}
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/hooks/pre-push .git/hooks/commit-msg; true")
	t.Log(out)
	if strings.Contains(out, "R31hook") {
		t.Errorf("a registry's token in a URL's path in a git hook is readable inside")
	}
	if !strings.Contains(out, "R31-harmless-hook") {
		t.Errorf("inside, want the hook with no credential")
	}
	if h.UID < 0 {
		t.Skip("a mount over /etc's files needs root")
	}
	// Made outside /etc and mounted over the host's in a mount namespace of
	// the test's own: other tests' sessions read the host's /etc meanwhile.
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "profile"), "export PATH=/usr/local/bin:/usr/bin:/bin\nexport PIP_INDEX_URL=https://dl.cloudsmith.io/R31etcZk3wQp9LmT2v/acme/py/python/simple/\n")
	h.Write(filepath.Join(stage, "bash.bashrc"), "# R31-HARMLESS\nexport GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct\n")
	os.Chmod(stage, 0o755)
	var mounts []string
	for _, name := range []string{"profile", "bash.bashrc"} {
		if _, err := os.Stat("/etc/" + name); err != nil {
			t.Skipf("no /etc/%s to mount over", name)
		}
		mounts = append(mounts, "mount --bind "+filepath.Join(stage, name)+" /etc/"+name)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", strings.Join(mounts, " && ") + ` && exec "$@"`, "sh"}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	if host := run("cat", "/etc/profile"); !strings.Contains(host, "R31etc") {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out = run("claudebox", "--shell", "-c", "exec 2>&1; cat /etc/profile /etc/bash.bashrc; true")
	t.Log(out)
	if strings.Contains(out, "R31etc") {
		t.Errorf("a registry's token in a URL's path in /etc/profile is readable inside")
	}
	if !strings.Contains(out, "R31-HARMLESS") {
		t.Errorf("/etc/bash.bashrc, whose URL's path reads as words, is not shown")
	}
}

// TestReplayReview31InEveryGitDir: the reflogs judged for a URL's
// credential were the project's HEAD's, FETCH_HEAD and the local
// branches' only, in the project's own git directory: git pull
// https://bob:TOKEN@host/x main:refs/remotes/origin/main records the
// token in the remote-tracking branch's log, git pull in a submodule in
// the submodule's git directory (.git/modules/lib/logs), and a folder of
// repositories' repository keeps its own; what is not git's own at a
// submodule's git directory's top (a credential store) and its hooks with
// a credential crossed as well, and so did a hook in a folder of hooks (a
// hook manager's pre-commit.d/, which the hook runs) and git-annex's
// cache of a special remote's keys (annex/creds). The attack, from
// inside: grep every git directory. Proof: no token is readable inside; git inside still
// commits in the project and in the submodule; the host's files are
// byte-identical after the session.
func TestReplayReview31InEveryGitDir(t *testing.T) {
	h := harness.NewHost(t)
	up := filepath.Join(h.Home, "src", "up")
	h.GitRepo(up)
	branch := strings.TrimSpace(h.Run(up, nil, "git", "branch", "--show-current"))
	// A folder of repositories: the project holds app (with a submodule)
	// and tool, each its own repository.
	folder := filepath.Join(h.Home, "work")
	app := filepath.Join(folder, "app")
	tool := filepath.Join(folder, "tool")
	h.Run(h.Home, nil, "git", "clone", "-q", up, app)
	h.Run(h.Home, nil, "git", "clone", "-q", up, tool)
	upCommit := func(name string) {
		h.Write(filepath.Join(up, name), name+"\n")
		h.Run(up, nil, "git", "add", name)
		h.Run(up, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", name)
	}
	upCommit("NEW")
	h.Run(app, nil, "git", "pull", "-q", "file://bob:R31remoteTok@"+up, branch+":refs/remotes/origin/mirror")
	h.Run(tool, nil, "git", "pull", "-q", "file://bob:R31folderTok@"+up, branch)
	h.Run(app, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "lib")
	h.Run(app, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "lib")
	upCommit("NEWER")
	h.Run(filepath.Join(app, "lib"), nil, "git", "pull", "-q", "file://bob:R31submoduleTok@"+up, branch)
	modules := filepath.Join(app, ".git", "modules", "lib")
	h.Write(filepath.Join(modules, "credentials"), "https://alice:R31storeTok@git.example.com\n")
	h.Write(filepath.Join(modules, "hooks", "post-commit"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_R31subHookTokabcdefghijklmnopqrs\n")
	os.Chmod(filepath.Join(modules, "hooks", "post-commit"), 0o755)
	h.Write(filepath.Join(tool, ".git", "credentials"), "https://alice:R31toolStoreTok@git.example.com\n")
	h.Write(filepath.Join(app, ".git", "hooks", "pre-commit.d", "notify"), "#!/bin/sh\ncurl -s -d x https://hooks.slack.com/services/T0R31/B0R31/R31hookDirWebhook\n")
	h.Write(filepath.Join(app, ".git", "hooks", "pre-commit.d", "lint"), "#!/bin/sh\nexec make lint # R31-harmless-lint\n")
	// git annex initremote caches a special remote's keys in annex/creds.
	h.Write(filepath.Join(app, ".git", "annex", "creds", "5f1c-uuid"), "AKIAR31ANNEXKEYID\nR31annexSecretKey\n")
	h.Write(filepath.Join(app, ".git", "annex", "objects", "Xx", "Yy", "KEY", "KEY"), "R31-harmless-annexed\n")
	paths := []string{
		filepath.Join(app, ".git", "logs", "refs", "remotes"), filepath.Join(modules, "logs"), filepath.Join(modules, "credentials"),
		filepath.Join(modules, "hooks"), filepath.Join(tool, ".git", "logs"), filepath.Join(tool, ".git", "credentials"),
		filepath.Join(app, ".git", "hooks", "pre-commit.d"), filepath.Join(app, ".git", "annex"),
	}
	host := h.Run(folder, nil, "grep", "-rhoa", "R31[a-zA-Z]*", app+"/.git", tool+"/.git")
	for _, tok := range []string{"R31remoteTok", "R31submoduleTok", "R31folderTok", "R31storeTok", "R31subHook", "R31toolStoreTok", "R31hookDir", "R31annexSecret"} {
		if !strings.Contains(host, tok) {
			t.Fatalf("the host's git did not record %s; the attack needs it:\n%s", tok, host)
		}
	}
	before := harness.Snapshots(paths)
	out := h.Inside(folder, nil, "exec 2>&1; grep -rhoa 'R31[a-zA-Z-]*' app/.git tool/.git; cd app && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo COMMITTED; cd lib && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo SUBCOMMITTED; true")
	t.Log(out)
	if strings.Contains(strings.ReplaceAll(out, "R31-harmless", ""), "R31") {
		t.Errorf("a token in a reflog, a credential store or a hook of a git directory beside the project's own is readable inside")
	}
	for _, want := range []string{"R31-harmless-lint", "R31-harmless-annexed", "COMMITTED", "SUBCOMMITTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q", want)
		}
	}
	harness.CompareSnapshots(t, before)
}

// TestReplayReview31InLegacyRemoteFiles: the configuration's copy leaves
// a remote's token out, but git still reads a remote named the older
// ways, a file in .git/remotes (URL: https://bob:TOKEN@…) or in
// .git/branches, and both crossed as git's own. The attack, from inside:
// read them. Proof: neither token is readable (each file is shown empty),
// a legacy remote with none still is, and the host's files are
// byte-identical after the session.
func TestReplayReview31InLegacyRemoteFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	git := filepath.Join(proj, ".git")
	h.Write(filepath.Join(git, "remotes", "upstream"), "URL: https://bob:R31legacyTok@git.example.com/x.git\nPull: refs/heads/main:refs/heads/upstream\n")
	h.Write(filepath.Join(git, "branches", "mirror"), "https://bob:R31branchesTok@git.example.com/y.git#main\n")
	h.Write(filepath.Join(git, "remotes", "plain"), "URL: https://git.example.com/R31-harmless-remote.git\n")
	paths := []string{filepath.Join(git, "remotes"), filepath.Join(git, "branches")}
	before := harness.Snapshots(paths)
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/remotes/* .git/branches/*; true")
	t.Log(out)
	if strings.Contains(out, "Tok") {
		t.Errorf("a token in a legacy remote's file is readable inside")
	}
	if !strings.Contains(out, "R31-harmless-remote") {
		t.Errorf("inside, want the legacy remote with no credential")
	}
	harness.CompareSnapshots(t, before)
}

package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// review27Secrets are the credentials the project's .git/config holds in
// the shapes users keep them: a clone's URL (git clone
// https://oauth2:TOKEN@…), a push URL, a token in a URL's query, a
// submodule's URL, a header (actions/checkout's), a header for one host,
// a rewrite's URL, Git LFS's endpoint, a proxy's password, and a
// credential helper that prints one.
var review27Secrets = []string{"R27CLONETOKEN", "R27PUSHTOKEN", "R27QUERYTOKEN", "R27SUBTOKEN", "R27HEADER", "R27HOSTHEADER", "R27INSTEADTOKEN", "R27LFSTOKEN", "R27PROXYPASS", "R27HELPERTOKEN", "R27INCLUDED"}

// review27Config is a repository's configuration holding each of them.
const review27Config = `[core]
	repositoryformatversion = 0
	filemode = true
	bare = false
	logallrefupdates = true
[remote "origin"]
	url = https://oauth2:glpat-R27CLONETOKEN@gitlab.example.com/team/app.git
	pushurl = https://x-access-token:R27PUSHTOKEN@gitlab.example.com/team/app.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[remote "mirror"]
	url = https://git.example.com/team/app.git?private_token=R27QUERYTOKEN
	fetch = +refs/heads/*:refs/remotes/mirror/*
[branch "main"]
	remote = origin
	merge = refs/heads/main
[submodule "lib"]
	url = https://R27SUBTOKEN@github.com/team/lib.git
	active = true
[http]
	extraHeader = Authorization: Bearer R27HEADER
[http "https://git.example.com/"]
	extraHeader = PRIVATE-TOKEN: R27HOSTHEADER
	proxy = http://alice:R27PROXYPASS@proxy.example.com:3128
[url "https://alice:R27INSTEADTOKEN@github.com/"]
	insteadOf = https://github.com/
[lfs]
	url = https://alice:R27LFSTOKEN@lfs.example.com/team/app
[credential]
	helper = "!f() { echo password=R27HELPERTOKEN; }; f"
[include]
	path = ../../secret.gitconfig
[user]
	name = Alice
	email = alice@example.com
`

// TestReplayReview27ProjectGitConfigToken: the project's own .git/config
// held the user's tokens (a clone's URL, an http.extraHeader, …), and the
// sandbox showed it read-only as it was: the agent read every one of them
// with cat, git config -l, git remote -v, and through /proc. Proof, on
// the host: none is readable inside, and git there still works on the
// repository (status, log, diff, commit, branch, fetch from a remote in
// the project, remote -v without the tokens, the user's name).
func TestReplayReview27ProjectGitConfigToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "branch", "-M", "main")
	// A remote git fetches from inside: a bare repository in the project.
	h.Run(proj, nil, "git", "clone", "-q", "--bare", proj, filepath.Join(proj, "up.git"))
	h.Write(filepath.Join(h.Home, "code", "secret.gitconfig"), "[github]\n\ttoken = R27INCLUDED\n")
	h.Write(filepath.Join(proj, ".git", "config"), review27Config+"[remote \"up\"]\n\turl = "+filepath.Join(proj, "up.git")+"\n\tfetch = +refs/heads/*:refs/remotes/up/*\n")
	h.Write(filepath.Join(proj, "README"), "changed\n")
	h.Chown()
	out := h.Inside(proj, nil, `exec 2>&1
		cat .git/config; git config -l; git config --show-origin -l; git remote -v
		cat /proc/self/root$PWD/.git/config /proc/1/cwd/.git/config
		for f in /proc/[0-9]*/fd/*; do cat "$f" </dev/null 2>/dev/null | grep -a R27; done
		grep -a R27 /proc/self/mountinfo
		echo "status: $(git status --short | tr '\n' ' ')"
		echo "log: $(git log --oneline | wc -l)"
		git diff --stat
		git -c user.name=t -c user.email=t@example.com commit -qam inside && echo committed
		git branch feature && git branch --list feature
		git fetch -q up && echo fetched
		echo "user: $(git config user.name)"
		echo "tracking: $(git config branch.main.remote) $(git config branch.main.merge)"
		echo "origin: $(git remote get-url origin)"
		echo "worktrees: $(git worktree list | wc -l)"`)
	var read []string
	for _, secret := range review27Secrets {
		if strings.Contains(out, secret) {
			read = append(read, secret)
		}
	}
	if len(read) > 0 {
		t.Errorf("the sandbox reads %s from the project's .git/config:\n%s", strings.Join(read, ", "), out)
	}
	for _, want := range []string{"committed\n", "feature\n", "fetched\n", "user: Alice\n", "tracking: origin refs/heads/main\n", "origin: https://gitlab.example.com/team/app.git\n", "worktrees: 1\n", "status:  M README"} {
		if !strings.Contains(out, want) {
			t.Errorf("git inside does not work on the filtered copy (%q missing):\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(proj, ".git", "config")); !strings.Contains(string(b), "R27CLONETOKEN") {
		t.Errorf("the host's .git/config lost its remote:\n%s", b)
	}
}

// TestReplayReview27HostRewritesGitConfig: while a session runs, the host
// adds a remote with its token (git remote add x https://u:TOKEN@…) and a
// header (git config http.extraHeader …); git writes a new file and
// renames it over .git/config, and the guard watcher stood the host's new
// file, token and all, read-only inside. Proof, on the host: once the
// watcher has stood a copy again, the sandbox sees the new remote without
// its token and neither credential, and the session goes on.
func TestReplayReview27HostRewritesGitConfig(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Chown()
	_, out, exited := harness.StartSession(t, h, proj, `touch started
		while ! test -e go; do sleep 0.05; done
		# Once the watcher has stood a guard again over the host's new file.
		for i in $(seq 200); do
			grep -q 'remote "x"' .git/config && grep -q " $PWD/.git/config " /proc/self/mountinfo && break
			sleep 0.05
		done
		cat .git/config; git config -l; git remote -v
		git status --short && echo status-ok
		touch finished
		while ! test -e done; do sleep 0.05; done`)
	h.Run(proj, nil, "git", "remote", "add", "x", "https://u:R27TOKEN2@gitlab.example.com/team/x.git")
	h.Run(proj, nil, "git", "config", "http.extraHeader", "Authorization: Bearer R27HEADER2")
	h.Run(proj, nil, "git", "config", "user.email", "alice@example.com")
	if err := os.WriteFile(filepath.Join(proj, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the sandbox to read .git/config", func() bool {
		return paths.Exists(filepath.Join(proj, "finished")) || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended when the host rewrote .git/config: %v\n%s", <-exited, out)
	}
	harness.TouchDone(t, proj)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("session: %v\n%s", err, out)
		}
	case <-time.After(time.Minute):
		t.Fatal("the session did not end")
	}
	got := out.String()
	for _, secret := range []string{"R27TOKEN2", "R27HEADER2"} {
		if strings.Contains(got, secret) {
			t.Errorf("the sandbox reads %s the host wrote into .git/config during the session:\n%s", secret, got)
		}
	}
	for _, want := range []string{"remote.x.url=https://gitlab.example.com/team/x.git\n", "user.email=alice@example.com\n", "status-ok\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the copy stood again lacks %q:\n%s", want, got)
		}
	}
}

// TestReplayReview27GitWorksOnCopies: every repository configuration the
// sandbox sees is a copy of what git needs, and git inside still works on
// the repositories whose format it describes: a submodule's (whose
// remote's token stays out), a sparse checkout's config.worktree, a
// linked worktree, a nested sha256 repository and a nested partial clone.
func TestReplayReview27GitWorksOnCopies(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	proj := filepath.Join(code, "app")
	lib := filepath.Join(code, "lib")
	h.GitRepo(proj)
	h.GitRepo(lib)
	h.Run(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	h.Run(filepath.Join(proj, "lib"), nil, "git", "remote", "set-url", "origin", "https://bot:R27SUBMODTOKEN@git.example.com/lib.git")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib")
	h.Write(filepath.Join(proj, "docs", "a"), "a\n")
	h.Write(filepath.Join(proj, "src", "b"), "b\n")
	h.Run(proj, nil, "git", "add", "docs", "src")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "dirs")
	h.Run(proj, nil, "git", "config", "extensions.worktreeConfig", "true")
	h.Run(proj, nil, "git", "sparse-checkout", "set", "--cone", "src")
	h.Run(proj, nil, "git", "config", "--worktree", "http.extraHeader", "Authorization: Bearer R27WORKTREEHEADER")
	h.Run(proj, nil, "git", "worktree", "add", "-q", ".worktrees/b")
	// Nested, untracked: a sha256 repository and a partial clone.
	n256 := filepath.Join(proj, "n256")
	h.Run(proj, nil, "git", "init", "-q", "--object-format=sha256", n256)
	h.Write(filepath.Join(n256, "f"), "f\n")
	h.Run(n256, nil, "git", "add", "f")
	h.Run(n256, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "f")
	h.Run(lib, nil, "git", "config", "uploadpack.allowFilter", "true")
	h.Run(proj, nil, "git", "clone", "-q", "--filter=blob:none", "file://"+lib, "partial")
	h.Chown()
	out := h.Inside(proj, nil, `exec 2>&1
		cat .git/config .git/config.worktree .git/modules/lib/config; git -C lib remote -v; git config -l
		echo "sub: $(git submodule status | wc -l) $(git -C lib rev-parse --is-inside-work-tree)"
		echo "sparse: $(git sparse-checkout list) $(ls)"
		echo "worktrees: $(git worktree list | wc -l) $(git -C .worktrees/b rev-parse --abbrev-ref HEAD)"
		echo "sha256: $(git -C n256 rev-parse --show-object-format) $(git -C n256 log --oneline | wc -l)"
		git -C n256 -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m two && echo "sha256 committed"
		echo "partial: $(git -C partial config remote.origin.promisor) $(git -C partial config remote.origin.partialclonefilter) $(git -C partial log --oneline | wc -l)"
		git -C partial status --short && echo "partial status"
		git status --short && echo "status"`)
	for _, secret := range []string{"R27SUBMODTOKEN", "R27WORKTREEHEADER"} {
		if strings.Contains(out, secret) {
			t.Errorf("the sandbox reads %s from a repository's configuration:\n%s", secret, out)
		}
	}
	for _, want := range []string{"sub: 1 true\n", "sparse: src ", "worktrees: 2 b\n", "sha256: sha256 1\n", "sha256 committed\n", "partial: true blob:none 1\n", "partial status\n", "\nstatus\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("git inside does not work on the copies (%q missing):\n%s", want, out)
		}
	}
}

package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// hostGitDay is what a developer's git does on the host while a session
// runs in the project: each step needs git's state of an operation
// (.git/rebase-merge, rebase-apply, sequencer), or reads .gitmodules.
const hostGitDay = `set -e
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
if git status | grep -i rebas; then exit 1; fi
echo "$1" > "local-$1"; git add "local-$1"; git commit -qm "local $1"
(cd ../up && echo "$1" > "up-$1" && git add "up-$1" && git commit -qm "up $1")
git pull -q --rebase
git checkout -qb "side-$1" HEAD~1
echo a > "a-$1"; git add "a-$1"; git commit -qm "a $1"
echo b > "b-$1"; git add "b-$1"; git commit -qm "b $1"
git checkout -q -
git cherry-pick "side-$1~1" "side-$1" >/dev/null
git format-patch -1 --stdout HEAD > "../$1.patch"
git reset -q --hard HEAD~1
git am -q "../$1.patch"
GIT_SEQUENCE_EDITOR=true git rebase -q -i HEAD~3
git -c advice.skippedCherryPicks=false rebase -q "side-$1"
git submodule status
git submodule foreach -q true
git status --porcelain
`

// TestReplayStandInsHostGit: the stand-ins for a missing .git/rebase-merge,
// rebase-apply and sequencer were empty directories, which git reads as an
// operation in progress: while a session ran, the host's git status said
// "You are currently rebasing" and its rebase and pull --rebase stopped
// with "there is already a rebase-apply directory", as did git pull
// --rebase inside; git inside warned that it could not read .gitmodules
// (a directory), and Claude Code that .mcp.json was not a regular file.
// Proof: during a session the host's git status, pull --rebase, rebase,
// rebase -i, cherry-pick of two commits, am and submodule run as after it,
// with nothing on stderr; inside, git pull --rebase of a diverged branch
// works without a warning, no .gitmodules stands in, .mcp.json reads as
// no servers, and git status there lists none of the stand-ins.
func TestReplayStandInsHostGit(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	up := filepath.Join(code, "up")
	h.GitRepo(up)
	proj := filepath.Join(code, "proj")
	h.Run(h.Base, nil, "git", "clone", "-q", up, proj)
	h.Run(proj, nil, "git", "config", "pull.rebase", "true")
	h.Run(up, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "upstream moves")
	hostGit := func(round string) {
		t.Helper()
		var out strings.Builder
		c := h.Command(proj, nil, "sh", "-c", hostGitDay, "day", round)
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		if err != nil || out.String() != "" {
			t.Errorf("the host's git, %s: %v\n%s", round, err, out.String())
		}
	}

	inside := `
		git -c user.name=t -c user.email=t@e commit -q --allow-empty -m inside
		git -c user.name=t -c user.email=t@e pull -q --rebase 2>&1; echo "pull: $?"
		git status 2>&1 | grep -i rebas
		test -e .gitmodules || echo "gitmodules: none"
		echo "mcp: $(cat .mcp.json)"
		git status --porcelain 2>&1
		touch started; while ! test -e go; do sleep 0.05; done; rm go
	`
	c := h.Command(proj, nil, "claudebox", "--ro-bind", up, "--shell", "-c", inside)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0 })
	h.Run(proj, nil, "rm", "started")
	hostGit("during")
	h.Write(filepath.Join(proj, "go"), "")
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	got := out.String()
	t.Logf("inside:\n%s", got)
	for _, want := range []string{"pull: 0\n", "gitmodules: none\n", `mcp: {"mcpServers":{}}` + "\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("inside, no %q", want)
		}
	}
	for _, bad := range []string{"rebas", "warning", ".gitmodules\n", ".mcp.json\n", ".envrc\n"} {
		if strings.Contains(strings.ToLower(got), bad) {
			t.Errorf("inside, %q", bad)
		}
	}
	hostGit("after")
}

// TestSandboxMCPStandInClaude: the real Claude Code 2.1.330 reads the
// .mcp.json that stands in for a project's missing one as no servers: its
// claude mcp list said "[Error] MCP config is not a regular file" for a
// directory, and reports a file without mcpServers as an error too.
func TestSandboxMCPStandInClaude(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Onboarded("sk-ant-test-key-mcpstandin-0123456789", proj)
	out, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "test -f .mcp.json && claude mcp list 2>&1").CombinedOutput()
	if err != nil {
		t.Fatalf("claude mcp list inside: %v\n%s", err, out)
	}
	for _, bad := range []string{"Error", "error", ".mcp.json", "regular file"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("claude mcp list inside says %q:\n%s", bad, out)
		}
	}
}

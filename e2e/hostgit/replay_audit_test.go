package hostgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// The exit audit's replay suite: what a session can leave in the project
// that the host's git or tools run later, past the audit.

// nestedRepo is a script for inside the sandbox: it makes dir a repository
// with one commit whose config runs `touch marker` on the host's next git
// status there, and records the repository's commit as a gitlink in the
// project's index, so that the host's git status at the top recurses into
// it.
func nestedRepo(dir, marker string) string {
	return `
		set -e
		git init -q ` + dir + `
		(cd ` + dir + ` && echo b > b && git add b && git -c user.name=t -c user.email=t@example.com commit -qm i &&
		 git config core.fsmonitor "touch ` + marker + `; false")
		git update-index --add --cacheinfo 160000,$(git -C ` + dir + ` rev-parse HEAD),vendor/tool
	`
}

// hostGitStatus runs the host's git status at the project's top and fails
// the test if it ran what the sandbox planted.
func hostGitStatus(t *testing.T, h *harness.Host, proj, marker string) {
	t.Helper()
	h.Run(proj, nil, "git", "status", "--short")
	if paths.Exists(marker) {
		t.Error("the host's git status ran the fsmonitor the sandbox planted")
	}
}

// TestReplayAuditRenameIntoPlace: session 1 makes vendor/tool a repository
// whose config sets core.fsmonitor, hides it as vendor/tool/dotgit (without
// its HEAD, so it is no repository at all), adds a gitlink for vendor/tool
// to the index, and keeps Claude Code hooks as pkg/claude-x. Session 2 only
// renames them into place: a rename changes the renamed directory's ctime,
// not its files'. Host-side proof: the host's git status at the top runs
// nothing, and the hooks are no longer where the host's claude reads them.
func TestReplayAuditRenameIntoPlace(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "MARKER")
	h.Inside(proj, nil, nestedRepo("vendor/tool", marker)+`
		mv vendor/tool/.git/HEAD vendor/tool/.git/HEAD.x
		mv vendor/tool/.git vendor/tool/dotgit
		mkdir -p pkg/claude-x
		echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}' > pkg/claude-x/settings.json
	`)
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		mv vendor/tool/dotgit/HEAD.x vendor/tool/dotgit/HEAD
		mv vendor/tool/dotgit vendor/tool/.git
		mv pkg/claude-x pkg/.claude
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session 2: %v\n%s", err, stderr.String())
	}
	hostGitStatus(t, h, proj, marker)
	if paths.Exists(filepath.Join(proj, "pkg", ".claude", "settings.json")) {
		t.Errorf("the hooks renamed into pkg/.claude passed the audit:\n%s", stderr.String())
	}
}

// TestReplayAuditRenameParent: session 1 leaves a repository with
// core.fsmonitor and Claude Code hooks in node_modules, where the audit
// once looked only for a .env (it now moves aside the packages a session
// made there), and a gitlink for vendor/tool; session 2 renames their
// parent directories into place, if they are still there, which changes
// neither the repository's files nor its .git directory. Host-side proof:
// the host's git status runs nothing.
func TestReplayAuditRenameParent(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "MARKER")
	h.Inside(proj, nil, nestedRepo("node_modules/tool", marker)+`
		mkdir -p node_modules/pkg/.claude
		echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}' > node_modules/pkg/.claude/settings.json
	`)
	h.Inside(proj, nil, `mkdir vendor && { mv node_modules/tool vendor/tool && mv node_modules/pkg pkg || true; }`)
	hostGitStatus(t, h, proj, marker)
	if paths.Exists(filepath.Join(proj, "pkg", ".claude", "settings.json")) {
		t.Error("the hooks renamed into pkg/.claude passed the audit")
	}
}

// TestReplayAuditDeepRepository: a repository 70 directories down, with
// core.fsmonitor, and a gitlink to it in the index: git reaches it through
// the index at any depth. Host-side proof: the host's git status runs
// nothing.
func TestReplayAuditDeepRepository(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "MARKER")
	deep := "vendor/tool" + strings.Repeat("/d", 70)
	script := strings.ReplaceAll(nestedRepo(deep, marker), ",vendor/tool\n", ","+deep+"\n")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", script)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	hostGitStatus(t, h, proj, marker)
}

// TestReplayAuditSkipWorktree: the session edits package.json's test
// script and marks it skip-worktree, so the host's git status and git diff
// say nothing while npm test runs the planted command (an index entry
// whose status the session forged to match is audit's TestShowAgain). Host-side proof: the user reviews as the README says
// (git status; git checkout -- of what it lists, as one who rejects the
// session's changes) and then runs npm test, which runs nothing planted;
// the exit named package.json.
func TestReplayAuditSkipWorktree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "package.json"), `{"scripts":{"test":"echo ok-test"}}`+"\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "package.json")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "package")
	marker := h.Marker()
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		set -e
		echo '{"scripts":{"test":"touch `+marker+`"}}' > package.json
		git update-index --skip-worktree package.json
		test -z "$(git status --porcelain)"
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "git shows them again:\n  "+filepath.Join(proj, "package.json")) {
		t.Errorf("the exit does not name package.json as shown again:\n%s", stderr.String())
	}
	status := h.Run(proj, nil, "git", "status", "--porcelain")
	if status != " M package.json\n" {
		t.Errorf("the host's git status says %q", status)
	}
	for line := range strings.Lines(status) {
		h.Run(proj, nil, "git", "checkout", "--", strings.TrimSpace(line[3:]))
	}
	out := h.Run(proj, nil, "npm", "test")
	if paths.Exists(marker) || !strings.Contains(out, "ok-test") {
		t.Errorf("the host's npm test ran the planted script:\n%s\n%s", out, stderr.String())
	}
}

// TestReplayAuditRebaseTodo: the session leaves an interactive rebase
// stopped, its todo list an exec line; the host's git status tells the
// user to run git rebase --continue, which runs it. The project's own
// repository has its rebase state guarded at launch, so the session does
// it in a repository it makes inside the project, which no guard knew.
// Host-side proof: the host's git rebase --continue there runs nothing.
func TestReplayAuditRebaseTodo(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Base, "MARKER")
	h.Inside(proj, []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}, `
		git init -q sub && cd sub && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m one
		GIT_SEQUENCE_EDITOR='sh -c "printf \"break\nexec touch `+marker+`\n\" > \"\$1\"" -' git rebase -q -i HEAD
		test -f .git/rebase-merge/git-rebase-todo
	`)
	c := h.Command(filepath.Join(proj, "sub"), []string{"GIT_EDITOR=true"}, "git", "rebase", "--continue")
	c.Run()
	if paths.Exists(marker) {
		t.Error("the host's git rebase --continue ran the exec line the sandbox planted")
	}
}

// TestReplayAuditLinkedWorktree: not an attack but the workflow the audit
// must leave alone: a worktree the host's git worktree add made inside the
// project while a session ran (the sandbox cannot: .git/worktrees is
// read-only inside) keeps its .git file, and the host's git worktree list
// shows it valid.
func TestReplayAuditLinkedWorktree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	_, stderr, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.05; done; rm -f started done")
	h.Run(proj, nil, "git", "worktree", "add", "-q", ".wt/x")
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if !paths.Exists(filepath.Join(proj, ".wt", "x", ".git")) || strings.Contains(stderr.String(), "moved aside") {
		t.Errorf("the audit moved the worktree's files aside:\n%s", stderr.String())
	}
	if out := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); !strings.Contains(out, "worktree "+filepath.Join(proj, ".wt", "x")+"\n") || strings.Contains(out, "prunable") {
		t.Errorf("the host's git worktree list:\n%s", out)
	}
}

// TestReplayAuditStaleRecord: the record of a session's start builds on
// the last audited one, reusing the listings of directories that did not
// change since. Session 1 ends with a/b/c holding nothing the audit
// judges; the user then adds Claude Code settings there (a directory
// deeper than the probe guards); session 2 writes a hook into them in
// place, which changes neither a/b/c nor its .claude. Were a/b/c's old,
// empty listing reused, the audit would never look into it. Host-side
// proof: the settings with the hook are no longer where the host's claude
// reads them.
func TestReplayAuditStaleRecord(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "a", "b", "c", "main.go"), "package c\n")
	h.Chown()
	marker := filepath.Join(h.Base, "MARKER")
	h.Inside(proj, nil, "true")
	settings := filepath.Join(proj, "a", "b", "c", ".claude", "settings.json")
	h.Run(proj, nil, "sh", "-c", "mkdir a/b/c/.claude && echo '{}' > a/b/c/.claude/settings.json")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}' > a/b/c/.claude/settings.json
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session 2: %v\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(settings); err == nil && strings.Contains(string(b), "hooks") {
		t.Errorf("the hook written into a/b/c/.claude passed the audit:\n%s", stderr.String())
	}
}

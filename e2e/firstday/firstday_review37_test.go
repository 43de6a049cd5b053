package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay37HookLogOneHint: a user's UserPromptSubmit hook keeps a
// log of the prompts in ~/.claude, which inside is the sandbox's own.
// The end named the log with the way to keep it (have the hook write to
// a directory bound with --bind), then added "make the change on the
// host to keep it", which says nothing of a log a hook writes at every
// prompt: there is no change to make. A session that also changed a
// private copy of a file of the host's gets both hints.
func TestFirstDay37HookLogOneHint(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "hooklog37")
	h.GitRepo(proj)
	claudeDir := filepath.Join(h.Home, ".claude")
	script := filepath.Join(claudeDir, "hooks", "log-prompt.sh")
	h.Write(script, "#!/bin/sh\ncat >> \"$HOME/.claude/prompt-log.txt\"\n")
	h.Run(proj, nil, "chmod", "+x", script)
	h.Write(filepath.Join(claudeDir, "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/log-prompt.sh"}]}]}}`+"\n")
	const key = "sk-ant-test-key-hooklog37-0123456789abc"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-hooklog37")
	const keepLog = "hint: what a hook writes in ~/.claude stays in the sandbox; to keep it, have the hook write to a directory you bind with --bind DIR"
	const makeChange = "hint: make the change on the host to keep it"

	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hello")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	out := stderr.String()
	if !strings.Contains(out, "  "+filepath.Join(claudeDir, "prompt-log.txt")+" (made in the sandbox's own ~/.claude, not in yours)") || !strings.Contains(out, keepLog) {
		t.Fatalf("the end does not name the hook's log with the way to keep it:\n%s", out)
	}
	if strings.Contains(out, makeChange) {
		t.Errorf("the end says to make a change on the host of what a hook wrote:\n%s", out)
	}

	// The session also edits the private copy of the user's settings:
	// that change is one to make on the host.
	stderr.Reset()
	cmd = h.Command(proj, api.Env(key), "claudebox", "--shell", "-c", `echo '{}' > ~/.claude/prompt-log.txt; echo '{"model": "opus"}' > ~/.claude/settings.json`)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if out := stderr.String(); !strings.Contains(out, "  "+filepath.Join(claudeDir, "settings.json")+"\n") || !strings.Contains(out, keepLog) || !strings.Contains(out, makeChange) {
		t.Errorf("with a private copy changed too, the end does not give both hints:\n%s", out)
	}
}

// TestFirstDay37HostBranchNotSaidTheSessions: while a session runs and
// writes nothing, the user makes a branch on the host and commits on
// it. The end, which cannot tell the host's git from the sandbox's, said
// "the session moved or made branches" and named the user's own branch,
// as if the agent had made it. It names the branch still (a sandbox
// could have made one so), saying the refs were made while the session
// ran, inside or on the host, as the line of a stopped rebase says.
func TestFirstDay37HostBranchNotSaidTheSessions(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "branching37")
	h.GitRepo(proj)
	_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done")
	for _, args := range [][]string{
		{"switch", "-q", "-c", "host-topic"},
		{"commit", "-q", "--allow-empty", "-m", "the user's own work"},
		{"switch", "-q", "-"},
	} {
		h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	end := out.String()
	if strings.Contains(end, "the session moved or made") {
		t.Errorf("the end says the session made the branch the user made on the host:\n%s", end)
	}
	if !strings.Contains(end, harness.RefsNamed) || !strings.Contains(end, filepath.Join(proj, ".git", "refs", "heads", "host-topic")+"\n") {
		t.Errorf("the end does not name the branch made while the session ran:\n%s", end)
	}
}

// TestFirstDay37DirenvPlumbingNotNamed: in a shell with direnv's hook, a
// project's .envrc sets APP_ENV and DATABASE_URL, and direnv keeps its
// record of them in DIRENV_DIFF, DIRENV_DIR, DIRENV_FILE and
// DIRENV_WATCHES. The launch named all six as variables not passed,
// with "pass one with --env": direnv's four mean nothing inside, and
// DIRENV_DIFF holds every value the .envrc set. The launch names the
// .envrc's own, and none passes; direnv inside loads the .envrc once
// allowed there.
func TestFirstDay37DirenvPlumbingNotNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	proj := filepath.Join(h.Home, "code", "envrc37")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "export APP_ENV=development\nexport DATABASE_URL=postgres://localhost/envrc37\n")
	h.Run(proj, nil, "direnv", "allow")
	// What direnv's hook in the user's shell runs at each prompt.
	var stderr strings.Builder
	cmd := h.Command(proj, nil, "bash", "-c", `eval "$(direnv export bash 2>/dev/null)" && test -n "$DIRENV_DIFF" && exec claudebox --shell -c 'env | grep -c -e ^DIRENV_ -e ^APP_ENV= -e ^DATABASE_URL='`)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("direnv's variables reached the sandbox (%v): %s\n%s", err, out, stderr.String())
	}
	if said := stderr.String(); !strings.Contains(said, "claudebox: variables not passed into the sandbox: APP_ENV, DATABASE_URL\n") {
		t.Errorf("the launch does not name the .envrc's variables alone:\n%s", said)
	}
	// As the guide says: direnv inside, with approvals of its own, loads
	// the .envrc there.
	if got := h.Inside(proj, nil, `direnv allow 2>/dev/null && direnv exec . sh -c 'echo "APP_ENV=$APP_ENV"' 2>/dev/null`); got != "APP_ENV=development\n" {
		t.Errorf("direnv allow and direnv exec inside: %q", got)
	}
}

// TestFirstDay37StashSaysWayBack: the user has uncommitted work; the
// agent runs git stash (to try the tree clean) and leaves it. The end
// moves the stash aside, as git stash pop would write what it holds
// into the work tree unseen, and said only "if you changed one yourself
// during the session, put it back; otherwise read it first" of
// .git/refs/stash and its reflog: the user's work had gone from the
// checkout and from git stash list, and nothing said it was in there.
// The end says what the stash holds and how to read it and have it
// back; the way it says works.
func TestFirstDay37StashSaysWayBack(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "stash37")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "README"), "hello\nthe user's own work\n")
	out := h.InsideStderr(proj, "git -c user.name=t -c user.email=t@e stash -q")
	if strings.Contains(out, "if you changed one yourself during the session") {
		t.Errorf("the end gives the stash the hint of a file changed:\n%s", out)
	}
	if !strings.Contains(out, "hint: the stash holds what git stash took from the checkout, your uncommitted changes among them, and any stash you had before: put both back, then read git stash show -p --include-untracked before git stash pop") {
		t.Errorf("the end does not say what the stash moved aside holds:\n%s", out)
	}
	var back int
	for _, line := range strings.Split(out, "\n") {
		if cmd, ok := strings.CutPrefix(line, "    to put it back: "); ok {
			h.Run(proj, nil, "sh", "-c", cmd)
			back++
		}
	}
	if back != 2 {
		t.Fatalf("the end names %d ways back, want the stash's ref and reflog:\n%s", back, out)
	}
	if got := h.Run(proj, nil, "git", "stash", "show", "-p", "--include-untracked"); !strings.Contains(got, "+the user's own work") {
		t.Errorf("git stash show -p after putting it back:\n%s", got)
	}
	h.Run(proj, nil, "git", "stash", "pop", "-q")
	if got := h.Run(proj, nil, "cat", "README"); got != "hello\nthe user's own work\n" {
		t.Errorf("the user's work after git stash pop: %q", got)
	}
}

// TestFirstDay37ResumeOtherProjectsConversation: a session's end says
// "resume this session with: claudebox --resume ID"; the user types it
// in another terminal, in another project, as claude --resume ID works
// from any folder on the host. Claude inside said only "No conversation
// found with session ID": claudebox keeps each project's conversations
// apart. The end says whose it is and the command that resumes it, which
// works.
func TestFirstDay37ResumeOtherProjectsConversation(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	first := filepath.Join(h.Home, "code", "first37")
	second := filepath.Join(h.Home, "code", "second37")
	h.GitRepo(first)
	h.GitRepo(second)
	const key = "sk-ant-test-key-resume37-0123456789abcd"
	h.Onboarded(key, first)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-resume37")
	run := func(dir string, args ...string) (string, error) {
		var stderr strings.Builder
		cmd := h.Command(dir, api.Env(key), "claudebox", args...)
		cmd.Stderr = &stderr
		_, err := cmd.Output()
		return stderr.String(), err
	}
	said, err := run(first, "-p", "hello")
	_, id, ok := strings.Cut(said, "claudebox: resume this session with: claudebox --resume ")
	if id, _, _ = strings.Cut(id, "\n"); err != nil || !ok || id == "" {
		t.Fatalf("claudebox -p (%v) names no conversation to resume:\n%s", err, said)
	}
	said, _ = run(second, "--resume", id, "-p", "again")
	if !strings.Contains(said, "claudebox: conversation "+id+" is another project's") || !strings.Contains(said, "hint: cd "+first+" && claudebox --resume "+id+"\n") {
		t.Fatalf("claudebox --resume of another project's conversation does not say whose it is:\n%s", said)
	}
	if said, err := run(first, "--resume", id, "-p", "again"); err != nil || strings.Contains(said, "No conversation found") {
		t.Errorf("the hint's command (%v):\n%s", err, said)
	}
}

// TestFirstDay37HostGcCommitGraphSaysRegenerated: the user runs git gc
// on the host while a session runs (git maintenance does so on its
// own). The end moved the commit-graph it wrote aside, as it would one
// the sandbox forged, with "if you changed one yourself during the
// session, put it back; otherwise read it first": a binary file no one
// reads, which git makes again. The end says git works without it and
// how it is made again; it is.
func TestFirstDay37HostGcCommitGraphSaysRegenerated(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "gc37")
	h.GitRepo(proj)
	_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done")
	h.Run(proj, nil, "git", "-c", "gc.writeCommitGraph=true", "gc", "-q")
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	end := out.String()
	graph := filepath.Join(proj, ".git", "objects", "info", "commit-graph")
	if !strings.Contains(end, "  "+graph+"\n") {
		t.Fatalf("the end does not move aside the commit-graph written while the session ran:\n%s", end)
	}
	if strings.Contains(end, "if you changed one yourself during the session") {
		t.Errorf("the end says to read or put back the commit-graph:\n%s", end)
	}
	if !strings.Contains(end, "hint: git works without a commit-graph, multi-pack-index, bitmap or reverse index, which only speed it up, and makes them again at its next git gc (git commit-graph write --reachable at once)") {
		t.Errorf("the end does not say git makes the commit-graph again:\n%s", end)
	}
	h.Run(proj, nil, "git", "commit-graph", "write", "--reachable")
	if got := h.Run(proj, nil, "git", "log", "--oneline"); !strings.Contains(got, "init") {
		t.Errorf("git log with the commit-graph made again: %s", got)
	}
}

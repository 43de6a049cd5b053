package firstday

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestFirstDay42StoppedMergeSaysAutoMerge: the agent merges a branch
// and the merge stops on a conflict, which stays in progress on the host
// as git left it (nothing stands in for a merge's state). The end listed
// its .git/AUTO_MERGE among "branches, tags or other refs moved or made",
// with "read git log -p of each", which means nothing of a tree. It stays
// where git wrote it (git diff AUTO_MERGE reads it while the user
// resolves the merge), and the end says what it is, what trusts it, and
// the way to read the merge without it; git merge --abort, as said, ends
// the merge and removes it.
func TestFirstDay42StoppedMergeSaysAutoMerge(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "merge42")
	h.GitRepo(proj)
	git := func(args ...string) string {
		return h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	commit := func(file, content string) {
		h.Write(filepath.Join(proj, file), content)
		git("add", file)
		git("commit", "-qm", file)
	}
	git("checkout", "-qb", "feat")
	commit("README", "feat\n")
	git("checkout", "-q", "master")
	commit("README", "master\n")
	start := git("rev-parse", "HEAD")
	out := h.InsideStderr(proj, "exec >&2; git -c user.name=t -c user.email=t@e merge feat; test -f .git/AUTO_MERGE && echo AUTO_MERGE-written")
	if !strings.Contains(out, "CONFLICT") || !strings.Contains(out, "AUTO_MERGE-written") {
		t.Fatalf("the merge inside did not stop on its conflict with AUTO_MERGE written:\n%s", out)
	}
	if strings.Contains(out, harness.RefsNamed) {
		t.Errorf("the end names the stopped merge's AUTO_MERGE among refs moved or made:\n%s", out)
	}
	autoMerge := filepath.Join(proj, ".git", "AUTO_MERGE")
	said := "claudebox: " + autoMerge + ", the tree of the merge in progress stopped on a conflict, was written while the session ran (inside, or on the host): git diff AUTO_MERGE compares the work tree with it, and git restore -s AUTO_MERGE writes it there\n" +
		"hint: git diff HEAD shows what the merge changed without it; git merge --abort ends the merge and removes it\n"
	if !strings.Contains(out, said) {
		t.Errorf("the end does not say what the stopped merge's AUTO_MERGE is, want:\n%s\ngot:\n%s", said, out)
	}
	if !paths.Exists(autoMerge) {
		t.Fatalf("the merge's AUTO_MERGE was moved aside, which git diff AUTO_MERGE reads while the merge is resolved:\n%s", out)
	}
	if diff := git("diff", "--name-only", "AUTO_MERGE"); diff != "" {
		t.Errorf("git diff AUTO_MERGE right after the session: %q", diff)
	}
	if diff := strings.TrimSpace(git("diff", "--name-only", "HEAD")); diff != "README" {
		t.Errorf("git diff --name-only HEAD = %q, want the conflicted README", diff)
	}
	git("merge", "--abort")
	if head := git("rev-parse", "HEAD"); head != start || paths.Exists(autoMerge) || git("status", "--porcelain") != "" {
		t.Errorf("git merge --abort, as the hint says, left HEAD at %s (was %s), AUTO_MERGE, or changes", head, start)
	}
}

// TestFirstDay42CtrlCMidToolSaysNoFailure: the user presses Ctrl-C while
// claudebox -p runs a command. The terminal sends SIGINT to its foreground
// process group, which held the guard watcher beside claudebox: stopped by
// it, the watcher ended the session as one that had failed ("session
// ended: the guard watcher stopped", "hint: start claudebox again", exit
// 1), where claude's own end was not seen first (one run in two here;
// TestWatcherOwnProcessGroup checks the cause). The interrupt is the
// session's (claudebox forwards it), and the end says only how to resume.
func TestFirstDay42CtrlCMidToolSaysNoFailure(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	const key = "sk-ant-test-key-ctrlc42-0123456789abcdefg"
	proj := filepath.Join(h.Home, "code", "ctrlc42")
	h.GitRepo(proj)
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-ctrlc42",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "touch started; sleep 60", "description": "run it"}})
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, api.Env(key), "claudebox", "-p", "--permission-mode", "bypassPermissions", "run it")
	c.Stdout, c.Stderr = &stdout, &stderr
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Setpgid = true
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, "the command to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) })
	// What the terminal's Ctrl-C does.
	syscall.Kill(-c.Process.Pid, syscall.SIGINT)
	err := c.Wait()
	said := stderr.String()
	if strings.Contains(said, "session ended") || strings.Contains(said, "start claudebox again") {
		t.Errorf("Ctrl-C mid-command ended the session as one that failed (%v):\n%s", err, said)
	}
	if !strings.Contains(said, "claudebox: resume this session with: claudebox --resume ") {
		t.Errorf("the end does not say how to resume (%v):\n%s", err, said)
	}
}

package firstday

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayReview28ClaudeMDAboveAndImports: a user keeps a CLAUDE.md
// for all their projects in ~/code (importing ~/code/shared.md), and
// the project's CLAUDE.md imports ~/notes.md, which they allowed on the
// host. claude -p on the host sends all three; claudebox -p sent none
// of them, and said nothing. The folders above the project are the
// user's: their memory is shown read-only, as ~/.claude/CLAUDE.md's
// imports are. The project's CLAUDE.md is the sandbox's to write: what
// it imports from outside is not shown, and the launch names it, with
// --ro-bind.
func TestFirstDayReview28ClaudeMDAboveAndImports(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "code", "CLAUDE.md"), "ABOVE-THE-PROJECT-28\n@shared.md\n")
	h.Write(filepath.Join(h.Home, "code", "shared.md"), "SHARED-IMPORT-28\n")
	h.Write(filepath.Join(h.Home, "notes.md"), "HOME-NOTES-28\n")
	h.Write(filepath.Join(proj, "CLAUDE.md"), "@~/notes.md\n")
	const key = "sk-ant-test-key-claudemd28-0123456789ab"
	h.Write(filepath.Join(h.Home, ".claude.json"), fmt.Sprintf(`{
  "hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.330", "theme": "dark",
  "customApiKeyResponses": {"approved": [%q], "rejected": []},
  "projects": {%q: {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true, "hasClaudeMdExternalIncludesWarningShown": true}}
}
`, key[len(key)-20:], proj))
	api := harness.StartFakeAPI(t, "FAKE-REPLY-claudemd28")
	sent := func(from int) string { return strings.Join(api.Bodies()[from:], "\n") }
	h.Run(proj, api.Env(key), "claude", "-p", "hello")
	onHost := sent(0)
	for _, want := range []string{"ABOVE-THE-PROJECT-28", "SHARED-IMPORT-28", "HOME-NOTES-28"} {
		if !strings.Contains(onHost, want) {
			t.Fatalf("claude -p on the host did not send %s: the test's premise", want)
		}
	}
	from := len(api.Bodies())
	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hello")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	inside := sent(from)
	for _, want := range []string{"ABOVE-THE-PROJECT-28", "SHARED-IMPORT-28"} {
		if !strings.Contains(inside, want) {
			t.Errorf("claudebox -p did not send %s, which claude -p sends", want)
		}
	}
	if strings.Contains(inside, "HOME-NOTES-28") {
		t.Errorf("what the project's CLAUDE.md imports from the home was shown inside")
	}
	notes := filepath.Join(h.Home, "notes.md")
	for _, want := range []string{
		"claudebox: not shown inside: " + notes + " (an import of the project's CLAUDE.md)",
		"hint: bring one read-only with --ro-bind " + notes,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the launch does not say %q:\n%s", want, stderr.String())
		}
	}
}

// TestFirstDayReview28UndoKeepsHostEditsDuringSession: while a session
// edits, creates, removes and renames files, the user edits on the host
// a file the session also changes and one it never touches. The
// session's record cannot tell the two apart: --changes lists both, and
// --undo puts both back as the session found them, each of the user's
// versions moved aside with the mv that brings it back, never lost; git
// status is then as before the session.
func TestFirstDayReview28UndoKeepsHostEditsDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "beside28")
	h.GitRepo(proj)
	for _, f := range []string{"a", "b", "c", "e"} {
		h.Write(filepath.Join(proj, f+".txt"), f+"\n")
	}
	// The session and the test signal each other in a directory git
	// ignores, which --undo leaves as it is.
	h.Write(filepath.Join(proj, ".gitignore"), "ctl/\n")
	h.Write(filepath.Join(proj, "ctl", ".keep"), "")
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "files")
	before := h.Run(proj, nil, "git", "status", "--porcelain")
	ctl := func(name string) string { return filepath.Join(proj, "ctl", name) }
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", `until [ -e ctl/go ]; do sleep 0.05; done
echo session >> a.txt; echo new > new.txt; rm b.txt; mv c.txt d.txt; touch ctl/edited
until [ -e ctl/done ]; do sleep 0.05; done; echo session again >> a.txt`)
	var out strings.Builder
	session.Stdout, session.Stderr = &out, &out
	harness.Must(t, session.Start())
	t.Cleanup(func() { session.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- session.Wait() }()
	h.WaitSnapshot()
	harness.Must(t, os.WriteFile(ctl("go"), nil, 0o644))
	harness.WaitFor(t, "the session's edits", func() bool { _, err := os.Stat(ctl("edited")); return err == nil || len(exited) > 0 })
	for path, content := range map[string]string{"a.txt": "a\nsession\nmine\n", "e.txt": "mine\n"} {
		harness.Must(t, os.WriteFile(filepath.Join(proj, path), []byte(content), 0o644))
	}
	harness.Must(t, os.WriteFile(ctl("done"), nil, 0o644))
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out.String())
	}
	mine := map[string]string{}
	for _, f := range []string{"a.txt", "e.txt"} {
		b, _ := os.ReadFile(filepath.Join(proj, f))
		mine[f] = string(b)
	}
	if changes := h.Run(proj, nil, "claudebox", "--changes"); !strings.Contains(changes, "changed  e.txt") {
		t.Errorf("--changes does not list the file the host edited during the session:\n%s", changes)
	}
	undone := h.Run(proj, nil, "claudebox", "--undo", "-y")
	for f, content := range mine {
		_, rest, ok := strings.Cut(undone, "moved aside "+filepath.Join(proj, f)+"; to put it back: mv ")
		if !ok {
			t.Errorf("--undo did not move aside the host's version of %s:\n%s", f, undone)
			continue
		}
		from, _, _ := strings.Cut(rest, " ")
		if b, err := os.ReadFile(from); err != nil || string(b) != content {
			t.Errorf("the host's version of %s moved aside to %s holds %q (%v), want %q", f, from, b, err, content)
		}
	}
	if after := h.Run(proj, nil, "git", "status", "--porcelain"); after != before {
		t.Errorf("git status after --undo:\n%s\nbefore the session:\n%s", after, before)
	}
}

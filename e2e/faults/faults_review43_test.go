package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview43TerminalClosedDepsMoved: the terminal closes as a
// session ends (held after the exit audit's judgement) in which the
// session changed an installed package, which git ignores and the host
// runs (node_modules/left-pad). The audit moved the package aside and
// said so to the closed terminal, then took it for said and forgot the
// record: no later command named it, and the user's package waited in
// ~/.claudebox/moved-aside unknown. The next command now names it with
// the mv that puts it back.
func TestReplayReview43TerminalClosedDepsMoved(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "index.js"), "module.exports = 1\n")
	h.Write(filepath.Join(proj, "node_modules", "left-pad", "package.json"), `{"name":"left-pad"}`+"\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Inside(proj, nil, "true")
	closeTerminalAtJudgement(t, h, proj, `"echo 'require(\"child_process\")' >> node_modules/left-pad/index.js"`)
	var next strings.Builder
	n := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
	n.Stderr = &next
	if err := n.Run(); err != nil {
		t.Fatalf("the next launch: %v\n%s", err, next.String())
	}
	pkg := filepath.Join(proj, "node_modules", "left-pad")
	if b, _ := os.ReadFile(filepath.Join(pkg, "index.js")); !strings.Contains(string(b), "child_process") && !strings.Contains(next.String(), "    to put it back: mv -n ") {
		t.Errorf("the package %s was moved aside while the terminal was closed, and the next launch said nothing of it:\n%s", pkg, next.String())
	}
}

// TestReplayReview43TerminalClosedGitShowsNothing: the terminal closes as
// a session ends (held after the exit audit's judgement) in which the
// session did what git status shows nothing of, or shows wrong: it made a
// branch, which a switch to writes into the work tree; it staged its own
// .envrc and left the file as it was, which git restore or a switch
// writes. The exit said so only to the closed terminal, and no later
// command did: the user met it unwarned. The next command now says what
// the closed terminal did not show, once.
func TestReplayReview43TerminalClosedGitShowsNothing(t *testing.T) {
	for _, tc := range []struct{ name, script, said, what string }{
		{"branch", `"git branch planted-43"`, "refs were moved or made while the session ran", "refs/heads/planted-43"},
		{"staged", `"git update-index --cacheinfo 100644,\$(echo 'id > pwned' | git hash-object -w --stdin),.envrc"`, "other content than the file the session left as it was", ".envrc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.Write(filepath.Join(proj, ".envrc"), "export BUILT=1\n")
			h.GitRepo(proj)
			h.Run(proj, nil, "git", "add", ".envrc")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
			h.Inside(proj, nil, "true")
			closeTerminalAtJudgement(t, h, proj, tc.script)
			for i, want := range []bool{true, false} {
				var next strings.Builder
				n := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
				n.Stderr = &next
				if err := n.Run(); err != nil {
					t.Fatalf("launch %d after: %v\n%s", i+1, err, next.String())
				}
				if said := strings.Contains(next.String(), tc.said) && strings.Contains(next.String(), tc.what); said != want {
					t.Errorf("launch %d after the terminal closed says %q of %s (%v, want %v):\n%s", i+1, tc.said, tc.what, said, want, next.String())
				}
			}
		})
	}
}

// closeTerminalAtJudgement runs the claudebox --shell -c script typed in
// a tmux window's shell, holds its supervisor after the exit audit's
// judgement, closes the terminal (tmux killed: the shell's SIGHUP), lets
// the supervisor go on and waits until the session has ended.
func closeTerminalAtJudgement(t *testing.T, h *harness.Host, proj, script string) {
	t.Helper()
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "200", "-y", "50", "bash --norc --noprofile")
	shell, err := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "$") }, "the shell's prompt")
	tmux("send-keys", "-l", "CLAUDEBOX_TRACE=1 CLAUDEBOX_TRACE_HOLD='audit judged' claudebox --shell -c "+script)
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "holding after audit judged") }, "the supervisor to hold")
	supervisor := supervisorOf(t, shell)
	tmux("kill-server")
	harness.WaitFor(t, "the shell to end", func() bool { return !paths.Exists(fmt.Sprintf("/proc/%d", shell)) })
	syscall.Kill(supervisor, syscall.SIGUSR1)
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	harness.WaitFor(t, "the session to end", func() bool {
		return !paths.Exists(fmt.Sprintf("/proc/%d", supervisor)) && !instance.InUse(inst)
	})
}

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	closeTerminalAt(t, h, proj, "audit judged", `"echo 'require(\"child_process\")' >> node_modules/left-pad/index.js"`)
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
// a session ends (held after the exit audit's judgement, or as the
// command ends for what is said before the audit) in which the session
// did what git status shows nothing of, or shows wrong: it made a branch,
// which a switch to writes into the work tree; it staged its own .envrc
// and left the file as it was, which git restore or a switch writes; the
// repository's git config gained, while it ran, a command git runs (here
// by the host's own git config; the guard watcher says it). The end said
// so only to the closed terminal, and no later command did: the user met
// it unwarned. The next command now says what the closed terminal did not
// show, once.
func TestReplayReview43TerminalClosedGitShowsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, hold, script, said, what string
		// host, if any, is run on the host once the session wrote
		// inside-ready; the session waits for host-done.
		host []string
	}{
		{"branch", "audit judged", `"git branch planted-43"`, "refs were moved or made while the session ran", "refs/heads/planted-43", nil},
		{"staged", "audit judged", `"git update-index --cacheinfo 100644,\$(echo 'id > pwned' | git hash-object -w --stdin),.envrc"`, "other content than the file the session left as it was", ".envrc", nil},
		{"config", "command", `"touch inside-ready; until [ -e host-done ]; do sleep 0.1; done"`, "changed while the session ran; what it now sets that runs a command", "core.fsmonitor", []string{"git", "config", "core.fsmonitor", "id > pwned"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.Write(filepath.Join(proj, ".envrc"), "export BUILT=1\n")
			h.GitRepo(proj)
			h.Run(proj, nil, "git", "add", ".envrc")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
			h.Inside(proj, nil, "true")
			hostDone := make(chan error, 1)
			if tc.host != nil {
				go func() {
					for !paths.Exists(filepath.Join(proj, "inside-ready")) {
						time.Sleep(50 * time.Millisecond)
					}
					out, err := h.Command(proj, nil, tc.host[0], tc.host[1:]...).CombinedOutput()
					if err == nil {
						err = os.WriteFile(filepath.Join(proj, "host-done"), nil, 0o644)
					} else {
						err = fmt.Errorf("%v: %s", err, out)
					}
					hostDone <- err
				}()
			} else {
				hostDone <- nil
			}
			closeTerminalAt(t, h, proj, tc.hold, tc.script)
			if err := <-hostDone; err != nil {
				t.Fatalf("the host's %q: %v", tc.host, err)
			}
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

// closeTerminalAt runs the claudebox --shell -c script typed in a tmux
// window's shell, holds its supervisor after the phase hold (the exit
// audit's judgement, or the command's end), closes the terminal (tmux
// killed: the shell's SIGHUP), lets the supervisor go on and waits until
// the session has ended. It returns what the terminal showed as the
// supervisor held.
func closeTerminalAt(t *testing.T, h *harness.Host, proj, hold, script string) (shown string) {
	t.Helper()
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "200", "-y", "50", "bash --norc --noprofile")
	shell, err := strconv.Atoi(strings.TrimSpace(tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "$") }, "the shell's prompt")
	tmux("send-keys", "-l", "CLAUDEBOX_TRACE=1 CLAUDEBOX_TRACE_HOLD='"+hold+"' claudebox --shell -c "+script)
	tmux("send-keys", "Enter")
	shown = harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "holding after "+hold) }, "the supervisor to hold")
	supervisor := supervisorOf(t, shell)
	tmux("kill-server")
	harness.WaitFor(t, "the shell to end", func() bool { return !paths.Exists(fmt.Sprintf("/proc/%d", shell)) })
	syscall.Kill(supervisor, syscall.SIGUSR1)
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	harness.WaitFor(t, "the session to end", func() bool {
		return !paths.Exists(fmt.Sprintf("/proc/%d", supervisor)) && !instance.InUse(inst)
	})
	return shown
}

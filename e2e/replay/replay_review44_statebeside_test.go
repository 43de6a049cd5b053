package replay

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestAgentStateKeptBesideRunningSession: each launch keeps of the
// agents' state directories only what is known harmless from one session
// to the next (Claude's verdicts; none of Codex's SQLite, Gemini's
// checkpoints). A second session started while the first runs is no next
// session: it emptied the directories under the first, whose Gemini lost
// the checkpoint repository it was writing to and whose Codex its open
// databases. What one session writes there stays while it runs; the next
// first session of the project prunes it.
func TestAgentStateKeptBesideRunningSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "beside44")
	h.GitRepo(proj)
	h.Chown()
	first := besideRunning(t, h, proj, "echo mine > ~/.claude/state/own-state", "ls ~/.claude/state", func() { h.Inside(proj, nil, "true") })
	if !strings.Contains(first, "own-state") {
		t.Errorf("a session started beside the first emptied its state directory while it ran:\n%s", first)
	}
	if out := h.Inside(proj, nil, "ls -A ~/.claude/state"); strings.Contains(out, "own-state") {
		t.Errorf("the next session found what the last one left in its state directory:\n%s", out)
	}
}

// TestSecondSessionNameResolves: a session started beside another of its
// project has a name of its own (Claude Code tells its starts apart by
// pid and name); the tools inside resolve it, as the host's resolves on
// the host: hostname -f failed, and Java's InetAddress.getLocalHost
// throws, on a name nothing resolves.
func TestSecondSessionNameResolves(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "named44")
	h.GitRepo(proj)
	h.Chown()
	var second string
	besideRunning(t, h, proj, "true", "true", func() {
		second = h.Inside(proj, nil, `echo "name $(hostname)"; getent hosts "$(hostname)" && echo NAME-RESOLVES; true`)
	})
	if !strings.Contains(second, "-2") || !strings.Contains(second, "NAME-RESOLVES") {
		t.Errorf("the second session's own name does not resolve inside:\n%s", second)
	}
}

// besideRunning runs a session of proj that runs before, then waits
// while beside runs, then runs after and ends; it returns what the first
// session said.
func besideRunning(t *testing.T, h *harness.Host, proj, before, after string, beside func()) string {
	var first harness.Output
	a := h.Command(proj, nil, "claudebox", "--shell", "-c", before+` && touch started
		while ! test -e done; do sleep 0.05; done
		`+after)
	a.Stdout, a.Stderr = &first, &first
	harness.Must(t, a.Start())
	defer a.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- a.Wait() }()
	harness.WaitFor(t, "the first session to start", func() bool {
		return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0
	})
	beside()
	harness.Must(t, os.WriteFile(filepath.Join(proj, "done"), nil, 0o644))
	if err := <-exited; err != nil {
		t.Fatalf("the first session failed: %v\n%s", err, first.String())
	}
	return first.String()
}

// TestAgentStatePrunedAfterKilledSupervisor: a session whose supervisor
// was killed leaves its start's record for the next session's exit
// audit, so the next launch is not the first of the project's running
// sessions; no session runs, though, and what the killed one left in its
// agent's state is no more harmless for it: the next session finds only
// what is kept.
func TestAgentStatePrunedAfterKilledSupervisor(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "killed44")
	h.GitRepo(proj)
	h.Chown()
	var out harness.Output
	s := h.Command(proj, nil, "claudebox", "--shell", "-c", `echo '{}' > ~/.claude/state/hybrid-settings.json && touch started; exec sleep 60.944`)
	s.Stdout, s.Stderr = &out, &out
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the session to start", func() bool {
		return paths.Exists(filepath.Join(proj, "started")) || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended early: %v\n%s", <-exited, out.String())
	}
	harness.Must(t, s.Process.Signal(syscall.SIGKILL))
	<-exited
	harness.WaitFor(t, "the killed session's sandbox to end", func() bool { return !harness.Running("sleep\x00" + "60.944" + "\x00") })
	if got := h.Inside(proj, nil, "ls -A ~/.claude/state"); strings.Contains(got, "hybrid-settings.json") {
		t.Errorf("the session after a killed one found what it left in its state directory:\n%s", got)
	}
}

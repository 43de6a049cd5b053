package network

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayNetworkDeniedNamesLine: a host the user both allows (by a
// wildcard) and denies was refused as not allowed, with advice to allow
// it, and reported at the session's end as one to allow; and curl, like
// most tools, shows only "CONNECT tunnel failed, response 403", never the
// body that says why. Now the refusal names the deny entry's file and
// line, the status line carries the reason, and the end reports nothing.
func TestReplayNetworkDeniedNamesLine(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.Write(filepath.Join(proj, "x"), "x\n")
	conf := filepath.Join(h.Home, ".config", "claudebox", "config.toml")
	h.Write(conf, "allow-hosts = [\"*.example.test\"]\n# the tenant we do not trust\ndeny-hosts = [\"evil.example.test\"]\n")
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, []string{harness.NoResolve}, "claudebox", "--shell", "-c", `curl -sv --max-time 20 -o /dev/null https://evil.example.test/ 2>&1 | grep -a '^< HTTP'; exit 0`)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if want := "403 blocked by claudebox: evil.example.test:443 is denied by deny-hosts in " + conf + ":3"; !strings.Contains(stdout.String(), want) {
		t.Errorf("curl inside saw %q, want the status line %q", stdout.String(), want)
	}
	if strings.Contains(stderr.String(), "evil.example.test") {
		t.Errorf("the session's end reports the denied host as blocked:\n%s", stderr.String())
	}
}

// TestReplayNetworkQuietExit: every interactive session of the real Claude
// Code 2.1.330 asks for downloads.claude.ai at its start (its updater off
// or not), which the filtered network refuses by design; the session's
// end then told the user "the filtered network blocked
// downloads.claude.ai (1); to allow one: …", every time. Claude answers
// without it; the end no longer reports it.
func TestReplayNetworkQuietExit(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-quiet")
	const key = "sk-ant-test-interactive-key-0123456789"
	proj := filepath.Join(h.Home, "code", "tui")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Onboarded(key, proj)
	tmux := h.Tmux(proj)
	errFile := filepath.Join(h.Base, "stderr.txt")
	// Not api.Env's CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: a user's
	// session, as it is by default.
	launch := "env ANTHROPIC_BASE_URL=" + api.URL + " ANTHROPIC_API_KEY=" + key + " " + harness.NoResolve + " TERM=xterm-256color claudebox 2>" + errFile + "; echo SESSION-ENDED; sleep 60"
	tmux("new-session", "-d", "-x", "120", "-y", "40", launch)
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") || strings.Contains(s, ">") }, "the prompt")
	harness.Ask(t, tmux, "hello", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-quiet") }, "the fake reply")
	harness.Slash(t, tmux, "/exit", func(s string) bool { return strings.Contains(s, "SESSION-ENDED") }, "the session's end")
	b, _ := os.ReadFile(errFile)
	if strings.Contains(string(b), "downloads.claude.ai") || strings.Contains(string(b), "filtered network blocked") {
		t.Errorf("the session's end reports Claude Code's own traffic as blocked:\n%s", b)
	}
	logs, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "run", "*.log"))
	var decisions []byte
	for _, l := range logs {
		d, _ := os.ReadFile(l)
		decisions = append(decisions, d...)
	}
	if !bytes.Contains(decisions, []byte(`"target":"downloads.claude.ai:443"`)) {
		t.Logf("Claude Code did not ask for downloads.claude.ai this time; the decision log:\n%s", decisions)
	}
}

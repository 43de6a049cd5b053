package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// The README's promises, each attacked as a hostile agent would: a
// promise no test could catch breaking is one the README must not make.

// TestReplayReadmeOtherProjectsSessions: "a session in one repository
// never sees another's" conversation. The attack, from project b: search
// the whole sandbox for what project a's sessions saved (a transcript
// under ~/.claude/projects, a prompt in the history). Proof: nothing of
// a's is found, while a's instance on the host holds both.
func TestReplayReadmeOtherProjectsSessions(t *testing.T) {
	h := harness.NewHost(t)
	const transcript, prompt = "README16-A-TRANSCRIPT", "README16-A-PROMPT"
	a := filepath.Join(h.Home, "code", "a")
	b := filepath.Join(h.Home, "code", "b")
	h.GitRepo(a)
	h.GitRepo(b)
	h.Inside(a, nil, `mkdir -p ~/.claude/projects/-code-a && echo '{"m":"`+transcript+`"}' > ~/.claude/projects/-code-a/s.jsonl
		echo '{"display":"`+prompt+`"}' >> ~/.claude/history.jsonl`)
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), a)
	if data, err := os.ReadFile(filepath.Join(inst, "-code-a", "s.jsonl")); err != nil || !strings.Contains(string(data), transcript) {
		t.Fatalf("project a's session kept no transcript in its instance %s: %v", inst, err)
	}
	// The markers are split in the script, so that its own argv (in
	// /proc, excluded anyway) never matches.
	out := h.Inside(b, nil, `
		cat ~/.claude/history.jsonl 2>/dev/null
		find ~/.claude ~/.claude.json -maxdepth 4 2>/dev/null
		grep -rl 'README16-A''-' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null | sed 's/^/FO""UND /'
		echo DO""NE`)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the search did not finish:\n%s", out)
	}
	for _, leak := range []string{transcript, prompt, "FOUND", "-code-a"} {
		if strings.Contains(out, leak) {
			t.Errorf("project b's sandbox sees project a's sessions (%q):\n%s", leak, out)
		}
	}
}

// TestReplayReadmeWritesOutsideProjectStayInside: "what it writes outside
// the project stays inside the sandbox". The attack: write what the host
// runs at its next login or command (shell startup files, an autostart
// entry, a program early on PATH, git's global hooks) and what it keeps in
// /tmp, each in the home and under it. Proof: none of it reaches the host,
// and the files that were there are unchanged.
func TestReplayReadmeWritesOutsideProjectStayInside(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".bashrc"), "# the user's\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "config"), "[user]\n\tname = alice\n")
	h.Write(filepath.Join(h.Home, ".local", "bin", "tool"), "#!/bin/sh\n")
	h.Chown()
	targets := []string{
		".bashrc", ".profile", ".zshenv", ".config/git/config", ".config/git/hooks/pre-commit",
		".config/autostart/x.desktop", ".config/systemd/user/x.service", ".local/bin/tool", ".local/bin/git", "bin/ls",
	}
	var paths []string
	for _, p := range targets {
		paths = append(paths, filepath.Join(h.Home, p))
	}
	before := harness.Snapshots(paths)
	marker := filepath.Join(os.TempDir(), "claudebox-readme16-tmp")
	os.Remove(marker)
	out := h.Run(proj, nil, "claudebox", append([]string{"--shell", "-c", `
		for p in "$@"; do
			mkdir -p "$(dirname "$p")" 2>/dev/null
			printf '#!/bin/sh\necho PWNED\n' >> "$p" 2>/dev/null && chmod +x "$p" 2>/dev/null && echo "wrote $p"
		done
		echo x > ` + marker + ` 2>/dev/null
		echo attacked`, "attack"}, paths...)...)
	if !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	if !strings.Contains(out, "wrote "+paths[0]) {
		t.Errorf("the sandbox could not write its own ~/.bashrc, so the attack proves nothing:\n%s", out)
	}
	harness.CompareSnapshots(t, before)
	if _, err := os.Lstat(marker); err == nil {
		os.Remove(marker)
		t.Errorf("the sandbox's /tmp is the host's: %s was written", marker)
	}
}

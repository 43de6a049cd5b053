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

// TestReplayReadmeGitInfoFiles: the README's "git hooks and config" the
// host runs or obeys include the repository's info/attributes (which
// picks, for every path, the filter and diff drivers the user's own
// configuration defines: git-lfs's smudge, a textconv) and info/exclude
// (which hides from the host's git status what the session creates).
// The attack, from inside: write both, as a session that wants a driver
// run on the host's next checkout, or a file of its own unseen. Proof:
// neither write succeeds, and the host's files are as they were.
func TestReplayReadmeGitInfoFiles(t *testing.T) {
	h := harness.NewHost(t)
	// p as git init leaves it; q without .git/info, as some tools'
	// repositories are: the protection must not depend on it.
	for _, name := range []string{"p", "q"} {
		proj := filepath.Join(h.Home, "code", name)
		h.GitRepo(proj)
		info := filepath.Join(proj, ".git", "info")
		if name == "q" {
			os.RemoveAll(info)
		} else {
			h.Write(filepath.Join(info, "exclude"), "# the user's\n")
		}
		paths := []string{filepath.Join(info, "attributes"), filepath.Join(info, "exclude")}
		before := harness.Snapshots(paths)
		out := h.Inside(proj, nil, `mkdir -p .git/info 2>/dev/null
			for f in attributes exclude; do
				printf '* filter=lfs diff=lfs\nplanted\n' >> .git/info/$f 2>/dev/null && echo "WROTE $f"
			done
			echo attacked`)
		if !strings.Contains(out, "attacked") {
			t.Fatalf("%s: the attack did not run: %s", name, out)
		}
		if strings.Contains(out, "WROTE") {
			t.Errorf("%s: the sandbox wrote the repository's info files:\n%s", name, out)
		}
		harness.CompareSnapshots(t, before)
	}
}

// TestReplayReadmeClaudeLoginNotInside: "your login works, but stays
// outside the sandbox", and the MCP servers "stay on the host unless you
// name them". The host's ~/.claude.json holds an API key Claude Code
// saved at /login, MCP servers with tokens (the user's, another
// project's) and other projects' records; ~/.claude/.credentials.json
// holds the OAuth login. The attack, from inside: read every file of the
// sandbox for any of them. Proof: none is found, while the login is
// still the one the launch uses (the sandbox holds its phantom).
func TestReplayReadmeClaudeLoginNotInside(t *testing.T) {
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".claude.json"), `{"hasCompletedOnboarding":true,"primaryApiKey":"sk-ant-api03-README16-SAVED-KEY",`+
		`"mcpServers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"ghp_README16-USER-MCP"}}},`+
		`"projects":{"/elsewhere":{"mcpServers":{"db":{"command":"db","args":["--password","README16-OTHER-MCP"]}},"history":[{"display":"README16-OTHER-PROMPT"}]}}}`+"\n")
	h.Write(filepath.Join(h.Home, ".claude", ".credentials.json"), `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-README16-ACCESS","refreshToken":"sk-ant-ort01-README16-REFRESH","expiresAt":9999999999999}}`+"\n")
	h.Chown()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, `cat ~/.claude.json ~/.claude/.credentials.json 2>/dev/null
		env | grep -i 'key\|token'
		grep -rl 'README''16' / --exclude-dir=proc --exclude-dir=sys --exclude-dir=usr 2>/dev/null | sed 's/^/FO""UND /'
		echo DO""NE`)
	if !strings.Contains(out, "DONE") {
		t.Fatalf("the search did not finish:\n%s", out)
	}
	if strings.Contains(out, "README16") || strings.Contains(out, "FOUND") {
		t.Errorf("the host's login or an MCP server's token is inside:\n%s", out)
	}
	if !strings.Contains(out, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-") {
		t.Errorf("inside, want the login's phantom in its place:\n%s", out)
	}
}

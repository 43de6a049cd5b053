package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25ClaudeConfigDirBound: a user whose Claude Code
// configuration lives where CLAUDE_CONFIG_DIR says (a dotfiles manager's
// ~/dotfiles/claude) keeps there what ~/.claude holds: the login, every
// project's conversations, the account's ~/.claude.json. claudebox
// refuses a bind of ~/.claude, and leaves it out of one that holds it
// (through a link too), but knew only ~/.claude: --ro-bind ~/dotfiles
// showed the login and other projects' conversations. The attack, from
// inside: read them. Proof: none is readable, and the rest of the bind
// is.
func TestReplayReview25ClaudeConfigDirBound(t *testing.T) {
	h := harness.NewHost(t)
	dotfiles := filepath.Join(h.Home, "dotfiles")
	config := filepath.Join(dotfiles, "claude")
	const secret = "REVIEW25-OTHER-PROJECT"
	h.Write(filepath.Join(config, "projects", "-home-alice-code-other", "s.jsonl"), `{"message":"`+secret+`"}`+"\n")
	h.Write(filepath.Join(config, ".credentials.json"), `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-`+secret+`"}}`+"\n")
	h.Write(filepath.Join(config, ".claude.json"), `{"projects":{"/home/alice/code/`+secret+`":{}}}`+"\n")
	h.Write(filepath.Join(dotfiles, "vimrc"), "REVIEW25-VIMRC\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Run(proj, []string{"CLAUDE_CONFIG_DIR=" + config}, "claudebox", "--ro-bind", dotfiles, "--shell", "-c",
		"exec 2>&1; cat ~/dotfiles/vimrc; grep -r "+secret+" ~/dotfiles; true")
	if strings.Contains(out, secret) {
		t.Errorf("CLAUDE_CONFIG_DIR's login or conversations are readable through a bind that holds it:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW25-VIMRC") {
		t.Errorf("the rest of the bind is not shown:\n%s", out)
	}
}

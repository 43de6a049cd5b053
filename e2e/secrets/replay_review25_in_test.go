package secrets

import (
	"os"
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

// TestReplayReview25StoresInProject: a dotfiles repository that ~/.ssh
// and ~/.claude link into whole (stow's folding) holds the SSH keys, the
// login and every project's conversations. claudebox hides them from a
// bind that holds them, but the project is not a bind: a session started
// in the dotfiles repository read them. The attack, from inside: read
// them. Proof: none is readable, and the rest of the project is, and
// stays writable.
func TestReplayReview25StoresInProject(t *testing.T) {
	h := harness.NewHost(t)
	dotfiles := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dotfiles)
	const secret = "REVIEW25-IN-THE-PROJECT"
	h.Write(filepath.Join(dotfiles, "ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+secret+"\n")
	h.Write(filepath.Join(dotfiles, "claude", ".credentials.json"), `{"claudeAiOauth":{"accessToken":"sk-ant-oat01-`+secret+`"}}`+"\n")
	h.Write(filepath.Join(dotfiles, "claude", "projects", "-home-alice-code-other", "s.jsonl"), `{"message":"`+secret+`"}`+"\n")
	h.Write(filepath.Join(dotfiles, "vimrc"), "REVIEW25-VIMRC\n")
	h.Run(dotfiles, nil, "ln", "-s", "dotfiles/ssh", filepath.Join(h.Home, ".ssh"))
	h.Run(dotfiles, nil, "ln", "-s", "dotfiles/claude", filepath.Join(h.Home, ".claude"))
	out := h.Inside(dotfiles, nil, "exec 2>&1; cat vimrc; grep -r "+secret+" .; echo more >> vimrc; true")
	if strings.Contains(out, secret) {
		t.Errorf("the credential stores and the state the home links into the project are readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW25-VIMRC") {
		t.Errorf("the rest of the project is not shown:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dotfiles, "vimrc")); string(b) != "REVIEW25-VIMRC\nmore\n" {
		t.Errorf("the rest of the project is not writable: %q\n%s", b, out)
	}
}

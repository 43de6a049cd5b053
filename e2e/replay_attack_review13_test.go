package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayReview13ClonesOutsidePlugins: the launch left a credential
// out of the git configuration of the clones below ~/.claude/plugins
// only; a clone anywhere else that claudebox shows read-only kept its
// remote's token: ~/.claude itself versioned with git (a dotfiles
// habit), a team's skills cloned into ~/.claude/skills, and a local
// plugin marketplace (a directory source, shown at its place) that is a
// clone of the team's private repository. The attack, from inside: grep
// the home for the token. Proof: it is in none of them, and git still
// reads each clone's other settings.
func TestReplayReview13ClonesOutsidePlugins(t *testing.T) {
	h := newE2EHost(t)
	const token = "glpat-REVIEW13-CLONE-SECRET"
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	claude := filepath.Join(h.home, ".claude")
	mkt := filepath.Join(h.home, "src", "mkt")
	h.write(filepath.Join(claude, ".git", "config"), config)
	h.write(filepath.Join(claude, ".git", "HEAD"), "ref: refs/heads/main\n")
	h.write(filepath.Join(claude, "skills", "team", ".git", "config"), config)
	h.write(filepath.Join(claude, "skills", "team", "SKILL.md"), "---\nname: team\n---\n")
	h.write(filepath.Join(mkt, ".git", "config"), config)
	h.write(filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name":"mkt","plugins":[]}`)
	h.write(filepath.Join(claude, "plugins", "known_marketplaces.json"), `{"mkt":{"source":{"source":"directory","path":"`+mkt+`"},"installLocation":"`+mkt+`","lastUpdated":"2026-11-01T00:00:00.000Z"}}`)
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "x"), "x\n")
	out := h.inside(proj, nil, `grep -rl `+token+` ~ 2>/dev/null
		for c in ~/.claude/.git ~/.claude/skills/team/.git ~/src/mkt/.git; do echo fetch: $(git config -f $c/config remote.origin.fetch); done
		echo marketplace: $(cat ~/src/mkt/.claude-plugin/marketplace.json)`)
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, h.home+"/") && strings.Contains(out, "/.git/config") {
		t.Errorf("a clone's token is readable inside:\n%s", out)
	}
	if strings.Count(out, "fetch: +refs/heads/*:refs/remotes/origin/*") != 3 || !strings.Contains(out, `marketplace: {"name":"mkt","plugins":[]}`) {
		t.Errorf("inside, want each clone's other settings and the marketplace shown:\n%s", out)
	}
}

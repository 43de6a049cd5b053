package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview44InNoteCodeCommand: a note's code showing a command
// whose word is a token drawn at random (CLAUDE.md's ```sh block of
// ~/bin/notify -t …, a skill's indented block of pushover …, an
// inline span's `ping-me …`) was read by the names alone, none of which
// said a secret, and crossed. The attack, from inside: read CLAUDE.md
// and the skill. Proof: none is readable inside; a skill whose code
// names a commit, gives an id to an option named for one and shows a
// command's output of ids still is.
func TestReplayReview44InNoteCodeCommand(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Me\n\nWhen a long task ends, tell me:\n\n```sh\n~/bin/notify -t azGDORePK8gMaC0QOYAMyEEuzJnyUi done\n```\n")
	h.Write(filepath.Join(claude, "skills", "notify", "SKILL.md"), "---\nname: notify\ndescription: tell me when done\n---\nSend it so:\n\n    pushover uQiRzpo4DXghDmr9QzzfQu27cmVRsG \"$MSG\"\n")
	h.Write(filepath.Join(claude, "skills", "ping", "SKILL.md"), "---\nname: ping\ndescription: ping me\n---\nRun `ping-me Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH` at the end.\n")
	h.Write(filepath.Join(claude, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: R44-KEPT-NOTE\n---\n```sh\ngit show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904\naws cognito-idp forgot-password --client-id 38fjsnc484p94kpqsnet7mpld0 --username jane\n```\n\n```json\n{\"ImageId\": \"a1b2c3d4-5678-90ab-cdef-11111EXAMPLE\"}\n```\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/*/SKILL.md; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH"} {
		if strings.Contains(out, secret) {
			t.Errorf("a note's command's word drawn at random is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R44-KEPT-NOTE") {
		t.Errorf("inside, want the note whose code names a commit, an id and an output's ids")
	}
}

// TestReplayReview44InProseAssignment: a note's prose, outside its
// code, giving a literal to an environment variable named for a
// credential (CLAUDE.md's sentence "reach staging with PGPASSWORD=…
// psql", a skill's bare export DEPLOY_TOKEN=… line) was read as prose,
// which writes such names by chance, and crossed. The attack, from
// inside: read CLAUDE.md and the skill. Proof: neither is readable
// inside; a note that gives the variable a placeholder or another
// variable still is.
func TestReplayReview44InProseAssignment(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Me\n\nReach staging with PGPASSWORD=Tr0ub4dor3x psql -h staging.\n")
	h.Write(filepath.Join(claude, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: deploy it\n---\nFirst:\nexport DEPLOY_TOKEN=hX9rL2qW7mK4\nthen make deploy.\n")
	h.Write(filepath.Join(claude, "skills", "db", "SKILL.md"), "---\nname: db\ndescription: R44-KEPT-PROSE\n---\nSet PGPASSWORD=your-password, or run PGPASSWORD=$PGPASS psql.\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/*/SKILL.md; true")
	t.Log(out)
	for _, secret := range []string{"Tr0ub4dor3x", "hX9rL2qW7mK4"} {
		if strings.Contains(out, secret) {
			t.Errorf("a literal given in a note's prose to a variable named for a credential is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R44-KEPT-PROSE") {
		t.Errorf("inside, want the note that gives the variable a placeholder")
	}
}

// TestReplayReview44InTableRowWithoutLeadingBar: CLAUDE.md's table of
// keys written without its rows' leading | (GitHub's Markdown reads it
// as a table) gave its token drawn at random as no table's cell, and
// crossed. The attack, from inside: read CLAUDE.md. Proof: the token
// is not readable inside; a skill's table of commits so written still
// is.
func TestReplayReview44InTableRowWithoutLeadingBar(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Me\n\nservice | key\n---|---\npushover | azGDORePK8gMaC0QOYAMyEEuzJnyUi\n")
	h.Write(filepath.Join(claude, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: R44-KEPT-TABLE\n---\ntag | commit\n---|---\nv1 | 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/*/SKILL.md; true")
	t.Log(out)
	if strings.Contains(out, "azGDORePK8gMaC0QOYAMyEEuzJnyUi") {
		t.Errorf("a token in a table's row without its leading | is readable inside")
	}
	if !strings.Contains(out, "R44-KEPT-TABLE") {
		t.Errorf("inside, want the skill's table of commits")
	}
}

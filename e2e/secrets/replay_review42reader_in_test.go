package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview42InMarkdownCodeAnyForm: prose's code was taken for
// code only inside a fence of three backquotes or tildes at a line's
// start and in an inline span, so Markdown's other code crossed, short
// or long: an indented block (a note's commands under a heading, four
// spaces in), a fence inside a block quote, a fence indented by a tab,
// and the code of a ```bash block shown inside a ````markdown one
// (whose inner opening line closed the outer fence). The attack, from
// inside: read them. Proof: none is readable inside; a note whose
// indented code takes the password from a variable still is.
func TestReplayReview42InMarkdownCodeAnyForm(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for each step.\n", 260)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\nDeploy to staging:\n\n    export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n    ./deploy.sh staging\n\nThat is all.\n")
	h.Write(filepath.Join(claude, "commands", "quote.md"), "Deploy.\n\n> Run this first:\n> ```bash\n> export STAGING_PASSWORD=Wm4kR7tQ2xLp9v\n> ```\n")
	h.Write(filepath.Join(claude, "commands", "tab.md"), "Deploy.\n\n\t```bash\n\texport RELEASE_TOKEN=Hy6nB3cV8zPq1s\n\t```\n")
	skill := filepath.Join(claude, "skills", "readme")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: readme\ndescription: write a README\n---\nA README shows its set-up so:\n\n````markdown\n## Set-up\n```bash\nexport PGPASSWORD=Jd5sF2gH9kLq3w\npsql -h db.internal app\n```\n````\n")
	h.Write(filepath.Join(skill, "reference.md"), "# Deploying\n\n"+pad+"Then:\n\n    export DEPLOY_SECRET=Ub7yT4rE1wQa8z\n    ./deploy.sh\n\n"+pad)
	h.Write(filepath.Join(claude, "commands", "notes.md"), "R42-HARMLESS-CODE\n\n    export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n    ./deploy.sh\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/readme/*.md ~/.claude/commands/*.md; true")
	for _, secret := range []string{"Zq8xT3vN5yKp0w", "Wm4kR7tQ2xLp9v", "Hy6nB3cV8zPq1s", "Jd5sF2gH9kLq3w", "Ub7yT4rE1wQa8z"} {
		if strings.Contains(out, secret) {
			t.Errorf("Markdown's code is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-HARMLESS-CODE") {
		t.Errorf("inside, want the note whose code holds no credential")
	}
}

// TestReplayReview42InInlineCodeAsCommonMark: an inline code span was
// read between single backquotes alone, so a span of two
// (two around PGPASSWORD=… psql, as Markdown writes one holding a backquote and
// reStructuredText every literal), split at each, was read as prose,
// and an HTML <code> element not at all: a CLAUDE.md's and a command's
// crossed, short or long. The attack, from inside: read them. Proof:
// neither is readable inside; a note whose span takes the password from
// a variable still is.
func TestReplayReview42InInlineCodeAsCommonMark(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for each step.\n", 260)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\nBack up with ``PGPASSWORD=Vc3mN8bX5zQw2r pg_dump app``.\n")
	h.Write(filepath.Join(claude, "commands", "deploy.md"), "Deploy.\n\n"+pad+"Run <code>export DEPLOY_TOKEN=Kr9pL2vB6nYt4e</code> first.\n"+pad)
	h.Write(filepath.Join(claude, "commands", "notes.md"), "R42-HARMLESS-SPAN\n\nBack up with ``PGPASSWORD=$PGPASSWORD pg_dump app``.\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/commands/*.md; true")
	for _, secret := range []string{"Vc3mN8bX5zQw2r", "Kr9pL2vB6nYt4e"} {
		if strings.Contains(out, secret) {
			t.Errorf("an inline code span is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-HARMLESS-SPAN") {
		t.Errorf("inside, want the note whose span holds no credential")
	}
}

// TestReplayReview42InRestructuredTextLiteral: .rst is read as prose,
// and reStructuredText's literal block (the lines indented further than
// one that ends in :: or a code directive, two or three spaces in) was
// not code to it, being less than Markdown's four: a skill's
// reference.rst crossed. The attack, from inside: read it. Proof: it is
// not readable inside; a note whose block takes the password from a
// variable still is.
func TestReplayReview42InRestructuredTextLiteral(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "deploy")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: deploy the site\n---\nRead reference.rst and notes.rst.\n")
	h.Write(filepath.Join(skill, "reference.rst"), "Deploying\n=========\n\n.. code-block:: bash\n\n   export DEPLOY_PASSWORD=Gt5hJ8kL2mNq7w\n   ./deploy.sh\n")
	h.Write(filepath.Join(skill, "notes.rst"), "R42-HARMLESS-RST\n\nDeploy::\n\n  export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/deploy/*.rst; true")
	if strings.Contains(out, "Gt5hJ8kL2mNq7w") {
		t.Errorf("a reStructuredText literal block is readable inside")
	}
	if !strings.Contains(out, "R42-HARMLESS-RST") {
		t.Errorf("inside, want the note whose block holds no credential")
	}
}

package secrets

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview38InPgpassPasswordAsLibpqReadsIt: libpq reads a
// password file line's password to its first colon no backslash
// escapes, spaces and escaped colons in it: a skill's pgpass whose
// password held a space or a \: matched no line, and crossed. The
// attack, from inside: read them. Proof: none is inside and the launch
// names each.
func TestReplayReview38InPgpassPasswordAsLibpqReadsIt(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "dbq")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: dbq\ndescription: query the shop's database\n---\nRun `PGPASSFILE=pgpass psql -h db.internal shop`.\n")
	h.Write(filepath.Join(skill, "pgpass"), "db.internal:5432:shop:ops:R38pgpass\\:Colon9x\n")
	h.Write(filepath.Join(skill, "pgpass.conf"), "*:*:*:report:R38pgpass Spaced 4k\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R38[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	if strings.Contains(out, "R38pgpass") {
		t.Errorf("a password in a PostgreSQL password file, with a space or an escaped colon, is readable inside")
	}
	for _, f := range []string{`dbq/pgpass(?:[^.]|$)`, `dbq/pgpass\.conf`} {
		if !regexp.MustCompile(f).MatchString(out) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview38InCredentialsListValueWithPunctuation: a list or a
// table of credentials whose value held a parenthesis, a bar, a
// question mark, a caret, a bracket or a backslash took it for a
// pattern's, and it crossed (a skill's "tokens": {"jira": "…(…)…"}, a
// passwords: list). The attack, from inside: read them. Proof: none is
// inside and the launch names each; a schema's pattern still is.
func TestReplayReview38InCredentialsListValueWithPunctuation(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "tix")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: tix\ndescription: file tickets\n---\nRead config.json for the services' tokens.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"tokens": {"jira": "R38tokParen(9x)Qz4"}}`+"\n")
	h.Write(filepath.Join(skill, "users.yaml"), "passwords:\n  - \"R38pwBar|7kWq2\"\n")
	h.Write(filepath.Join(skill, "schema.json"), `{"R38-HARMLESS-SCHEMA": 1, "passwords": {"pattern": "^[A-Za-z0-9]{12,}$"}}`+"\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R38[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R38tokParen", "R38pwBar"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential holding a pattern's character in a list or a table of credentials is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R38-HARMLESS-SCHEMA") {
		t.Errorf("inside, want the schema, which holds none")
	}
	for _, f := range []string{"tix/config.json", "tix/users.yaml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

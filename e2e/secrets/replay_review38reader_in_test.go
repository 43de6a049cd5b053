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

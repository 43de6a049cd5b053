package credential

import (
	"bytes"
	"strings"
	"testing"
)

// largeProse is line amid prose of more than 16 KiB, as a long
// CLAUDE.md or a skill's reference holds it.
func largeProse(line string) []byte {
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for the steps.\n", 260)
	return []byte(pad + line + "\n" + pad)
}

// TestLargeProseLines: what InDocument finds on a line of prose, prose
// over 16 KiB (InLargeDocument) missed: a curl's header literal, a
// fenced block's export, a URL's password without a scheme.
func TestLargeProseLines(t *testing.T) {
	for _, line := range []string{
		"curl -H 'X-Api-Key: q8Zx2mPp0wL7rT3vN5yK' https://api.example.com/v1/items",
		"```bash\nexport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n./deploy.sh\n```",
		"Set the proxy to `corp:hunter2hunter2@proxy.corp:3128` on the build hosts.",
		"Run `PGPASSWORD=Tr0ub4dor3x psql -h db.internal app` once.",
		"~~~\nwget --header=\"Authorization: Bearer-less Zq8xT3vN5yKp0w\" https://x.example.com\n~~~",
	} {
		if !InDocument([]byte(line)) {
			t.Errorf("InDocument(%q) = false: the case tests nothing", line)
		}
		if !InLargeDocument(largeProse(line)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", line)
		}
	}
	for _, line := range []string{
		"curl -H 'X-Api-Key: $API_KEY' https://api.example.com/v1/items",
		"curl -H \"Authorization: Bearer YOUR_API_KEY\" https://api.example.com",
		"```bash\nexport DEPLOY_PASSWORD=\"$(pass show deploy)\"\n```",
		"```yaml\npassword: ${DB_PASSWORD}\n```",
		"Write to `team@example.com` or see `git@github.com:org/repo.git`.",
		"The `token` field is read by `src/auth.ts`; use -h for help.",
	} {
		if InLargeDocument(largeProse(line)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", line)
		}
	}
	// Past its budget, a text whose every line holds a hint is taken to
	// hold one, unread.
	var many bytes.Buffer
	for many.Len() <= largeProseBudget+(64<<10) {
		many.WriteString("curl -H 'X-Api-Key: $API_KEY' https://api.example.com/v1/items\n")
	}
	if !InLargeDocument(many.Bytes()) {
		t.Errorf("InLargeDocument of %d KiB of header lines = false, want true past the budget", many.Len()>>10)
	}
}

// TestLargeProseLinesInLinearTime: largeProseLines reads each line
// once, so eight times the text costs it about eight times the time,
// on lines that each hold every hint it looks for, and on one long
// line.
func TestLargeProseLinesInLinearTime(t *testing.T) {
	for _, unit := range []string{
		"`key=$K` -H 'X-Api-Key: $K' a@b\n",
		"```\n",
		"-h --header `pass` @ ",
	} {
		judgedLinearly(t, "largeProseLines", func(b []byte) { largeProseLines(b) }, 64<<10, unit)
	}
}

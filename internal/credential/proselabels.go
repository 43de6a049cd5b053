package credential

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// labelledSecret is a line of prose that ends by giving a value to a
// label that names a secret: a note's "- Staging DB password: …", "API
// key = …", "The SMTP password is `…`.", a table's "| token | … |". The
// value, the second group, is what follows, one word at the line's end
// (a quote or a mark of emphasis around it, a full stop after it).
var labelledSecret = sync.OnceValue(func() *regexp.Regexp {
	const label = `(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key|access[ _-]?key|secret[ _-]?key|private[ _-]?key|credentials?)`
	return regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])` + label + `s?[*_` + "`" + `]*[ \t]*(?:[:=|]|[ \t]is|[ \t]was)[ \t*_"'` + "`" + `]*([^\s*_"'` + "`" + `|][^\s"'` + "`" + `|]*?)[*_"'` + "`" + `]*[.,;)]?[ \t]*\|?[ \t]*\r?$`)
})

// labelledHints are what every line labelledSecret matches holds, in
// lower case.
var labelledHints = []string{"pass", "pwd", "secret", "token", "key", "credential"}

// labelledLiteral says prose gives a literal to a label that names a
// secret (labelledSecret), as a note to oneself writes it: a
// CLAUDE.md's "- Staging DB password: …", which a # note saves there,
// crossed, as only a known token's shape or code's name given one was
// read in prose. The literal is of 8 or more characters, not words, a
// placeholder, a number, a path, a URL, a variable, an index or a call
// (unplaceholder):
// prose writes "Auth: src/middleware/authentication.ts", "Token:
// GITHUB_TOKEN", "Key: value" by chance.
func labelledLiteral(data []byte) bool {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		lower := bytes.ToLower(line)
		if !holdsAny(lower, labelledHints) {
			continue
		}
		for _, m := range labelledSecret().FindAllSubmatch(line, -1) {
			v := string(m[1])
			if len(v) >= 8 && literal(v) && unplaceholder(m[1]) && !strings.Contains(v, "://") && !strings.ContainsAny(v, "[]{}()<>") && !pathLike(v) {
				return true
			}
		}
	}
	return false
}

// pathLike says v reads as a file's path: a slash before a name with an
// extension (src/auth.ts, docs/setup.md).
func pathLike(v string) bool {
	slash := strings.LastIndexByte(v, '/')
	return slash >= 0 && strings.Contains(v[slash:], ".")
}

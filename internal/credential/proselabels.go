package credential

import (
	"bytes"
	"regexp"
	"slices"
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

// secretWords are the words that name a secret, in lower case, which a
// note writes right before it without a colon ("Pushover app token
// …", "the Datadog API key …").
var secretWords = []string{"token", "key", "password", "passwd", "passphrase", "secret", "pwd", "apikey"}

// proseTokenDrawn says prose gives a token drawn at random (tokenWord)
// as a Markdown table's cell ("| pushover | … |") or as the word right
// after one of secretWords: a CLAUDE.md's table of keys and its
// "Pushover app token …" crossed, where only a label with a colon, = or
// "is" was read. Of this machine's 13,737 .md, .txt and .rst files none
// more is left out for it. A row written without its leading | after
// the table's delimiter row (pushover | …) crossed too. Read a line at
// a time, each word once.
func proseTokenDrawn(data []byte) bool {
	table := false
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		// A table's rows after its delimiter row (---|---) need no
		// leading |; a blank line ends it.
		table = len(t) > 0 && (table || delimiterRow(t))
		if len(t) > 0 && (t[0] == '|' || table && bytes.IndexByte(t, '|') >= 0) {
			for cell := range bytes.SplitSeq(t, []byte("|")) {
				if tokenWord(cell) {
					return true
				}
			}
		}
		var prev []byte
		for w := range bytes.FieldsSeq(line) {
			if namesSecret(prev) && tokenWord(w) {
				return true
			}
			prev = w
		}
	}
	return false
}

// delimiterRow says a trimmed line is a Markdown table's delimiter
// row: dashes, colons, spaces and at least one | and one -.
func delimiterRow(t []byte) bool {
	return bytes.IndexByte(t, '|') >= 0 && bytes.IndexByte(t, '-') >= 0 && len(bytes.Trim(t, "|-: \t")) == 0
}

// tokenWord says w, without the spaces, quotes, marks of emphasis and
// punctuation prose puts about it, is 16 to 64 of a token's characters
// drawn at random (drawnAtRandom), not a commit's, a hash's or a key's
// hex (hexName).
func tokenWord(w []byte) bool {
	w = bytes.Trim(w, " \t\r`*_\"'.,;:")
	if len(w) < minRandomValue || len(w) > maxRandomValue || hexName(w) || tokenRun(w, isTokenByte) != len(w) {
		return false
	}
	return drawnAtRandom(w)
}

// namesSecret says w, without quotes and marks of emphasis, is one of
// secretWords in any case.
func namesSecret(w []byte) bool {
	w = bytes.Trim(w, "*_`\"'")
	return slices.ContainsFunc(secretWords, func(s string) bool { return strings.EqualFold(string(w), s) })
}

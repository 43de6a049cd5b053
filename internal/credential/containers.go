package credential

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// containerNames are the names that say a list or a table holds
// credentials (tokens:, api_keys:, [secrets], "credentials": {…}), as
// settingsCredential's names say a value is one, plural too.
const containerNames = `[a-z0-9_.-]*(?:passw(?:or)?ds?|secrets?|tokens?|api[_-]?keys?|access[_-]?keys?|private[_-]?keys?|account[_-]?keys?|credentials?)`

// containerHints are what every name of containerNames holds, in lower
// case.
var containerHints = []string{"passw", "secret", "token", "key", "credential"}

// containerStart is where a list or a table given to a name of
// containerNames begins: a flow's or JSON's [ or { after the name (the
// first group), a YAML key with nothing after it on its line, its
// entries indented below (the second group its indentation), a TOML or
// INI section's header ([tokens], [secrets.prod]) whose entries follow.
var containerStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:^|[\s{,;])["']?` + containerNames + `["']?[ \t]*[:=][ \t]*([\[{])|^([ \t]*)(?:-[ \t]+)?["']?` + containerNames + `["']?[ \t]*:[ \t]*(?:#.*)?\r?$|^[ \t]*\[+[ \t]*["']?` + containerNames + `(?:\.[a-z0-9_.-]+)?["']?[ \t]*\]+[ \t]*(?:#.*)?\r?$`)
})

// containerScalar is a value in a flow's or JSON's list or table: a
// quoted string or a bare word, then whether a : or = follows it (a
// key, not a value).
var containerScalar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"[ \t]*([:=]?)|'([^']*)'[ \t]*([:=]?)|([^\s,\[\]{}:="']+)[ \t]*([:=]?)`)
})

// maxContainer bounds what of a list or a table is read for its values.
const maxContainer = 4 << 10

// containerLiteral says settings text gives a list or a table, under a
// name that says it holds credentials, a value that may be one
// (containerValue): the tokens a skill keeps per service ("tokens":
// {"jira": "…"}, api_keys: with one entry a line, aider's api-key: list,
// a TOML [credentials] table) were judged by their own names, which say
// nothing, and crossed.
//
// A start within what an earlier one read is passed over: its values were
// among the earlier one's, and reading each start again made a text of
// starts cost the square of its length.
func containerLiteral(data []byte) bool {
	re := containerStart()
	read := 0
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at
		}
		line := data[at:end]
		// Only a line with a hint is matched, as byLines does: the
		// expression costs a package.json's 2 KiB about 2 ms otherwise.
		if lower, ascii := asciiLower(line); !ascii || holdsAny(lower, containerHints) {
			for _, m := range re.FindAllSubmatchIndex(line, -1) {
				if at+m[0] < read {
					continue
				}
				var values []string
				var n int
				switch {
				case m[2] >= 0:
					values, n = flowValues(data[at+m[2]:])
					n += at + m[2]
				case m[4] >= 0:
					values, n = blockValues(data[at+m[1]:], m[5]-m[4])
					n += at + m[1]
				default:
					values, n = sectionValues(data[at+m[1]:])
					n += at + m[1]
				}
				if slices.ContainsFunc(values, containerValue) {
					return true
				}
				read = max(read, n)
			}
		}
		at = end + 1
	}
	return false
}

// flowValues are the values of the list or table data begins with, up
// to its closing bracket or maxContainer: its keys left out; and how
// much of data it read.
func flowValues(data []byte) ([]string, int) {
	depth, quote := 0, byte(0)
	end := min(len(data), maxContainer)
	for i := 0; i < end; i++ {
		c := data[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth--; depth == 0 {
				end = i
			}
		}
	}
	var values []string
	for _, m := range containerScalar().FindAllSubmatch(data[:end], -1) {
		for g := 1; g < len(m); g += 2 {
			if m[g] != nil && len(m[g+1]) == 0 {
				values = append(values, string(m[g]))
			}
		}
	}
	return values, end
}

// blockValues are the values of YAML's entries data begins with, each
// line indented past indent (blank lines and comments between), a list's
// item (- value) or a key's (name: value); and how much of data it read.
func blockValues(data []byte, indent int) ([]string, int) {
	var values []string
	n := 0
	for l := range bytes.Lines(data[:min(len(data), maxContainer)]) {
		n += len(l)
		line := string(l)
		trimmed := strings.TrimLeft(line, " \t")
		content := strings.TrimSpace(trimmed)
		if content == "" || content[0] == '#' {
			continue
		}
		if len(line)-len(trimmed) <= indent {
			break
		}
		content = strings.TrimSpace(strings.TrimPrefix(content, "- "))
		if name, value, ok := strings.Cut(content, ": "); ok && !strings.ContainsAny(name, `"'`) {
			content = value
		}
		values = append(values, unquoted(content))
	}
	return values, n
}

// sectionValues are the values of a TOML or INI section's entries data
// begins with (name = value), up to the next section; and how much of
// data it read.
func sectionValues(data []byte) ([]string, int) {
	var values []string
	n := 0
	for line := range bytes.Lines(data[:min(len(data), maxContainer)]) {
		n += len(line)
		content := strings.TrimSpace(string(line))
		if strings.HasPrefix(content, "[") {
			break
		}
		if _, value, ok := strings.Cut(content, "="); ok {
			values = append(values, unquoted(strings.TrimSpace(value)))
		}
	}
	return values, n
}

// unquoted is a scalar without its quotes, or a bare one without a
// comment after it.
func unquoted(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : 1+end]
		}
	}
	v, _, _ = strings.Cut(v, " #")
	return strings.TrimSpace(v)
}

// containerValue says a value in a list or a table of credentials may
// be one: a literal (not a switch, a number or nothing), not a
// variable's reference, a template's field, a path or a schema's
// reference (#/definitions/…), not words (a description, "string", a
// type's name, words a bar parts: wordsOnly) nor a name of letters alone
// (an identifier, serviceAccountId), not prose (a space) nor a pattern
// (a JSON schema's "password": {"pattern": "^…$"}). A password of words
// passes (a schema's or a policy's words read so), as it does under a
// name that says nothing; one holding a parenthesis, a bar, a question
// mark, a caret, a bracket or a backslash, all taken for a pattern's,
// crossed.
func containerValue(v string) bool {
	return literal(v) && !strings.ContainsAny(v[:1], "$<{%*~/.#") && !strings.Contains(v, " ") && !patternShape().MatchString(v) &&
		!wordsOnly(v, "/-_.~+:,@|") && strings.ContainsFunc(v, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
}

// patternShape is what says a value is a regular expression or a glob: an
// anchor at either end, a class's range ([a-z]) or a class quantified
// ([0-9]+, [A-Z]{8}), an escape's class (\d, \w, \.), any character
// quantified (.*, .+, .{8,}), a group's (?…).
var patternShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\^|\$$|\[[^\]]*-[^\]]*\]|\][*+?{]|\\[dDwWsSbB.]|\.[*+{]|\(\?`)
})

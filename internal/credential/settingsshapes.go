package credential

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// pgpassLine is a line of PostgreSQL's password file (host, port,
// database, user, password, each parted by a colon, a port's number or
// a *), under any name: PGPASSFILE names any file, and Windows keeps it
// as pgpass.conf. Its password is the first group: as libpq reads it, to
// the first colon a backslash does not escape, spaces and all (a field
// escapes a colon, \:).
var pgpassLine = sync.OnceValue(func() *regexp.Regexp {
	const char = `(?:[^:\\\s]|\\[^\r\n])`
	return regexp.MustCompile(`(?m)^(?:[^:\\\s#]|\\[^\r\n])` + char + `*:(?:[0-9]+|\*):` + char + `+:` + char + `+:((?:[^:\\\r\n]|\\[^\r\n])+)\r?$`)
})

// pgpassPassword says text holds a line of a PostgreSQL password file
// whose password is a literal (a skill's pgpass beside its queries
// crossed).
func pgpassPassword(text []byte) bool {
	if bytes.Count(text, []byte(":")) < 4 {
		return false
	}
	for _, m := range pgpassLine().FindAllSubmatch(text, -1) {
		if v := bytes.TrimSpace(m[1]); len(v) > 0 && literal(string(v)) && v[0] != '$' {
			return true
		}
	}
	return false
}

// multiLineString is TOML's multi-line string given to a name that says
// a credential (password = """…""", token = ”'…”'): the value, which
// begins past the quotes (on the next line, often), is the first group
// or the second.
var multiLineString = sync.OnceValue(func() *regexp.Regexp {
	const name = `[a-z0-9_.-]*(?:passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|credentials?|pass|pwd|passphrase|auth)`
	return regexp.MustCompile(`(?im)^[ \t]*["']?` + name + `["']?[ \t]*=[ \t]*(?:"""((?:[^"]|"[^"]|""[^"])*)"""|'''((?:[^']|'[^']|''[^'])*)''')`)
})

// multiLineLiteral says TOML text gives a name that says a credential a
// multi-line string holding a literal: the settings' expressions read a
// value from the first character after the quote, and took """ for
// nothing.
func multiLineLiteral(text []byte) bool {
	if !bytes.Contains(text, []byte(`"""`)) && !bytes.Contains(text, []byte("'''")) {
		return false
	}
	for _, m := range multiLineString().FindAllSubmatch(text, -1) {
		v := strings.TrimSpace(string(m[1]) + string(m[2]))
		if v != "" && literal(v) && v[0] != '$' && !strings.HasPrefix(v, "{{") {
			return true
		}
	}
	return false
}

// maxCommandSetting bounds what of a command's or an argument list's
// value commandSetting reads after its name: a hook's command, a
// server's arguments, on one line.
const maxCommandSetting = 4 << 10

// commandSetting says settings give a command or a program's list of
// arguments (a value, to the line's end or, a list, its ], of a key
// named command or args: a plugin's hooks.json, an MCP server's
// definition, an agent's hooks) a word drawn at random (commandWordDrawn), as InCommand judges
// a hook in settings.json: a plugin's own hook's notify -t … and a
// server's ["--workspace", "…"] crossed, the name before them saying
// nothing. Each value is read up to maxCommandSetting bytes.
func commandSetting(data []byte) bool {
	for _, key := range []string{"command", "args"} {
		for at := range occurrences(data, key) {
			rest := data[at+len(key):]
			i := 0
			if i < len(rest) && (rest[i] == '"' || rest[i] == '\'') {
				i++
			}
			for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
				i++
			}
			if i == len(rest) || rest[i] != ':' && rest[i] != '=' {
				continue
			}
			value := rest[i+1 : min(len(rest), i+1+maxCommandSetting)]
			closing := byte('\n')
			if t := bytes.TrimLeft(value, " \t"); len(t) > 0 && t[0] == '[' {
				// A list of arguments, a JSON array's lines.
				closing = ']'
			}
			if end := bytes.IndexByte(value, closing); end >= 0 {
				value = value[:end]
			}
			if commandWordDrawn(value) {
				return true
			}
			if u, ok := unescaped(value); ok && commandWordDrawn(u) {
				return true
			}
		}
	}
	return false
}

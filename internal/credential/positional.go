package credential

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The credentials a command gives a program as a word in its place, not
// an option's value nor a name's (htpasswd -b file user PASSWORD, vault
// login TOKEN, echo PASSWORD | sudo -S), an HTTP header's
// (Authorization: token …), npm's (an npm_ token, .npmrc's _auth and
// _authToken), and what a shell other than POSIX sh gives a name (fish's
// set -x NAME VALUE, csh's setenv NAME VALUE).

// positionalPassword says text gives a literal to a program in the place
// of a password or a token, to the Authorization header, to npm's
// settings or to a name in fish's or csh's way.
func positionalPassword(data, lower []byte) bool {
	return authorizationHeader(data, lower, false) || npmToken(data) || npmrcAuth(data, lower) ||
		wordCommand(data, lower, "htpasswd", htpasswdPassword) ||
		wordCommand(data, lower, "vault", vaultLoginToken) ||
		wordCommand(data, lower, "sudo", sudoStdinPassword) ||
		exportedByWord(data, lower)
}

// wordCommand says match holds for a command (its line from the word
// program on, to a ; & or the line's end, and the line before it) in
// which program is a word of its own, read within optionReach of the
// word each way: a line of "vault " said again and again, read whole at
// each, cost the square of its length (a skill's file of 256 KiB held a
// launch for hours).
func wordCommand(data, lower []byte, program string, match func(line []byte, from int) bool) bool {
	for pos := range occurrences(lower, program) {
		at := pos + len(program)
		if pos > 0 && (isTokenByte(data[pos-1]) || data[pos-1] == '.') || at < len(data) && !isSpace(data[at]) && data[at] != '"' && data[at] != '\'' {
			continue
		}
		start := pos - min(pos, optionReach)
		start += bytes.LastIndexByte(data[start:pos], '\n') + 1
		end := min(len(data), at+optionReach)
		if j := bytes.IndexAny(data[at:end], "\n;&"); j >= 0 {
			end = at + j
		}
		if match(data[start:end], pos-start) {
			return true
		}
	}
	return false
}

// htpasswdPassword says htpasswd's -b (batch: the password on the
// command line) is given one: its last word of file user password, or
// of user password with -n.
func htpasswdPassword(line []byte, from int) bool {
	var flags string
	var args [][]byte
	for _, w := range commandWords(pipeSegment(line, from))[1:] {
		if len(w) > 1 && w[0] == '-' {
			flags += string(w[1:])
			continue
		}
		args = append(args, w)
	}
	need := 3
	if strings.Contains(flags, "n") {
		need = 2
	}
	return strings.Contains(flags, "b") && len(args) >= need && literalPassword(args[need-1], "password")
}

// vaultLoginToken says `vault login` is given a token as its argument
// (its own, an old s. one, any), not - (standard input) nor a method's
// name=value.
func vaultLoginToken(line []byte, from int) bool {
	words := commandWords(pipeSegment(line, from))
	if len(words) < 3 || string(words[1]) != "login" {
		return false
	}
	for _, w := range words[2:] {
		if w[0] != '-' && !bytes.Contains(w, []byte("=")) {
			return literalPassword(w, "token")
		}
	}
	return false
}

// sudoStdinPassword says sudo -S, which reads a password from standard
// input, is given a literal: echoed or printed into it, or a here
// string.
func sudoStdinPassword(line []byte, from int) bool {
	segment := pipeSegment(line, from)
	words := commandWords(segment)
	if !slices.ContainsFunc(words[1:], func(w []byte) bool {
		return len(w) > 1 && w[0] == '-' && w[1] != '-' && bytes.IndexByte(w, 'S') > 0
	}) {
		return false
	}
	if _, here, ok := bytes.Cut(segment, []byte("<<<")); ok {
		if f := commandWords(here); len(f) > 0 && literalPassword(f[0], "password") {
			return true
		}
	}
	before := line[:from]
	i := bytes.LastIndexByte(before, '|')
	if i < 0 {
		return false
	}
	prev := commandWords(before[bytes.LastIndexByte(before[:i], '|')+1 : i])
	// The echo may follow prose's words, a backquote or Claude Code's
	// !`, which runs it as the command is typed.
	e := slices.IndexFunc(prev, func(w []byte) bool {
		w = bytes.TrimLeft(w, "!`($")
		return string(w) == "echo" || string(w) == "printf"
	})
	if e < 0 {
		return false
	}
	return slices.ContainsFunc(prev[e+1:], func(w []byte) bool { return w[0] != '-' && literalPassword(w, "password") })
}

// pipeSegment is line from from to the next |.
func pipeSegment(line []byte, from int) []byte {
	s := line[from:]
	if i := bytes.IndexByte(s, '|'); i >= 0 {
		s = s[:i]
	}
	return s
}

// authorizationSchemes are the schemes of the Authorization header
// after which a literal is a credential, however short, in lower case.
var authorizationSchemes = []string{"bearer", "token", "basic", "digest", "bot", "apikey", "api-key", "key", "sso-key", "splunk", "ghost", "hmac"}

// authorizationHeader says the Authorization header is given a literal:
// after one of authorizationSchemes, or, unless schemed, on its own.
func authorizationHeader(data, lower []byte, schemed bool) bool {
	for pos := range occurrences(lower, "authorization") {
		at := pos + len("authorization")
		p := at
		if p < len(data) && (data[p] == '"' || data[p] == '\'') {
			p++
		}
		p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
		if p >= len(data) || data[p] != ':' {
			continue
		}
		p++
		p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' || c == '"' || c == '\'' })
		n := tokenRun(data[p:], func(c byte) bool { return !isSpace(c) && strings.IndexByte("\"';&|)`,", c) < 0 })
		v := data[p : p+n]
		if slices.Contains(authorizationSchemes, string(lower[p:p+n])) {
			p += n
			if s := tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' }); s > 0 {
				p += s
				n = tokenRun(data[p:], func(c byte) bool { return !isSpace(c) && strings.IndexByte("\"';&|)`,", c) < 0 })
				if literalPassword(data[p:p+n], "token") {
					return true
				}
			}
			continue
		}
		if !schemed && n >= 16 && literalPassword(v, "token") {
			return true
		}
	}
	return false
}

// npmToken says text holds an npm access token: npm_ and 36 letters and
// digits, a word of its own (not a variable's name, npm_config_…).
func npmToken(data []byte) bool {
	for pos := range occurrences(data, "npm_") {
		at := pos + len("npm_")
		if pos > 0 && isTokenByte(data[pos-1]) {
			continue
		}
		n := tokenRun(data[at:], func(c byte) bool { return isWordByte(c) && c != '_' })
		if n == 36 && (at+n == len(data) || !isTokenByte(data[at+n])) {
			return true
		}
	}
	return false
}

// npmrcAuth says text gives npm's settings a literal credential: _auth
// (base64 of user:password), _authToken or _password, with or without
// a registry's //host/: before it.
func npmrcAuth(data, lower []byte) bool {
	for _, name := range []string{"_authtoken", "_auth", "_password"} {
		for pos := range occurrences(lower, name) {
			at := pos + len(name)
			if pos > 0 && isTokenByte(data[pos-1]) || at < len(data) && isTokenByte(data[at]) {
				continue
			}
			p := at + tokenRun(data[at:], func(c byte) bool { return c == ' ' || c == '\t' })
			if p >= len(data) || data[p] != '=' {
				continue
			}
			p++
			p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' || c == '"' || c == '\'' })
			n := tokenRun(data[p:], func(c byte) bool { return !isSpace(c) && strings.IndexByte("\"';&|)`", c) < 0 })
			if literalPassword(data[p:p+n], "token") {
				return true
			}
		}
	}
	return false
}

// exportedByWordRE is a literal given to a name that says a credential
// (as shellAssignment's) by fish's set -x (-gx, -Ux, --export) or csh's
// setenv, the name and value words of their own. Its value is the first
// group.
var exportedByWordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:^|[\s;&|(])(?:setenv|set(?: -[a-z]+| --[a-z]+)+)[ \t]+[a-z0-9_]*(?:passw(?:or)?d|secret|token|api[_-]?key|_key|[_-]pass|pwd|auth)[ \t]+["']?([^\s"'$;&|()<>\\` + "`" + `]+)`)
})

// exportedByWord says text gives a literal to a name that says a
// credential in fish's or csh's way: exportedByWordRE runs only on the
// lines where set - or setenv is, as a bundle holds many.
func exportedByWord(data, lower []byte) bool {
	for _, hint := range []string{"setenv", "set -"} {
		// A line is read once, whatever it holds of the hint.
		next := 0
		for pos := range occurrences(lower, hint) {
			if pos < next {
				continue
			}
			start := bytes.LastIndexByte(data[:pos], '\n') + 1
			end := pos + bytes.IndexByte(data[pos:], '\n')
			if end < pos {
				end = len(data)
			}
			next = max(end, pos+len(hint))
			// What the expression requires before the word and after it,
			// checked first: a bundle holds many a "set -e".
			if pos > 0 && !isSpace(data[pos-1]) && strings.IndexByte(";&|(", data[pos-1]) < 0 || !holdsAny(lower[pos:end], assignedHints) {
				continue
			}
			for _, m := range exportedByWordRE().FindAllSubmatch(data[start:end], -1) {
				if literalPassword(m[1], "password") {
					return true
				}
			}
		}
	}
	return false
}

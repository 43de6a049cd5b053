package audit

import (
	"bytes"
	"strings"
)

// A .env is set aside at exit only when it sets a key that is not known
// harmless: the host's gemini loads every key of the nearest .env into its
// own environment and that of every command it runs, so a key some
// program obeys (GOOGLE_GEMINI_BASE_URL, HTTPS_PROXY, NODE_OPTIONS,
// BASH_ENV, PATH, a tool's endpoint or config path, …) can send the user's
// credentials elsewhere or run code; no list of such names could be
// complete. The keys known harmless are an application's own settings,
// by the names and namespaces frameworks give them, which no host tool
// reads as its own: what a project's `cp .env.example .env` makes.
var (
	harmlessKeys = map[string]bool{
		"PORT": true, "DEBUG": true, "TZ": true, "ENVIRONMENT": true, "STAGE": true,
		"NODE_ENV": true, "RAILS_ENV": true, "RACK_ENV": true, "FLASK_ENV": true, "FLASK_DEBUG": true, "MIX_ENV": true,
		"LOG_LEVEL": true, "LOGLEVEL": true, "LOG_FORMAT": true,
		"SECRET": true, "SECRET_KEY": true, "SECRET_KEY_BASE": true, "ENCRYPTION_KEY": true,
		"DATABASE_URL": true, "REDIS_URL": true, "MONGO_URL": true, "MONGO_URI": true, "MONGODB_URI": true, "MONGODB_URL": true,
		"AMQP_URL": true, "RABBITMQ_URL": true, "ELASTICSEARCH_URL": true, "KAFKA_BROKERS": true,
		"ALLOWED_HOSTS": true, "CORS_ORIGIN": true, "CORS_ORIGINS": true, "SITE_URL": true, "BASE_PATH": true,
		"FRONTEND_URL": true, "BACKEND_URL": true, "API_URL": true, "WEB_URL": true, "CLIENT_URL": true, "SERVER_URL": true,
		"SENTRY_DSN": true, "API_KEY": true, "API_SECRET": true,
		"MYSQL_DATABASE": true, "MYSQL_USER": true, "MYSQL_PASSWORD": true, "MYSQL_ROOT_PASSWORD": true,
		"NEXTAUTH_URL": true, "NEXTAUTH_SECRET": true, "AUTH_SECRET": true,
	}
	// harmlessPrefixes are namespaces of an application's own settings.
	harmlessPrefixes = []string{
		"APP_", "DB_", "DATABASE_", "POSTGRES_", "REDIS_", "SMTP_", "MAIL_", "EMAIL_", "STRIPE_", "JWT_", "SESSION_", "COOKIE_",
		"FEATURE_", "VITE_", "NEXT_PUBLIC_", "REACT_APP_", "EXPO_PUBLIC_", "NUXT_PUBLIC_", "NUXT_", "GATSBY_", "PUBLIC_",
	}
)

// harmlessKey says whether a .env may set key without harm to the host.
func harmlessKey(key string) bool {
	if harmlessKeys[key] {
		return true
	}
	for _, p := range harmlessPrefixes {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	return false
}

// HarmfulDotenvKeys returns the keys a .env holding b sets, as the host's
// gemini (dotenv's parse) would read them, that are not known harmless.
// It reads more keys than dotenv may, never fewer: every line's leading
// name is a key, but for lines inside a quoted value that spans lines
// whatever dotenv makes of the quotes.
func HarmfulDotenvKeys(b []byte) []string {
	var out []string
	for _, key := range dotenvKeys(b) {
		if !harmlessKey(key) && !strings.Contains(strings.Join(out, "\x00")+"\x00", "\x00"+key+"\x00") {
			out = append(out, key)
		}
	}
	return out
}

// dotenvKeys lists the names at the start of b's lines (after blanks and
// an export), each followed by = or :, or alone on its line (dotenv's
// blanks before the = span lines).
func dotenvKeys(b []byte) []string {
	// JavaScript's ^ starts a line after each of these.
	lines := strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' })
	var keys []string
	for i := 0; i < len(lines); i++ {
		line := strings.TrimLeftFunc(lines[i], jsSpace)
		if rest, ok := strings.CutPrefix(line, "export"); ok && (rest == "" || strings.IndexFunc(rest, jsSpace) == 0) {
			line = strings.TrimLeftFunc(rest, jsSpace)
			// No name after it: export is the name.
			if line == "" || line[0] == '=' || line[0] == ':' {
				keys = append(keys, "export")
			}
		}
		n := 0
		for n < len(line) && isKeyByte(line[n]) {
			n++
		}
		if n == 0 {
			continue
		}
		rest := strings.TrimLeftFunc(line[n:], jsSpace)
		switch {
		case rest == "":
			keys = append(keys, line[:n])
			continue
		case rest[0] == '=' || rest[0] == ':':
			keys = append(keys, line[:n])
		default:
			continue
		}
		// A quoted value that spans lines: the lines before the first
		// that a closing quote could end are inside the value, whichever
		// closing dotenv's regular expression takes.
		value := strings.TrimLeftFunc(rest[1:], jsSpace)
		if value != "" && strings.ContainsAny(value[:1], "'\"`") {
			if end, ok := quotedEnd(lines, i, value[1:], value[0]); ok {
				i = end
			}
		}
	}
	return keys
}

// quotedEnd finds where a value quoted with q, whose text starts with
// first on line i, can end first: the line of the first q followed by
// nothing but blanks and a comment. A q before it that no backslash
// escapes ends what the quotes can hold: no end then.
func quotedEnd(lines []string, i int, first string, q byte) (int, bool) {
	for line := first; ; {
		for k := 0; k < len(line); k++ {
			if line[k] != q {
				continue
			}
			if tail := strings.TrimLeftFunc(line[k+1:], jsSpace); tail == "" || tail[0] == '#' {
				return i, true
			}
			if k == 0 || line[k-1] != '\\' {
				return 0, false
			}
		}
		if i++; i >= len(lines) {
			return 0, false
		}
		line = lines[i]
	}
}

// jsSpace is JavaScript's \s.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// harmlessDotenv says whether the .env name in the directory fd sets only
// harmless keys, each line plainly; one that cannot be read is not.
func harmlessDotenv(fd int, name string) bool {
	b, err := readAt(fd, name, 1<<20)
	return err == nil && !bytes.Contains(b, []byte{0}) && len(HarmfulDotenvKeys(b)) == 0 && DotenvRunsAt(b) == 0
}

// A .env is read by more than dotenv's parse: a script sources it (set
// -a; . ./.env), and a makefile includes it (-include .env, export),
// where DATABASE_URL=$(shell …) runs when make exports it, and
// PORT=1; cmd or a value after a blank runs in the shell. So a line
// passes only as what all of them read as a name and a literal value:
// a comment, or [export ]NAME=VALUE, VALUE plain characters, or quoted
// without $, a backquote or a backslash, followed by nothing but a
// comment. A value over several lines, or anything else, does not.

// DotenvRunsAt returns the number of the first line of a .env holding b
// that is not a plain assignment or a comment, 0 if none is.
func DotenvRunsAt(b []byte) int {
	for i, line := range strings.Split(string(b), "\n") {
		if !plainDotenvLine(strings.TrimSuffix(line, "\r")) {
			return i + 1
		}
	}
	return 0
}

func plainDotenvLine(line string) bool {
	line = strings.TrimLeft(line, " \t")
	if line == "" || line[0] == '#' {
		return true
	}
	if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		line = strings.TrimLeft(rest, " \t")
	}
	n := 0
	for n < len(line) && (isKeyByte(line[n]) && line[n] != '.' && line[n] != '-') {
		n++
	}
	if n == 0 || line[0] >= '0' && line[0] <= '9' || n == len(line) || line[n] != '=' {
		return false
	}
	value, tail := line[n+1:], ""
	switch {
	case value == "":
	case value[0] == '\'' || value[0] == '"':
		end := strings.IndexByte(value[1:], value[0])
		if end < 0 || strings.ContainsFunc(value[1:end+1], func(r rune) bool { return r < ' ' && r != '\t' || r > '~' || r == '$' || r == '`' || r == '\\' }) {
			return false
		}
		tail = value[end+2:]
	default:
		end := strings.IndexAny(value, " \t")
		if end < 0 {
			end = len(value)
		}
		if strings.ContainsFunc(value[:end], func(r rune) bool { return !plainValueRune(r) }) {
			return false
		}
		tail = value[end:]
	}
	// Only a comment after a blank: a shell runs any other word.
	if tail == "" {
		return true
	}
	rest := strings.TrimLeft(tail, " \t")
	return len(rest) < len(tail) && (rest == "" || rest[0] == '#')
}

// plainValueRune says whether r means itself in an unquoted value, to a
// shell, make and dotenv alike.
func plainValueRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:@%+,=~?-", r)
}

package transcript

import (
	"regexp"
	"strings"
)

// secret is one shape of credential the export redacts: the literal every
// match starts with (a cheap test before the expression runs), and the
// expression.
type secret struct {
	literal string
	re      func() *regexp.Regexp
	keep    string // what stays of a match: "Bearer " stays, the token goes
}

// secrets are the shapes one can name and test; redaction is best-effort
// and says so in the front matter. Their expressions are compiled at first
// use: a launch does not export.
var secrets = []secret{
	{"sk-", compiled(`sk-[A-Za-z0-9_-]{20,}`), ""},                                            // Anthropic and OpenAI keys
	{"gh", compiled(`gh[pousr]_[A-Za-z0-9]{30,}`), ""},                                        // GitHub tokens
	{"github_pat_", compiled(`github_pat_[A-Za-z0-9_]{30,}`), ""},                             //
	{"AKIA", compiled(`AKIA[0-9A-Z]{16}`), ""},                                                // AWS access keys
	{"ASIA", compiled(`ASIA[0-9A-Z]{16}`), ""},                                                //
	{"xox", compiled(`xox[abprs]-[A-Za-z0-9-]{10,}`), ""},                                     // Slack tokens
	{"eyJ", compiled(`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), ""}, // JWTs
	{"Bearer", compiled(`Bearer\s+[A-Za-z0-9._~+/=-]{16,}`), "Bearer "},
	// A private key block, or its beginning when the rest was cut off.
	{"PRIVATE KEY-----", compiled(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`), ""},
}

// redacted stands for a secret in the export.
const redacted = "[REDACTED]"

// redact replaces every secret of a known shape in s.
func redact(s string) string {
	for _, sc := range secrets {
		if !strings.Contains(s, sc.literal) {
			continue
		}
		s = sc.re().ReplaceAllLiteralString(s, sc.keep+redacted)
	}
	return s
}

// relativize shows paths in the project relative to it ("./src"), and
// other paths in the home directory, the project's own included, from "~".
func relativize(s, root, home string) string {
	if root != "" && root != "/" {
		s = replacePath(s, root+"/", "./")
	}
	return replacePath(s, home, "~")
}

// replacePath replaces dir with short where it is a whole path prefix:
// followed by a slash, or by nothing that continues a file name.
func replacePath(s, dir, short string) string {
	if len(dir) < 2 || !strings.Contains(s, dir) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		if !strings.HasSuffix(dir, "/") && continues(s[end:]) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i] + short)
		}
		s = s[end:]
	}
}

// continues reports whether rest, what follows a match, continues its
// last file name; a full stop that ends a sentence does not.
func continues(rest string) bool {
	switch {
	case rest == "":
		return false
	case rest[0] == '.':
		return len(rest) > 1 && nameByte(rest[1])
	}
	return nameByte(rest[0])
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80
}

package credential

import "bytes"

// largeProseBudget bounds how much of a large prose text's lines
// largeProseLines reads with its expressions (about 2 ms a KiB on a
// loaded 2-core machine, where the rest of its reading is a byte's
// compare): past it, the text is taken to hold a credential. A
// reference of 16 MiB whose every line shows a header, a URL's user or
// code naming a key is no one's notes.
const largeProseBudget = 1 << 20

// codeHints are what every literal givesUnplaceholder finds is given
// to, in lower case: a name that says a credential.
var codeHints = []string{"pass", "secret", "token", "api", "key", "pwd", "auth", "signature", "credential"}

// largeProseLines says prose too large for InDocument (a long
// CLAUDE.md, a skill's reference) shows, on a line, what InDocument
// finds there and InCode does not: a literal given to a header named
// for a credential (curl -H 'X-Api-Key: …': headerLiteral), a literal
// given to a credential's name in its code (a fenced block's export
// DEPLOY_PASSWORD=…, an inline span's: givesUnplaceholder), a URL's
// password without a scheme (corp:…@proxy.corp:3128: proseURL). Past
// 16 KiB prose was judged as code, and each of them crossed. Each line
// is read once, an expression run only on a line with a hint of what it
// finds, and on at most largeProseBudget of them in all.
func largeProseLines(data []byte) bool {
	budget := largeProseBudget
	var md markdownCode
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		text, kind := md.read(line)
		if kind == fenceLine {
			continue
		}
		fenced := kind == codeLine
		lower := lowerASCII(line)
		code := (fenced || bytes.IndexByte(line, '`') >= 0 || bytes.Contains(lower, []byte("<code>"))) && holdsAny(lower, codeHints)
		header := bytes.Contains(lower, []byte("-h")) || bytes.Contains(lower, []byte("--header"))
		url := bytes.IndexByte(line, '@') >= 0
		if !code && !header && !url {
			continue
		}
		if budget -= len(line); budget < 0 {
			return true
		}
		if code && codeLineGives(text, fenced) || header && headerLiteral(line, true) || url && proseURL(mailLink().ReplaceAll(line, []byte("mailto "))) {
			return true
		}
	}
	return false
}

// codeLineGives says a line of prose's code gives a literal to a
// credential's name (givesUnplaceholder): the whole line in a code
// block, each inline code span (inlineCode) elsewhere.
func codeLineGives(line []byte, fenced bool) bool {
	if fenced {
		return givesUnplaceholder(line)
	}
	for _, span := range inlineCode(line) {
		if givesUnplaceholder(span) {
			return true
		}
	}
	return false
}

// proseURL says a line of prose holds a URL with a credential in it, as
// InURL reads one, but a proxy's address without a scheme whose
// password reads as words or a placeholder (unplaceholder): such prose
// writes a package's alias (npm:pkg@1.0.0) and an editor's registers
// (:let @a, :@@) in that shape.
func proseURL(line []byte) bool {
	if bytes.IndexByte(line, '@') < 0 {
		return false
	}
	if bytes.Contains(line, []byte("scm:")) {
		line = scmPrefix().ReplaceAll(line, nil)
	}
	if len(tokenUser(line)) > 0 {
		return true
	}
	for _, m := range urlCredential().FindAll(line, -1) {
		if bytes.Contains(m, []byte("://")) {
			return true
		}
		m = bytes.TrimSuffix(bytes.TrimLeft(m, " \t\"'=,;"), []byte("@"))
		if _, password, ok := bytes.Cut(m, []byte(":")); ok && unplaceholder(password) {
			return true
		}
	}
	return false
}

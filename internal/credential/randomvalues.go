package credential

import (
	"bytes"
	"slices"
	"strings"
)

// The bounds of a value randomValue reads as a token: Alpha Vantage's
// are 16 characters, Vercel's 24, Cloudflare's global API key 37, most
// services' 32 to 64.
const (
	minRandomValue = 16
	maxRandomValue = 64
)

// idNames are how a setting's name ends that says its value is an
// identifier, which services draw at random too (a Google Sheet's, a
// Drive file's, an account's): no credential.
var idNames = []string{"id", "ids", "uuid", "guid", "sheet", "folder", "channel", "hash", "sha", "digest", "checksum", "version", "ref", "commit", "revision", "sum", "tree", "md", "name", "etag", "serial", "number", "algorithm", "algorithms"}

// randomValue says a settings text gives a value, whole or as a list's
// item (listItem), of 16 to 64 of a token's characters drawn at random
// (drawnAtRandom) to a name (two characters or more, a letter in it: a
// number before a colon is a time's, a count's) that says no
// identifier. A service whose token has
// no prefix (Cloudflare's, Vercel's, Pushover's) gives none to look for,
// and under a name that says nothing ({"cloudflare": "…"}, VERCEL=…) it
// crossed. Words joined in camel case with an acronym
// (EnableMASM51Compatibility, AWSEC2InstanceConnectService), a number in
// hex, a base64 with its padding, a UUID are none. Read without an
// expression, each byte once.
func randomValue(data []byte) bool {
	return randomGiven(data, func(data []byte, start, end int) string {
		if name := wholeValue(data, start, end); name != "" {
			return name
		}
		return listItem(data, start, end)
	}, nil)
}

// InCodeByName says a script or a source a person writes (a skill's
// purge.py, its push.mjs) gives a string literal, whole and quoted, of
// 16 to 64 of a token's characters drawn at random (drawnAtRandom) to a
// name that says no identifier and no value a test expects: CF = "…",
// const PUSHOVER_APP = '…' crossed, judged as code is (InCode: a token by
// its prefix, under a name that says a secret), where the same line in a
// shell's script was kept out. What is no string (v.Op =
// OpAMD64VAESDEC128, a comment's // Output: 85cd…) is code's own, and a
// test's vectors (expected = '6e9e…', want, exp) and checksums (md5,
// sha256, digest) are named so. Read without an expression, each byte
// once.
func InCodeByName(data []byte) bool {
	return randomGiven(data, quotedValue, namesExpected)
}

// randomWord says a command gives, as one of its words, a token drawn at
// random (drawnAtRandom) to a name that says nothing and no identifier:
// an assignment before the program's name (PUSHOVER_APP=… notify), a
// form's field or an option's value (curl -d app=…, --app=…), or the
// word after an option (notify --app …, optionWord). A hook's command in
// settings.json written so crossed, as did a script's line.
func randomWord(data []byte) bool {
	return randomGiven(data, func(data []byte, start, end int) string {
		if name := assignedWord(data, start, end); name != "" {
			return name
		}
		return optionWord(data, start, end)
	}, nil)
}

// randomGiven says data gives a value of 16 to 64 of a token's
// characters drawn at random to a name (two characters or more, a letter
// in it) that says no identifier, and that refused, where given, does
// not refuse; given says the name data[start:end] is given to, empty
// where it is not given whole.
func randomGiven(data []byte, given func(data []byte, start, end int) string, refused func(name string) bool) bool {
	return anyDrawnWord(data, func(start, end int) bool {
		name := given(data, start, end)
		return len(name) >= 2 && strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") && !namesIdentifier(name) && (refused == nil || !refused(name))
	})
}

// anyDrawnWord says found holds for a run of a token's characters in
// data, data[start:end], of 16 to 64 of them drawn at random
// (drawnAtRandom). Each byte is read once.
func anyDrawnWord(data []byte, found func(start, end int) bool) bool {
	for i := 0; i < len(data); {
		if !isTokenByte(data[i]) {
			i++
			continue
		}
		start := i
		for i < len(data) && isTokenByte(data[i]) {
			i++
		}
		if n := i - start; n >= minRandomValue && n <= maxRandomValue && drawnAtRandom(data[start:i]) && found(start, i) {
			return true
		}
	}
	return false
}

// wholeValue is the name data[start:end] is given as a setting's whole
// value (valueName), empty where it is not one: after : or =, spaces and
// a quote between, and before its closing quote, a comma, a brace, a ;
// or the line's end, spaces and a comment between or not (valueEnds).
func wholeValue(data []byte, start, end int) string {
	q := start
	if q > 0 && (data[q-1] == '"' || data[q-1] == '\'') {
		q--
	}
	for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
		q--
	}
	if q == 0 || data[q-1] != ':' && data[q-1] != '=' {
		return ""
	}
	if end == len(data) || strings.IndexByte("\"'\r\n,};", data[end]) >= 0 || valueEnds(data[end:]) {
		return valueName(data, start)
	}
	return ""
}

// listItem is the name a list is given (valueName) whose item, whole,
// data[start:end] is, empty where it is none: a JSON array's element,
// quoted (after [ or a comma: a shell's [0-9a-zA-Z] unquoted is a
// pattern's), or a YAML list's item (after a - that begins its line),
// before a quote, a comma, a ] or the line's end. A skill's
// {"pushover": ["…", "…"]} and its keys:\n  - … crossed, given to no
// name of their own.
func listItem(data []byte, start, end int) string {
	q := start
	quoted := q > 0 && (data[q-1] == '"' || data[q-1] == '\'')
	if quoted {
		q--
	}
	for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
		q--
	}
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	if q == 0 || end < len(data) && strings.IndexByte("\"',]\r\n", data[end]) < 0 {
		return ""
	}
	switch data[q-1] {
	case '[', ',':
		if quoted || flowSequence(data, q-1) {
			return valueName(data, start)
		}
	case '-':
		p := q - 1
		for p > 0 && (data[p-1] == ' ' || data[p-1] == '\t') {
			p--
		}
		if p == 0 || data[p-1] == '\n' {
			return valueName(data, start)
		}
	}
	return ""
}

// flowSequence says the [ or the comma at data[at] is a YAML flow
// sequence's, given to a name (a : or = before its [, spaces between),
// the [ on the same line and at most 128 bytes before: a skill's keys:
// [… , …] unquoted crossed. Read back a bounded way, each item once.
func flowSequence(data []byte, at int) bool {
	open := at
	for open >= max(0, at-128) && data[open] != '[' {
		if data[open] == '\n' || data[open] == ']' {
			return false
		}
		open--
	}
	if open < max(0, at-128) {
		return false
	}
	p := open
	for p > 0 && (data[p-1] == ' ' || data[p-1] == '\t') {
		p--
	}
	return p > 0 && (data[p-1] == ':' || data[p-1] == '=')
}

// assignedWord is NAME of a command's word NAME=VALUE whose value is
// data[start:end], empty where it is none: an = right before it, the
// name a word of its own (after a space, a quote, the line's start or a
// shell's ; ( or `: not a URL's & or ?, whose query InURLQuery judges),
// and a word's end after it (wordEnds).
func assignedWord(data []byte, start, end int) string {
	if start < 2 || data[start-1] != '=' {
		return ""
	}
	from := start - 1
	for from > 0 && isTokenByte(data[from-1]) {
		from--
	}
	if from == start-1 || from > 0 && strings.IndexByte(" \t\r\n\"';(`", data[from-1]) < 0 || !wordEnds(data, end) {
		return ""
	}
	return valueName(data, start)
}

// optionWord is the name of the option (-app, --app, without its dashes,
// in lower case) whose value a command's next word, data[start:end], is,
// quoted or not, empty where it is none: the option a word of its own
// (after a space, a quote, the line's start or a shell's ; ( or `),
// spaces between or none, and a word's end after the value (wordEnds).
// A hook's ~/bin/notify --app … --user …, and a script's, crossed. A
// commit's, a hash's or a key's hex (hexName: git show --stat 4b82…)
// follows an option that takes no value as often, and is none.
func optionWord(data []byte, start, end int) string {
	q := start
	if q > 0 && (data[q-1] == '"' || data[q-1] == '\'') {
		q--
	}
	for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
		q--
	}
	from := q
	for from > 0 && isTokenByte(data[from-1]) {
		from--
	}
	if from == q || data[from] != '-' || from > 0 && strings.IndexByte(" \t\r\n\"';(`", data[from-1]) < 0 || !wordEnds(data, end) || hexName(data[start:end]) {
		return ""
	}
	return strings.ToLower(strings.TrimLeft(string(data[from:q]), "-"))
}

// wordEnds says a command's word ends at end: a space, a quote, the
// line's end or a shell's ; & | ) or ` follows.
func wordEnds(data []byte, end int) bool {
	return end == len(data) || strings.IndexByte(" \t\r\n\"';&|)`", data[end]) >= 0
}

// hexName says v is 40 or 64 hex digits of one case, a commit's name, a
// SHA-1's or a SHA-256's, or 16, an OpenPGP key's long id (gpg
// --recv-keys 3AA5C34371567BD2, git's user.signingkey).
func hexName(v []byte) bool {
	if len(v) != 16 && len(v) != 40 && len(v) != 64 {
		return false
	}
	lower, upper := true, true
	for _, c := range v {
		lower = lower && (isDigit(c) || 'a' <= c && c <= 'f')
		upper = upper && (isDigit(c) || 'A' <= c && c <= 'F')
	}
	return lower || upper
}

// quotedValue is the name a string literal, data[start:end], is given
// whole in code (valueName), empty where it is none: a quote before it
// (", ', a template's `) and the same after, and before the first,
// spaces and a : or = (Go's :=).
func quotedValue(data []byte, start, end int) string {
	if start < 2 || end >= len(data) || strings.IndexByte("\"'`", data[start-1]) < 0 || data[end] != data[start-1] {
		return ""
	}
	q := start - 1
	for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
		q--
	}
	if q > 0 && (data[q-1] == ':' || data[q-1] == '=') {
		return valueName(data, start)
	}
	return ""
}

// testNames are what a test names the value it expects, which a test
// vector's hex or a hash's output is: no credential.
var testNames = []string{"expected", "expect", "want", "wanted", "exp", "output", "result"}

// namesExpected says a name in code (in lower case) ends in one of
// testNames.
func namesExpected(name string) bool {
	return slices.ContainsFunc(testNames, func(t string) bool { return strings.HasSuffix(name, t) })
}

// valueEnds says rest, what follows a value, is spaces up to the line's
// end or a comment (#, ; or //): a token written so in a script
// (CF_GLOBAL=… # from the dashboard), in YAML or in an INI file, or with
// a space left at the line's end, crossed where the line's end alone was
// read as the value's.
func valueEnds(rest []byte) bool {
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	if i == 0 {
		return false
	}
	return i == len(rest) || rest[i] == '\r' || rest[i] == '\n' || rest[i] == '#' || rest[i] == ';' || bytes.HasPrefix(rest[i:], []byte("//"))
}

// valueName is the name a value at start is given (the key before its :
// or =, or Go's :=, without quotes), in lower case; empty where there is
// none.
func valueName(data []byte, start int) string {
	sep := bytes.LastIndexAny(data[max(0, start-128):start], ":=")
	if sep < 0 {
		return ""
	}
	key := bytes.TrimRight(bytes.TrimSuffix(data[max(0, start-128):max(0, start-128)+sep], []byte(":")), " \t\"'")
	from := len(key)
	for from > 0 && (isTokenByte(key[from-1]) || key[from-1] == '.') {
		from--
	}
	return strings.ToLower(string(key[from:]))
}

// keyIDs are names that end as an identifier's do but that services give
// their API key: OpenWeatherMap's and Wolfram|Alpha's appid (a weather
// skill's {"appid": "…"}, OWM_APPID = "…" crossed). Of this machine's
// settings and prose, 19 files give appid or app_id a value, none of
// them a token drawn at random.
var keyIDs = []string{"appid", "app_id", "app-id"}

// namesIdentifier says a setting's name (in lower case) says its value
// identifies a thing: it ends in one of idNames, digits after it or not
// (sha256), and in none of keyIDs.
func namesIdentifier(name string) bool {
	name = strings.TrimRight(name, "0123456789")
	if slices.ContainsFunc(keyIDs, func(k string) bool { return strings.HasSuffix(name, k) }) {
		return false
	}
	for _, id := range idNames {
		if strings.HasSuffix(name, id) {
			return true
		}
	}
	return false
}

// drawnAtRandom says v, a token's characters, reads as drawn at random
// from one of the alphabets tokens are drawn from. Of small and capital
// letters and digits (a - or _ among them at most once in 8): less than
// two thirds of its letters in words (wordLetters), as an identifier's
// words joined in camel case are (ParseTimeOfDayMainWindowV1Alpha,
// EnableMASM51Compatibility). Of one case of letters and digits alone,
// hex (Cloudflare's global API key, Twilio's, Datadog's) or base 36
// (Pushover's, Alpha Vantage's): a letter and a digit changing places
// at least once in three characters, as a name's do not (ubuntu2204,
// python3x11libs). Before, only small and capital letters and digits
// together were read, and as words wherever three small letters, a
// capital and two small ones or two capitals stood together, which
// three in four tokens drawn at random from them hold: they crossed,
// and every token in hex or one case too (TestTokensDrawnAtRandom).
func drawnAtRandom(v []byte) bool {
	if len(v) < minRandomValue {
		return false
	}
	// A number in hex (0x7FF8000000000001) is a constant's, an address's.
	if v[0] == '0' && (v[1] == 'x' || v[1] == 'X') {
		return false
	}
	var small, capital, digit bool
	letters, changes, separators := 0, 0, 0
	for i, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			small, letters = true, letters+1
		case 'A' <= c && c <= 'Z':
			capital, letters = true, letters+1
		case isDigit(c):
			digit = true
		default:
			separators++
		}
		if i > 0 && isDigit(c) != isDigit(v[i-1]) {
			changes++
		}
	}
	switch {
	case !digit || 8*separators > len(v):
		// Words and numbers joined (BSD-2-clause-NetBSD,
		// RSASSA-PKCS1-v1_5); a base64url token holds a - or _ once in
		// 32 characters.
		return false
	case small && capital:
		return 3*wordLetters(v) < 2*letters
	case separators > 0 || letters == 0:
		return false
	}
	return 10*changes >= 3*(len(v)-1)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// wordLetters counts the letters of v that lie in words: a run of small
// letters three or more long, or two after a capital, and an acronym's
// five or more capitals (MIPSFPU). A random draw holds shorter runs.
func wordLetters(v []byte) int {
	isSmall := func(c byte) bool { return 'a' <= c && c <= 'z' }
	isCapital := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	n := 0
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && isCapital(v[j]) {
			j++
		}
		if j-i >= 5 {
			n, i = n+j-i, j
			continue
		}
		if j > i {
			// The last capital may begin a word.
			i = j - 1
		}
		k := i
		if isCapital(v[k]) {
			k++
		}
		for k < len(v) && isSmall(v[k]) {
			k++
		}
		if k-i >= 3 {
			n += k - i
		}
		i = max(k, i+1)
	}
	return n
}

// commandWordDrawn says a command or a script has a word of its own
// (after a space, a quote, the line's start or a shell's ; ( or `, and
// before a word's end: wordEnds) of 16 to 64 of a token's characters
// drawn at random (drawnAtRandom), wherever it stands: a program's
// argument, the word after a one-letter option (pushover -t …) or one
// named for an identifier (--client-id …). In a command a name says
// nothing of the word after it, so the question is inverted: what is
// known harmless in a word's place is a commit's, a hash's or a key's
// hex (hexName); anything else drawn at random is taken for a token.
// Read without an expression, each byte once.
func commandWordDrawn(data []byte) bool {
	return anyDrawnWord(data, func(start, end int) bool {
		return (start == 0 || strings.IndexByte(" \t\r\n\"';(`", data[start-1]) >= 0) && wordEnds(data, end) && !hexName(data[start:end])
	})
}

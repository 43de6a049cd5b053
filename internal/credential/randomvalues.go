package credential

import (
	"bytes"
	"strings"
)

// The bounds of a value randomValue reads as a token: Vercel's are 24
// characters, Cloudflare's API tokens 40, most services' 32 to 64.
const (
	minRandomValue = 24
	maxRandomValue = 64
)

// idNames are how a setting's name ends that says its value is an
// identifier, which services draw at random too (a Google Sheet's, a
// Drive file's, an account's): no credential.
var idNames = []string{"id", "ids", "uuid", "guid", "sheet", "folder", "channel", "hash", "sha", "digest", "checksum", "version", "ref", "commit", "revision", "sum"}

// randomValue says a settings text gives a value, whole, of 24 to 64 of
// a token's characters drawn at random: small and capital letters and
// digits, each of the three, most of its letters in no word
// (drawnAtRandom), to a name (a letter in it: a number before a colon is
// a time's, a count's) that says no identifier. A service whose token has no prefix
// (Cloudflare's, Vercel's) gives none to look for, and under a name
// that says nothing ({"cloudflare": "…"}, VERCEL=…) it crossed. Words
// joined in camel case with an acronym (EnableMASM51Compatibility,
// AWSEC2InstanceConnectService), a hash in hex, a base64 with its
// padding are none. Read without an expression, each byte once.
func randomValue(data []byte) bool {
	for i := 0; i < len(data); {
		if !isTokenByte(data[i]) {
			i++
			continue
		}
		start := i
		for i < len(data) && isTokenByte(data[i]) {
			i++
		}
		if n := i - start; n < minRandomValue || n > maxRandomValue || !wholeValue(data, start, i) || !drawnAtRandom(data[start:i]) {
			continue
		}
		if name := valueName(data, start); strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") && !namesIdentifier(name) {
			return true
		}
	}
	return false
}

// wholeValue says data[start:end] is a setting's whole value: after :
// or =, spaces and a quote between, and before its closing quote, a
// comma, a brace or the line's end.
func wholeValue(data []byte, start, end int) bool {
	q := start
	if q > 0 && (data[q-1] == '"' || data[q-1] == '\'') {
		q--
	}
	for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
		q--
	}
	if q == 0 || data[q-1] != ':' && data[q-1] != '=' {
		return false
	}
	return end == len(data) || strings.IndexByte("\"'\r\n,}", data[end]) >= 0
}

// valueName is the name a value at start is given (the key before its :
// or =, without quotes), in lower case; empty where there is none.
func valueName(data []byte, start int) string {
	sep := bytes.LastIndexAny(data[max(0, start-128):start], ":=")
	if sep < 0 {
		return ""
	}
	key := bytes.TrimRight(data[max(0, start-128):max(0, start-128)+sep], " \t\"'")
	from := len(key)
	for from > 0 && (isTokenByte(key[from-1]) || key[from-1] == '.') {
		from--
	}
	return strings.ToLower(string(key[from:]))
}

// namesIdentifier says a setting's name (in lower case) says its value
// identifies a thing: it ends in one of idNames, digits after it or not
// (sha256).
func namesIdentifier(name string) bool {
	name = strings.TrimRight(name, "0123456789")
	for _, id := range idNames {
		if strings.HasSuffix(name, id) {
			return true
		}
	}
	return false
}

// drawnAtRandom says v, a token's characters, reads as drawn at random:
// small and capital letters and digits all in it, and less than half its
// letters in words (wordLetters: a capital and two or more small letters,
// three or more small ones, an acronym's two or more capitals), as an
// identifier's words joined in camel case are
// (ParseTimeOfDayMainWindowV1Alpha, LOOKER_CORE_STANDARD_ANNUAL).
func drawnAtRandom(v []byte) bool {
	var small, capital, digit bool
	letters := 0
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			small, letters = true, letters+1
		case 'A' <= c && c <= 'Z':
			capital, letters = true, letters+1
		case '0' <= c && c <= '9':
			digit = true
		}
	}
	return small && capital && digit && 2*wordLetters(v) < letters
}

// wordLetters counts the letters of v that lie in words: a run of small
// letters three or more long, or two after a capital, or of two or more
// capitals.
func wordLetters(v []byte) int {
	isSmall := func(c byte) bool { return 'a' <= c && c <= 'z' }
	isCapital := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	n := 0
	for i := 0; i < len(v); {
		switch {
		case isCapital(v[i]):
			j := i
			for j < len(v) && isCapital(v[j]) {
				j++
			}
			k := j
			for k < len(v) && isSmall(v[k]) {
				k++
			}
			switch {
			case j-i == 1 && k-j >= 2:
				n += k - i
			case j-i >= 2:
				n += j - i
				if k-j >= 3 {
					n += k - j
				}
			}
			i = k
		case isSmall(v[i]):
			j := i
			for j < len(v) && isSmall(v[j]) {
				j++
			}
			if j-i >= 3 {
				n += j - i
			}
			i = j
		default:
			i++
		}
	}
	return n
}

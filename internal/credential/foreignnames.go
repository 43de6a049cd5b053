package credential

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// passwordWords are the words for a password in the languages people
// write their notes and settings in, in lower case: German's,
// French's, Spanish's, Portuguese's, Italian's and Turkish's, the Nordic
// and Slavic languages', Russian's, Chinese's, Japanese's, Korean's and
// others'. Every judge read English names only, so a CLAUDE.md's
// "Passwort der Staging-DB: …" and a skill's {"contraseña": "…"} crossed.
var passwordWords = []string{
	"passwort", "kennwort", "mot de passe", "motdepasse",
	"contraseña", "contrasena", "contrasenya", "senha", "parolă", "şifre", "şifresi", "sifre",
	"wachtwoord", "lösenord", "losenord", "adgangskode", "passord", "salasana", "parool",
	"hasło", "haslo", "heslo", "jelszó", "jelszo", "lozinka", "лозинка", "geslo", "slaptažodis",
	"пароль", "пароля", "密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호", "암호",
	"mật khẩu", "mat khau", "kata sandi", "katasandi", "kata laluan", "รหัสผ่าน",
	"كلمة المرور", "كلمة السر", "סיסמה", "סיסמא", "पासवर्ड", "κωδικός πρόσβασης",
}

// passwordWordHints are text one of passwordWords holds in any case:
// of each word (of words, the last, when of three letters or more),
// what follows its first letter (which a capital may begin), four
// letters at most, in lower and in upper case. A text
// with none of them holds none of the words.
var passwordWordHints = sync.OnceValue(func() [][]byte {
	var hints [][]byte
	for _, w := range passwordWords {
		if words := strings.Fields(w); len([]rune(words[len(words)-1])) >= 3 {
			w = words[len(words)-1]
		}
		r := []rune(w)[1:]
		part := string(r[:min(len(r), 4)])
		for _, h := range []string{part, strings.ToUpper(part)} {
			if !slices.ContainsFunc(hints, func(x []byte) bool { return string(x) == h }) {
				hints = append(hints, []byte(h))
			}
		}
	}
	return hints
})

// holdsPasswordWordHint says text holds one of passwordWordHints.
func holdsPasswordWordHint(text []byte) bool {
	return slices.ContainsFunc(passwordWordHints(), func(h []byte) bool { return bytes.Contains(text, h) })
}

// maxLabelGap bounds the words between a password's word and what gives
// it its value, as other languages write them after the word: "Mot de
// passe du serveur : …", "Пароль от сервера: …", "Contraseña de la base:".
const maxLabelGap = 40

// foreignPassword says text gives a value to a name or a label that
// holds a password's word of another language (passwordWords): a key
// ({"passwort": "…"}, kennwort=…) in settings, a label at a note's line's
// end in prose, a few words after the word allowed before its :, =, |
// or a full-width colon. The value is ASCII (a password typed on any
// keyboard; a localised message's own words are not), one word, and
// no switch, number, variable, path, URL or call; in prose
// (labelled), of 8 or more characters and not words, as
// labelledLiteral's (unplaceholder).
func foreignPassword(text []byte, labelled bool) bool {
	if !holdsPasswordWordHint(text) {
		return false
	}
	for line := range bytes.SplitSeq(text, []byte("\n")) {
		if !holdsPasswordWordHint(line) {
			continue
		}
		lower := strings.ToLower(string(line))
		// A name's words may be joined by _ or - (mot_de_passe).
		spaced := strings.NewReplacer("_", " ", "-", " ").Replace(lower)
		for _, word := range passwordWords {
			for at := 0; ; {
				i := strings.Index(spaced[at:], word)
				if i < 0 {
					break
				}
				at += i + len(word)
				if value, ok := givenAfter(lower, at, line, labelled); ok && foreignValue(value, labelled) {
					return true
				}
			}
		}
	}
	return false
}

// maxForeignValue bounds a value givenAfter reads, and what of a line
// after it it looks at: each of a word's places is read a bounded
// window, so a line of one word said again and again costs its length.
const maxForeignValue = 256

// givenAfter is the value given to the name or label that ends at in
// lower (line, in lower case), and whether one is: at most maxLabelGap
// bytes of the label's words (no quote, no separator), or of a key's
// name's letters, digits and _ . - in settings, a closing quote, then
// :, =, |, a full-width colon, or Markdown's emphasis before one, and
// the value after spaces and an opening quote, to a space, a quote, a
// comma, a brace or a bracket, of at most maxForeignValue bytes; in
// prose (labelled), at the line's end. The value is cut from line, whose
// case it keeps (lower is as long where line is ASCII; a line whose
// lower case changed its length is read in lower case).
func givenAfter(lower string, at int, line []byte, labelled bool) (string, bool) {
	rest := lower[at:min(len(lower), at+maxLabelGap+16+2*maxForeignValue)]
	head := rest[:min(len(rest), maxLabelGap+len("："))]
	gap := strings.IndexAny(head, `:=|"'`+"`\n")
	if colon := strings.Index(head, "："); colon >= 0 && (gap < 0 || colon < gap) {
		gap = colon
	}
	if gap < 0 || gap > maxLabelGap || !labelled && strings.TrimLeft(strings.TrimRight(rest[:gap], " \t"), "abcdefghijklmnopqrstuvwxyz0123456789_.-") != "" {
		return "", false
	}
	p := gap
	for p < len(rest) && strings.IndexByte(`"'*_`+"` \t", rest[p]) >= 0 {
		p++
	}
	switch {
	case strings.HasPrefix(rest[p:], "："):
		p += len("：")
	case p < len(rest) && strings.IndexByte(":=|", rest[p]) >= 0:
		p++
	default:
		return "", false
	}
	for p < len(rest) && strings.IndexByte(`"'*_`+"` \t", rest[p]) >= 0 {
		p++
	}
	end := p
	for end < len(rest) && end-p < maxForeignValue && strings.IndexByte(" \t\r\"'`,;{}[]()|*", rest[end]) < 0 {
		end++
	}
	var value string
	if len(line) == len(lower) {
		value = string(line[at+p : at+end])
	} else {
		value = rest[p:end]
	}
	value = strings.TrimRight(value, ".")
	if labelled {
		// A note's label gives its value at the line's end.
		after := lower[at+end:]
		if len(after) > maxForeignValue || strings.TrimSpace(strings.Trim(after, `"'*_.,;)|`+"`")) != "" {
			return "", false
		}
	}
	return value, value != ""
}

// foreignValue says value, given to a password's word of another
// language, is a literal one: ASCII, no switch or number, variable,
// template, markup's entity (&quot;), path or URL; labelled prose's of 8 or more characters and
// not words (unplaceholder).
func foreignValue(value string, labelled bool) bool {
	for i := 0; i < len(value); i++ {
		if value[i] >= utf8.RuneSelf || value[i] < ' ' {
			return false
		}
	}
	if !literal(value) || strings.ContainsAny(value[:1], "<$%{[/~.&") || strings.Contains(value, "://") || strings.Contains(value, "(") || pathLike(value) {
		return false
	}
	return !labelled || len(value) >= 8 && unplaceholder([]byte(value))
}

package credential

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The credentials a settings file keeps under a name no other
// expression reads as one's: a password's word joined to what it is
// for with no separator (.NET's SMTPPass, DBPASS=, slapd's rootpw), a
// TOTP seed under totp or mfa, a wallet's recovery words under
// mnemonic.

// joinedPassword is a literal given to a name that ends in a password's
// word joined to what precedes it, in any case (SMTPPass, DBPwd,
// DBPASS, MYSQLPWD, dbpass, rootpw). The name is the first group, the
// value the second.
var joinedPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|[{,;])[ \t-]*(?:export[ \t]+)?["']?([A-Za-z0-9]*[A-Za-z0-9](?i:pass|pwd|pw))["']?[ \t]*[:=][ \t]*["']?([^\s"'$<{\[#%,}\]][^\s"',}]*)`)
})

// passWords are the words that end as a password's name does and are
// none (a proxy's bypass list, the shell's OLDPWD, a path).
var passWords = []string{"bypass", "compass", "surpass", "overpass", "underpass", "trespass", "oldpwd"}

// versionRange is a package's version or range, as package-lock.json
// gives one to minipass.
var versionRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\^~>=<v]*[0-9]+(\.[0-9x*]+)*$`)
})

// joinedPasswordLiteral says text gives a literal, not a switch, a
// number, a version or a path, to a name joinedPassword reads.
func joinedPasswordLiteral(text []byte) bool {
	for _, m := range joinedPassword().FindAllSubmatch(text, -1) {
		name, value := strings.ToLower(string(m[1])), string(m[2])
		if name == "pwd" || strings.HasPrefix(value, "/") || !literal(value) || versionRange().MatchString(value) {
			continue
		}
		if !slices.ContainsFunc(passWords, func(w string) bool { return strings.HasSuffix(name, w) }) {
			return true
		}
	}
	return false
}

// otpSeedGiven is a TOTP seed, 16 or more characters of base32 in
// groups of four (as an authenticator shows it, spaces between or
// not), given to a name that says one (totp, otp, mfa, 2fa, with or
// without _seed, _key or _code after). The seed is the first group.
var otpSeedGiven = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:^|[{,;\s])["']?(?:[a-z0-9_.-]*[_.-])?(?:totp|otp|mfa|2fa)(?:[_.-]?(?:seed|key|code))?["']?[ \t]*[:=][ \t]*["']?([A-Z2-7]{4}(?:[ ]?[A-Z2-7]{4}){3,}=*)(?:["']|[ \t]*(?:[,}]|\r?$))`)
})

// otpSeed says text gives a TOTP seed to a name that says one
// (otpSeedGiven), a digit of base32's among it (words are none: mfa:
// required).
func otpSeed(text []byte) bool {
	for _, m := range otpSeedGiven().FindAllSubmatch(text, -1) {
		if strings.ContainsAny(string(m[1]), "234567") {
			return true
		}
	}
	return false
}

// recoveryWordsGiven is a wallet's recovery words (12 to 24 words of 3
// to 8 small letters, as BIP-39's list has them) given to a name that
// says them (mnemonic, seed, seed_phrase, recovery_words, …). The words
// are the first group.
var recoveryWordsGiven = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:^|[{,;\s])["']?(?:[a-z0-9_.-]*[_.-])?(?:mnemonic|seed|seed[_.-]?phrase|seed[_.-]?words|recovery[_.-]?(?:phrase|words|seed)|secret[_.-]?phrase|wallet[_.-]?phrase)["']?[ \t]*[:=][ \t]*["']?([a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23})(?:["']|[ \t]*(?:[,}]|\r?$))`)
})

// recoveryWords says text gives a wallet's recovery words to a name
// that says them: a multiple of three words, as BIP-39 counts them.
func recoveryWords(text []byte) bool {
	for _, m := range recoveryWordsGiven().FindAllSubmatch(text, -1) {
		if len(strings.Fields(string(m[1])))%3 == 0 {
			return true
		}
	}
	return false
}

// secretNameHints are what every text otpSeed or recoveryWords finds
// holds, in lower case.
var secretNameHints = []string{"otp", "mfa", "2fa", "mnemonic", "seed", "recovery", "phrase"}

package claudesettings

import "github.com/claudebox/claudebox/internal/credential"

// TokenPrefixes matches, in a regular expression, the prefixes known
// services give their tokens (credential.TokenPrefixes).
const TokenPrefixes = credential.TokenPrefixes

// HasCommandCredential says a command's text, or a script's, holds a
// credential: one in a URL, a URL that is one, a user's password on the
// command line, or one written as a literal.
func HasCommandCredential(data []byte) bool {
	return credential.InCommand(data)
}

package claudesettings

import (
	"bytes"
	"regexp"
	"sync"
)

// urlCredential is the one definition of a credential in a URL, which
// every copy of the user's files that leaves credentials out shares
// (Claude Code's settings, git's configuration, the tools' settings): a
// password after a user in any scheme's URL (https://oauth2:TOKEN@gitlab…,
// git+ssh://me:pw@host), or in a proxy's address without a scheme
// (http.proxy = user:pw@proxy:3128, which git accepts), and a user of 20
// or more token characters, where a token passes as the user
// (https://ghp_…@github.com). A user name alone (ssh://git@host,
// https://alice@host) is not one. The user information runs to the
// authority's last @, as URL parsers read it, so that taking the match out
// leaves no part of it.
var urlCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(\b[a-z][a-z0-9+.-]*://)(?:[^\s/?#:"'\\]*:[^\s/?#"'\\]+|[a-z0-9._~%+=-]{20,})@|(^|[\s"'=,;])[^\s/?#@:"'=,;\\]+:[^\s/?#"'\\]+@`)
})

// HasURLCredential says data holds a URL with a credential in it.
func HasURLCredential(data []byte) bool {
	return urlCredential().Match(data)
}

// WithoutURLCredentials is data with every URL's credential taken out
// (the URL names the same host and path), and whether there was one.
func WithoutURLCredentials(data []byte) ([]byte, bool) {
	out := urlCredential().ReplaceAll(data, []byte("$1$2"))
	return out, !bytes.Equal(out, data)
}

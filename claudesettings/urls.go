package claudesettings

import (
	"bytes"
	"regexp"
)

// urlCredential is the part of a URL that may be a credential: a
// password after a user (https://oauth2:TOKEN@gitlab…, as `claude plugin
// marketplace add` takes a private marketplace), or any user of an
// http(s) URL, where a token passes as the user (https://ghp_…@github.com).
// A user alone in another scheme's URL (ssh://git@host) is not one.
var urlCredential = regexp.MustCompile(`(?i)\b(https?://)[^\s/@"'\\]+@|\b([a-z][a-z0-9+.-]*://)[^\s/@:"'\\]*:[^\s/@"'\\]+@`)

// WithoutURLCredentials is data with every URL's credential taken out
// (the URL names the same host and path), and whether there was one.
func WithoutURLCredentials(data []byte) ([]byte, bool) {
	out := urlCredential.ReplaceAll(data, []byte("$1$2"))
	return out, !bytes.Equal(out, data)
}

package claudesettings

import "github.com/claudebox/claudebox/internal/credential"

// HasURLCredential says data holds a URL with a credential in it
// (credential.InURL).
func HasURLCredential(data []byte) bool {
	return credential.InURL(data)
}

// WithoutURLCredentials is data with every URL's credential taken out
// (the URL names the same host and path), and whether there was one.
func WithoutURLCredentials(data []byte) ([]byte, bool) {
	return credential.WithoutURL(data)
}

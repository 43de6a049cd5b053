package credential

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestEncodedPrivateKeyWrapped: a private key in base64 wrapped at 76
// characters, as base64 writes it (a Secret's block, a string's \n, a
// .b64 file), under a name that says nothing, is found: one line holds
// the armor and too little of the body to judge. A certificate so
// wrapped, and the armor's base64 in prose, are not.
func TestEncodedPrivateKeyWrapped(t *testing.T) {
	wrap := func(pem, sep string) string {
		b := base64.StdEncoding.EncodeToString([]byte(pem))
		var lines []string
		for len(b) > 76 {
			lines, b = append(lines, b[:76]), b[76:]
		}
		return strings.Join(append(lines, b), sep)
	}
	body := "MIIEowIBAAKCAQEA0HLgvpsbGmVyb3VuZWQz2kQ8r7x1ZpLmT2vXr7BQpwZkLmTvXrB\n"
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + body + "-----END OPENSSH PRIVATE KEY-----\n"
	cert := "-----BEGIN CERTIFICATE-----\n" + body + body + "-----END CERTIFICATE-----\n"
	for text, want := range map[string]bool{
		"deploy: " + wrap(key, "\n") + "\n":                         true,
		"data:\n  id: |\n    " + wrap(key, "\n    ") + "\n":         true,
		"const blob = \"" + wrap(key, "\\n") + "\";\n":              true,
		"ca: " + wrap(cert, "\n") + "\n":                            false,
		"The armor starts LS0tLS1CRUdJTi and then\nwhat follows.\n": false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%.40q) = %v, want %v", text, got, want)
		}
		if got := InCode([]byte(text)); got != want {
			t.Errorf("InCode(%.40q) = %v, want %v", text, got, want)
		}
	}
}

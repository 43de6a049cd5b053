package credential

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestTokensDrawnAtRandom: a token with no prefix, drawn at random from
// small and capital letters and digits, from hex's, or from one case of
// letters and digits, 16 to 64 characters, given whole to a name that
// says nothing, is a credential in settings of any size and in a note's
// label, and in a script; of 1,000 tokens drawn from each alphabet, most are found (three
// in four drawn from small and capital letters and digits, and none of
// the others, were before). An identifier's value, a number in hex,
// words joined, a UUID are none.
func TestTokensDrawnAtRandom(t *testing.T) {
	var filler strings.Builder
	for filler.Len() <= 16<<10 {
		filler.WriteString("- site: www.example.com\n  region: eu-west-1\n")
	}
	for _, text := range []string{
		`{"cloudflare": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1"}`,
		"owm: 3F2A9C1B7E4D5A6F8B0C2D4E6F8A1B3C\n",
		`{"pushover": {"app": "azgdhr9x2kq7mvp3lw8ncf5tby1ejs"}}`,
		"alphavantage = \"Q7XK2M9PLR4TNV8B\"\n",
		`{"netlify": "DcmJKWAjvBiKPfGwjJbYUpTXggfLE4RnS15YaRqb"}`,
		`{"mailgun": "aB3dE5fG7hJ9kL2mN4pQ"}`,
		"WALLET=4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318\n",
	} {
		if !InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = false, want true", text)
		}
		if large := filler.String() + text; !InLargeSettings([]byte(large)) {
			t.Errorf("InLargeSettings(%d bytes ending %q) = false, want true", len(large), text)
		}
	}
	for _, text := range []string{
		"- Cloudflare: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1\n",
		"- Pushover app: azgdhr9x2kq7mvp3lw8ncf5tby1ejs\n",
	} {
		if !InDocument([]byte(text)) || !InLargeDocument([]byte(text)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", text)
		}
	}
	for _, text := range []string{
		`{"commit": "8f14e45fceea167a5a36dedd4bea2543aa1b2c3d"}`,
		`{"md5": "5588a7b18261c20068beabfb4f530b87"}`,
		`{"Name": "c4d4236f92427c64bfbcf1cc3f8142ab18f30b22"}`,
		`{"etag": "40d1040034db4e5a9dee931ec1b12c0d"}`,
		`{"tenant": "72f988bf-86f1-41af-91ab-2d7cd011db47"}`,
		"nan = 0x7FF8000000000001\n",
		`{"license": "BSD-2-clause-NetBSD"}`,
		`{"value": "MachineMIPSFPU16"}`,
		`{"go": "ExtendLo8ToInt16"}`,
		"keystore.pkcs12.certProtectionAlgorithm = PBEWithHmacSHA256AndAES_256\n",
		`{"image": "ubuntu2204python3x11"}`,
		`{"a": "24ebd835a70be4e2a8c9f0d1"}`,
	} {
		if InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = true, want false", text)
		}
	}
	if script := "#!/bin/sh\nCF_GLOBAL=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7\ncurl -H \"X-Auth-Key: $CF_GLOBAL\" …\n"; !InScript([]byte(script)) {
		t.Errorf("InScript(%q) = false, want true", script)
	}
	if script := "#!/bin/sh\nEMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"; InScript([]byte(script)) {
		t.Errorf("InScript(%q) = true, want false", script)
	}
	r := rand.New(rand.NewSource(40))
	for _, draw := range []struct {
		alphabet string
		found    int // of 1,000, at the least
	}{
		{"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 900},
		{"0123456789abcdef", 900},
		{"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 800},
	} {
		for _, n := range []int{24, 32, 40} {
			found := 0
			for range 1000 {
				v := make([]byte, n)
				for i := range v {
					v[i] = draw.alphabet[r.Intn(len(draw.alphabet))]
				}
				if randomValue(fmt.Appendf(nil, "{\"service\": %q}", v)) {
					found++
				}
			}
			if found < draw.found {
				t.Errorf("of 1,000 tokens of %d characters drawn from %s, %d found, want %d or more", n, draw.alphabet, found, draw.found)
			}
		}
	}
}

package credential

import (
	"strings"
	"testing"
)

// TestServiceTokensByShape: the tokens of services TokenPrefixes did not
// know, under a name that says nothing or in prose, were judged none by
// every judge; identifiers that begin as they do are still none.
func TestServiceTokensByShape(t *testing.T) {
	pad := func(prefix, alphabet string, n int) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range n {
			b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
		}
		return b.String()
	}
	const alnum = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC"
	const hex = "0123456789abcdef"
	const upper = "QYQSZGP023456789ACDEFHJKLMNRTUVWX"
	tokens := []string{
		pad("hf_", alnum, 34),
		pad("sk-", alnum, 20) + "T3BlbkFJ" + pad("", alnum, 20),
		pad("sk-proj-", alnum, 40) + "T3BlbkFJ" + pad("", alnum, 40),
		pad("sk-", alnum, 48),
		pad("sk-", hex, 32),
		pad("sk-or-v1-", hex, 64),
		pad("sk-svcacct-", alnum, 40),
		pad("sk_", hex, 48),
		pad("sk_test_", alnum, 24),
		pad("whsec_", alnum, 32),
		pad("gsk_", alnum, 52),
		pad("xai-", alnum, 80),
		pad("pplx-", alnum, 48),
		pad("tvly-dev-", alnum, 32),
		pad("tvly-", alnum, 32),
		pad("fc-", hex, 32),
		pad("r8_", alnum, 37),
		pad("nvapi-", alnum, 64),
		pad("lsv2_pt_", hex, 32) + "_" + pad("", hex, 10),
		pad("ntn_", alnum, 46),
		pad("secret_", alnum, 43),
		pad("lin_api_", alnum, 40),
		pad("ATATT3x", alnum, 180),
		pad("figd_", alnum, 40),
		pad("dckr_pat_", alnum, 27),
		pad("dop_v1_", hex, 64),
		pad("shpat_", hex, 32),
		pad("PMAK-", hex, 24) + "-" + pad("", hex, 34),
		pad("SG.", alnum, 22) + "." + pad("", alnum, 43),
		pad("key-", hex, 32),
		pad("tskey-auth-", alnum, 12) + "-" + pad("", alnum, 30),
		pad("glsa_", alnum, 32) + "_" + pad("", hex, 8),
		pad("dp.st.prd.", alnum, 43),
		pad("xapp-1-A0", alnum, 40),
		pad("ya29.", alnum, 100),
		pad("sntryu_", hex, 64),
		pad("sbp_", hex, 40),
		pad("rubygems_", hex, 48),
		pad("pul-", hex, 40),
		pad("AGE-SECRET-KEY-1", upper, 58),
		"123456789:" + pad("AA", alnum, 33),
	}
	for _, tok := range tokens {
		for _, c := range []struct{ shape, text string }{
			{"prose", "- my key: " + tok + "\n"},
			{"settings", `{"service": "` + tok + `"}` + "\n"},
			{"code", "CLIENT = make_client(\"" + tok + "\")\n"},
		} {
			var got bool
			switch c.shape {
			case "prose":
				got = InDocument([]byte(c.text))
			case "settings":
				got = InSettings([]byte(c.text))
			case "code":
				got = InCode([]byte(c.text)) && InScript([]byte(c.text)) && InCommand([]byte(c.text))
			}
			if !got {
				t.Errorf("%s: %q holds no credential, want one", c.shape, c.text)
			}
		}
	}
	for _, text := range []string{
		"Download with hf_hub_download(repo_id, filename) and fit with sk-learn.\n",
		"A key-value store; the secret_key_base of Rails; sk-" + strings.Repeat("abcdefgh", 5) + ".\n",
		"SG.Bizarre and key-" + strings.Repeat("g", 32) + " and fc-" + pad("", hex, 31) + "\n",
		"Gemini CLI's installed-app client 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; met at 12:30:00, ticket 123456789:AAshort, build 1234567:" + pad("AA", alnum, 33) + "\n",
		"#" + pad("hf_", alnum, 34) + "x_" + "\n" + "id=" + "x" + pad("hf_", alnum, 34) + "\n",
		"tvly-" + strings.Repeat("search", 6) + " and ATATT3x" + strings.Repeat("a", 20) + "\n",
	} {
		if InDocument([]byte(text)) || InSettings([]byte(text)) || InCode([]byte(text)) {
			t.Errorf("%q holds a credential, want none", text)
		}
	}
}

// BenchmarkServiceToken: a minified bundle's words, none a token.
func BenchmarkServiceToken(b *testing.B) {
	data := []byte(strings.Repeat("function(e){return sk_handler(e.key,hf_cache)};var tvly=dp.state,SG=glc_x;", 16<<20/76))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if serviceToken(data) {
			b.Fatal("a bundle holds a token")
		}
	}
}

// BenchmarkInCodeBundle: InCode of the same bundle, for scale.
func BenchmarkInCodeBundle(b *testing.B) {
	data := []byte(strings.Repeat("function(e){return sk_handler(e.key,hf_cache)};var tvly=dp.state,SG=glc_x;", 16<<20/76))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		InCode(data)
	}
}

// TestLabelledSecretInProse: prose that gives a password or a key its
// label and its value at a line's end, as a note writes it, was read
// only for a known token's shape or code's name given one; a label
// given words, a path, a variable, a placeholder or a call still holds
// none.
func TestLabelledSecretInProse(t *testing.T) {
	for text, want := range map[string]bool{
		"# Notes\n\n- Staging DB password: Tr0ub4dor3xQ\n":          true,
		"Weather API key = 3f2a9c7e4b1d8f6a0c5e2b7d9f1a3c8e\n":      true,
		"The SMTP password is `Tr0ub4dor3xQ`.\n":                    true,
		"| host | db |\n| token | Zk3wQp9LmT2v |\n":                 true,
		"**Password:** Tr0ub4dor3xQ\n":                              true,
		"AWS secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\r\n":  true,
		"- Wi-Fi passphrase: \"Xk9#mQ2$vL\"\n":                      true,
		"Auth: src/middleware/authentication.ts\n":                  false,
		"Token: `GITHUB_TOKEN`\n":                                   false,
		"Key: value\n":                                              false,
		"The token is regenerated.\n":                               false,
		"Password: admin123\n":                                      false,
		"Forgot password: click here\n":                             false,
		"token: ${{ secrets.GITHUB_TOKEN }}\n":                      false,
		"Set the password: <your-password>\n":                       false,
		"max tokens: 4096\n":                                        false,
		"The source argument for a token is `args[token.index]`.\n": false,
		"password = get_password(user)\n":                           false,
		"See the token: https://example.com/t/abc123XYZ\n":          false,
		"| API key | `<your key>` |\n":                              false,
		"The secret is stored in the keychain, not in a file.\n":    false,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestJoinedNamesOtpSeedsAndRecoveryWords: a password under a name
// whose word is joined to what precedes it, a TOTP seed and a wallet's
// recovery words were read as no credential in settings; a proxy's
// bypass, a package's version, the shell's OLDPWD, a seed's number and
// an MFA policy still are none.
func TestJoinedNamesOtpSeedsAndRecoveryWords(t *testing.T) {
	for text, want := range map[string]bool{
		`{"SMTPHost": "smtp.example.com", "SMTPPass": "Tr0ub4dor3xQ"}`: true,
		`{"DBPwd": "Tr0ub4dor3xQ"}`:                                    true,
		"DBHOST=db.internal\nDBPASS=Tr0ub4dor3xQ\n":                    true,
		"MYSQLPWD=hunter2\n":                                           true,
		"[ldap]\nrootpw = Tr0ub4dor3xQ\n":                              true,
		"smtppass: Tr0ub4dor3xQ\n":                                     true,
		`{"issuer": "AWS", "totp": "KRUGS4ZANFZSA2LU"}`:                true,
		`{"totp": "KRUGS4ZANFZSA2LU", "issuer": "AWS"}`:                true,
		"mfa_seed: jbsw y3dp ehpk 3pxp\n":                              true,
		"network: mainnet\nmnemonic: \"legal winner thank year wave sausage worth useful legal winner thank yellow\"\n": true,
		"proxyBypass: all\nBYPASS=all\ncompass: north\n":                                                                false,
		`{"dependencies": {"minipass": "^7.0.4", "fs-minipass": "~3.0.3"}}`:                                             false,
		"OLDPWD=/home/alice\n":                   false,
		"seed: 42\nmfa: required\notp: 123456\n": false,
		"mnemonic: MOV\ndescription: the quick brown fox jumps over the lazy dog\n": false,
		"dbpass: ${DB_PASSWORD}\nsmtpPass: true\n":                                  false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestCookieJar: a Netscape cookie file's line, whatever the file's
// name or kind, holds a login; a table parted by tabs does not.
func TestCookieJar(t *testing.T) {
	for text, want := range map[string]bool{
		"# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1767225600\tSID\tg.a000kQiZ3Rk1Xm9pQ7vT2\n": true,
		"#HttpOnly_.google.com\tTRUE\t/\tTRUE\t0\t__Secure-3PSID\tabc\r\n":                                     true,
		"code\tname\tnote\nen\tEnglish\tTRUE\n":                                                                false,
		"a\tTRUE\t/\tTRUE\tsoon\tSID\tx\n":                                                                     false,
		".example.com\tTRUE\t/\tTRUE\t0\tSID\t\n":                                                              false,
	} {
		if got := InDocument([]byte(text)) || InSettings([]byte(text)); got != want {
			t.Errorf("InDocument or InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

package probe

import "testing"

// FuzzCredentialHints: the expressions that judge a settings file and a
// git configuration's text match, run only where their hints are, as they
// match run on every text: in either case, across each of the token
// prefixes and words, and with the Kelvin sign and the long s that a
// case-insensitive expression takes for a k and an s.
func FuzzCredentialHints(f *testing.F) {
	for _, s := range []string{
		"", "engine = On\n", "token=x", "TOKEN: x", "api_token = \"x\"", "Passwd = x", "passw:", "SECRET_key=1", "Authorization: x", "auth =",
		"x ghp_abc", "GHO_x", "ghu_", "ghs_", "ghr_", "github_pat_11", "GLPAT-x", "gldt-x", "xoxa-1", "xoxb-1", "XOXP-1", "xoxr-1", "xoxe-1",
		"sk-ant-api03", "sk-proj-x", "AKIAXXXX", "hvs.x", "pypi-AgEI", "AIzaSy", "rk_live_x", "sk_live_x", "Bearer x", "Basic\tx", "basic x", "PASSWORD",
		"to\u212aen=x", "\u017fecret=x", "Bearer", "basicx", "xox", "akia", "a=b\n[section]\nx = y\n", "k_live", "tokens are counted", "the author: me",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := isCredentialLike(b), credentialLike().Match(b); got != want {
			t.Errorf("isCredentialLike(%q) = %v, the expression says %v", b, got, want)
		}
		if got, want := isGitSecretText(b), gitSecretText().Match(b); got != want {
			t.Errorf("isGitSecretText(%q) = %v, the expression says %v", b, got, want)
		}
	})
}

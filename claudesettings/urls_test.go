package claudesettings

import "testing"

// One definition of a credential in a URL: a password, or a user long
// enough to be a token, is one; a user name alone is not (issue 42: an
// ssh://user@host insteadOf must stay). What is detected is removed,
// whole, and what is left holds none.
func TestURLCredentials(t *testing.T) {
	for in, want := range map[string]string{
		`{"url":"https://oauth2:glpat-x@gitlab.example.com/org/mkt.git"}`:               `{"url":"https://gitlab.example.com/org/mkt.git"}`,
		`{"url":"https://ghp_0123456789abcdef@github.com/o/r"}`:                         `{"url":"https://github.com/o/r"}`,
		`{"url":"https://ghp_0123456789abcdefghij0123456789abcdefghij@github.com/o/r"}`: `{"url":"https://github.com/o/r"}`,
		"url = git+ssh://me:hunter2@example.com/r\n":                                    "url = git+ssh://example.com/r\n",
		"https://user:pw@host/p":                                                        "https://host/p",
		"HTTPS://User:Pw@Host/p":                                                        "HTTPS://Host/p",
		"https://:token@host/p":                                                         "https://host/p",
		"https://a:b@c:d@evil.example/p":                                                "https://evil.example/p",
		"https://a@b:c@evil.example/p":                                                  "https://evil.example/p",
		"https://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig@host/":                        "https://host/",
		"\tproxy = user:pass@proxy.example:3128\n":                                      "\tproxy = proxy.example:3128\n",
		`{"proxy":"user:p@ss@proxy:3128"}`:                                              `{"proxy":"proxy:3128"}`,
		"a https://u:p@x/ and ftp://v:q@y/\n":                                           "a https://x/ and ftp://y/\n",
		`{"url":"ssh://git@github.com/o/r.git","b":"git@github.com:o/r"}`:               `{"url":"ssh://git@github.com/o/r.git","b":"git@github.com:o/r"}`,
		`[url "ssh://ru3@127.0.0.1:22233/"]` + "\n\tinsteadOf = lh:\n":                  `[url "ssh://ru3@127.0.0.1:22233/"]` + "\n\tinsteadOf = lh:\n",
		"https://alice@github.com/o/r":                                                  "https://alice@github.com/o/r",
		"https://host:8080/p?to=a@b.example#x@y":                                        "https://host:8080/p?to=a@b.example#x@y",
		"mail me at someone.with.a.long.name@example.com":                               "mail me at someone.with.a.long.name@example.com",
		"Co-Authored-By: Claude <noreply@anthropic.com>":                                "Co-Authored-By: Claude <noreply@anthropic.com>",
		`{"repo":"owner/name","ref":"main"}`:                                            `{"repo":"owner/name","ref":"main"}`,
	} {
		got, changed := WithoutURLCredentials([]byte(in))
		if string(got) != want || changed != (in != want) {
			t.Errorf("WithoutURLCredentials(%s) = %s, %v; want %s", in, got, changed, want)
		}
		if detected := HasURLCredential([]byte(in)); detected != changed {
			t.Errorf("%s: detected %v, removed %v: they disagree", in, detected, changed)
		}
		if HasURLCredential(got) {
			t.Errorf("%s: what is left, %s, still holds a credential", in, got)
		}
	}
}

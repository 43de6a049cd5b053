package claudesettings

import "testing"

func TestWithoutURLCredentials(t *testing.T) {
	for in, want := range map[string]string{
		`{"url":"https://oauth2:glpat-x@gitlab.example.com/org/mkt.git"}`: `{"url":"https://gitlab.example.com/org/mkt.git"}`,
		`{"url":"https://ghp_0123456789abcdef@github.com/o/r"}`:           `{"url":"https://github.com/o/r"}`,
		"url = git+ssh://me:hunter2@example.com/r\n":                      "url = git+ssh://example.com/r\n",
		`{"url":"ssh://git@github.com/o/r.git","b":"git@github.com:o/r"}`: `{"url":"ssh://git@github.com/o/r.git","b":"git@github.com:o/r"}`,
		`{"repo":"owner/name","ref":"main"}`:                              `{"repo":"owner/name","ref":"main"}`,
	} {
		got, changed := WithoutURLCredentials([]byte(in))
		if string(got) != want || changed != (in != want) {
			t.Errorf("WithoutURLCredentials(%s) = %s, %v; want %s", in, got, changed, want)
		}
	}
}

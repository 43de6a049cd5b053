package credential

import "testing"

// A password under the short name pw (SMTP_PW, dbPw, -X main.pw=…) crossed:
// no word of a settings key's said one, and a value under 8 characters
// reads as no token.
func TestShortPasswordName(t *testing.T) {
	for _, s := range []string{
		"GOFLAGS=-ldflags=-X=main.pw=hunter2",
		"GOFLAGS=-ldflags=-X=main.dbPw=Kq8z2PL",
		"GOFLAGS=-ldflags=-X=main.smtp_pw=Kq8z2PL",
	} {
		if !InLinkerFlags([]byte(s)) {
			t.Errorf("InLinkerFlags(%q) = false", s)
		}
	}
	for _, s := range []string{"SMTP_PW=hunter2\n", "dbPw: Kq8z2PL\n", "pw = Kq8z2PL\n"} {
		if !InSettings([]byte(s)) {
			t.Errorf("InSettings(%q) = false", s)
		}
	}
	for _, s := range []string{"GOFLAGS=-ldflags=-X=main.version=v1.2.3", "GOFLAGS=-ldflags=-X=main.newPwHint=short"} {
		if InLinkerFlags([]byte(s)) {
			t.Errorf("InLinkerFlags(%q) = true", s)
		}
	}
}

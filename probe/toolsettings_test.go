package probe

import (
	"os"
	"path/filepath"
	"testing"
)

// A tool settings file is shown unless it may hold a credential: a key
// that names one, or a credential in a URL (a password, a token as the
// user; a user name alone is none); one that cannot be read is taken to
// hold one.
func TestHoldsCredential(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{
		"GOPRIVATE=example.com/*\nGOFLAGS=-mod=mod\n":                                false,
		"[net]\ngit-fetch-with-cli = true\n":                                         false,
		"[global]\nindex-url = https://pypi.example.com/simple\n":                    false,
		"GOPROXY=https://alice:pw@proxy.example.com\n":                               true,
		"[registry]\ntoken = \"x\"\n":                                                true,
		"[global]\nindex-url = https://u:p@pypi.example.com/\n":                      true,
		"GOAUTH=git /src\n":                                                          true,
		"[http]\nproxy-password: x\n":                                                true,
		"[global]\nindex-url = https://alice@pypi.example.com/\n":                    false,
		"[global]\nindex-url = https://ghp_0123456789abcdef0123@pypi.example.com/\n": true,
		"[global]\nproxy = alice:pw@proxy.example:3128\n":                            true,
	} {
		p := filepath.Join(dir, "f")
		os.WriteFile(p, []byte(content), 0o600)
		if got := holdsCredential(p); got != want {
			t.Errorf("%q: %v, want %v", content, got, want)
		}
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o700)
	if !holdsCredential(filepath.Join(dir, "d")) {
		t.Error("a directory is shown as settings")
	}
}

// TestToolSettingsCopy: a tool's settings are copied as its tool reads
// them, without a comment: TOML written again from its keys, pip.conf and
// go's env file without their comment lines; a TOML file that does not
// parse is not shown.
func TestToolSettingsCopy(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ in, want string }{
		"config.toml": {"# key: cio123\n[net]\ngit-fetch-with-cli = true # note\n", "[net]\ngit-fetch-with-cli = true\n"},
		"pip.conf":    {"[global]\n; login ci pw\n  # old\ntimeout = 60\n", "[global]\ntimeout = 60\n"},
		"env":         {"# pass x\nGOPRIVATE=a\n", "GOPRIVATE=a\n"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.in), 0o600)
		if got, ok := toolSettingsCopy(p); !ok || got != c.want {
			t.Errorf("toolSettingsCopy(%s) = %q, %v; want %q", name, got, ok, c.want)
		}
	}
	os.WriteFile(filepath.Join(dir, "uv.toml"), []byte("x = = 1\n"), 0o600)
	if _, ok := toolSettingsCopy(filepath.Join(dir, "uv.toml")); ok {
		t.Error("a TOML file that does not parse is copied")
	}
}

package session

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDirenvWhitelistAsDirenvReadsIt: the whitelist was every absolute
// path quoted anywhere from the word "whitelist" on, in direnv.toml and
// config.toml both: a prefix commented out, or a config.toml that direnv
// ignores beside a direnv.toml, had the end say direnv runs an .envrc
// unasked that it asks for. It is read as direnv 2.32 reads it (checked
// with the real direnv exec): direnv.toml, or config.toml without one;
// [whitelist]'s prefix (a prefix of the .envrc's path) and exact (a
// directory's .envrc, or the file), ~/ the home; nothing from a file
// direnv cannot parse, as direnv then runs nothing.
func TestDirenvWhitelistAsDirenvReadsIt(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("DIRENV_CONFIG", "")
	conf := filepath.Join(home, ".config", "direnv")
	os.MkdirAll(conf, 0o755)
	envrc := filepath.Join(home, "proj", ".envrc")
	for _, c := range []struct {
		name           string
		direnv, config string
		whitelisted    bool
	}{
		{"prefix", "[whitelist]\nprefix = [ \"~/proj\" ]\n", "", true},
		{"prefix of the path", "[whitelist]\nprefix = [ \"" + home + "/pr\" ]\n", "", true},
		{"prefix below", "[whitelist]\nprefix = [ \"~/proj/sub\" ]\n", "", false},
		{"exact directory", "[whitelist]\nexact = [ \"~/proj\" ]\n", "", true},
		{"exact file", "[whitelist]\nexact = [ \"" + envrc + "\" ]\n", "", true},
		{"exact other", "[whitelist]\nexact = [ \"~/proj/sub\" ]\n", "", false},
		{"dotted key", "whitelist.prefix = [ \"~/proj\" ]\n", "", true},
		{"commented out", "[whitelist]\n# prefix = [ \"~/proj\" ]\n", "", false},
		{"another table's string", "[whitelist]\nprefix = []\n[global]\nwarn_timeout = \"" + home + "\"\n", "", false},
		{"config.toml alone", "", "[whitelist]\nprefix = [ \"~/proj\" ]\n", true},
		{"config.toml beside direnv.toml", "[global]\nwarn_timeout = \"1s\"\n", "[whitelist]\nprefix = [ \"~/proj\" ]\n", false},
		{"not TOML", "[whitelist\nprefix = [ \"~/proj\" ]\n", "", false},
	} {
		os.Remove(filepath.Join(conf, "direnv.toml"))
		os.Remove(filepath.Join(conf, "config.toml"))
		if c.direnv != "" {
			os.WriteFile(filepath.Join(conf, "direnv.toml"), []byte(c.direnv), 0o644)
		}
		if c.config != "" {
			os.WriteFile(filepath.Join(conf, "config.toml"), []byte(c.config), 0o644)
		}
		if got := readDirenvWhitelist(home).runs(envrc); got != c.whitelisted {
			t.Errorf("%s: whitelisted %v, want %v", c.name, got, c.whitelisted)
		}
	}
}

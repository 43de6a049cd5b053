package session

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestMiseAskAgain: mise's trust links that lead to a configuration the
// session wrote below, or to its root, go with paranoid mode's hash;
// another project's stays.
func TestMiseAskAgain(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("MISE_STATE_DIR", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("MISE_TRUSTED_CONFIG_PATHS", "")
	proj, other := filepath.Join(home, "proj"), filepath.Join(home, "other")
	config := filepath.Join(proj, ".config", "mise", "config.toml")
	for _, f := range []string{config, filepath.Join(other, "mise.toml")} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("[env]\n_.source = \"{{env.X}}\"\n"), 0o644)
	}
	trusted := filepath.Join(home, ".local", "state", "mise", "trusted-configs")
	os.MkdirAll(trusted, 0o755)
	links := map[string]string{"proj-config": config, "proj": proj, "other": other, "home": home}
	for name, target := range links {
		os.Symlink(target, filepath.Join(trusted, name))
	}
	os.WriteFile(filepath.Join(trusted, "proj-config.hash"), []byte("00"), 0o644)
	direnvAskAgain(io.Discard, []string{config}, []string{proj})
	for _, gone := range []string{"proj-config", "proj-config.hash", "proj"} {
		if _, err := os.Lstat(filepath.Join(trusted, gone)); err == nil {
			t.Errorf("%s stayed", gone)
		}
	}
	for _, kept := range []string{"other", "home"} {
		if _, err := os.Lstat(filepath.Join(trusted, kept)); err != nil {
			t.Errorf("%s went: %v", kept, err)
		}
	}
}

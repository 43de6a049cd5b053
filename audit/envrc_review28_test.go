package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEnvrcSourcesUnspelled: an .envrc that sources a file by a name with
// no literal part, itself or through what it sources, is one direnv may
// run any file below by; one that only puts a directory on PATH by a name
// the audit cannot spell (use asdf) is not; a mise configuration that
// sources by a template with no literal part is, as mise runs it.
func TestEnvrcSourcesUnspelled(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := filepath.Join(home, "proj")
	for rel, src := range map[string]string{
		".envrc":           "source_env \"${ENV_FILE:-config/dev.env}\"\n",
		"a/.envrc":         "source_env_if_exists scripts/env.sh\n",
		"a/scripts/env.sh": "eval \"$(tool print-env)\"\n",
		"b/.envrc":         "use asdf\nPATH_add bin\n",
		"c/mise.toml":      "[env]\n_.source = \"{{env.X}}\"\n",
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(src), 0o644))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	r := Scan(root, since, nil, start, nil)
	want := []string{filepath.Join(root, ".envrc"), filepath.Join(root, "a", ".envrc"), filepath.Join(root, "c", "mise.toml")}
	got := slices.Sorted(slices.Values(r.SourcesUnspelled))
	if !slices.Equal(got, want) {
		t.Errorf("sources unspelled: %q, want %q", got, want)
	}
}

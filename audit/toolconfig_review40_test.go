package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPythonToolConfigs: pytest's, pylint's, mypy's and coverage's
// settings where git does not track them, in setup.cfg, pytest.toml and
// a pyproject.toml's [tool] table however TOML spells it, are findings;
// a pyproject.toml that only describes its package is not.
func TestScanPythonToolConfigs(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	files := map[string]struct {
		text  string
		found bool
	}{
		"setup.cfg":             {"[tool:pytest]\naddopts = --debug=/home/u/.bashrc\n", true},
		"tests/setup.cfg":       {"[metadata]\nname = x\n", true},
		"pytest.toml":           {"[pytest]\naddopts = [\"-p\", \"x\"]\n", true},
		"sub/.pytest.toml":      {"[pytest]\n", true},
		"a/pyproject.toml":      {"[tool.pytest.ini_options]\naddopts = \"--debug=/home/u/.bashrc\"\n", true},
		"b/pyproject.toml":      {"tool.pylint.main.init-hook = \"import os\"\n", true},
		"c/pyproject.toml":      {"[\"tool\"]\nmypy = { plugins = [\"x\"] }\n", true},
		"d/pyproject.toml":      {"[tool\n", true},
		"e/pyproject.toml":      {"[project]\nname = \"e\"\ndependencies = []\n\n[build-system]\nrequires = [\"hatchling\"]\n", false},
		"f/pyproject.toml.orig": {"[tool.pytest.ini_options]\n", false},
		"g/not-pyproject.toml":  {"[tool.pytest.ini_options]\n", false},
		// The same tools' own files, whose options run Python as
		// setup.cfg's do.
		"pylintrc.toml":    {"[tool.pylint.main]\ninit-hook = \"import os\"\n", true},
		"h/.pylintrc.toml": {"[tool.pylint.main]\n", true},
		"mypy.ini":         {"[mypy]\nplugins = tools/plugin.py\n", true},
		"i/.mypy.ini":      {"[mypy]\n", true},
		".flake8":          {"[flake8:local-plugins]\nextension = X = p:P\npaths = ./tools\n", true},
		"j/.coveragerc":    {"[run]\nplugins = p\n", true},
		"k/mypy.ini.orig":  {"[mypy]\n", false},
	}
	var want []string
	for rel, f := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.found {
			want = append(want, path)
		}
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// TestScanRustAnalyzerConfig: a rust-analyzer.toml the session made,
// untracked, is found: rust-analyzer reads it from the project as the
// editor opens the folder, and its cargo.buildScripts.overrideCommand and
// check.overrideCommand are commands it runs.
func TestScanRustAnalyzerConfig(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	want := []string{filepath.Join(root, "crates", "a", "rust-analyzer.toml"), filepath.Join(root, "rust-analyzer.toml")}
	for _, p := range want {
		write(t, p)
	}
	write(t, filepath.Join(root, "crates", "a", "rust-analyzer.toml.orig"))
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

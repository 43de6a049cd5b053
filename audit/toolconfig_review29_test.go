package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestToolConfigRule: a tool's configuration is told by the conventions
// JavaScript's tools share, not by a list of them, and by PHPStan's
// extension; a module, a package's manifest or TypeScript's settings
// are not one.
func TestToolConfigRule(t *testing.T) {
	for _, name := range []string{
		"eslint.config.js", "eslint.config.mjs", "prettier.config.cjs", "vite.config.ts", "vitest.config.mts",
		"jest.config.json", "tailwind.config.js", "postcss.config.cjs", "webpack.config.babel.js",
		".prettierrc", ".prettierrc.js", ".eslintrc.cjs", ".eslintrc.json", ".babelrc", ".mocharc.yml", ".stylelintrc.json",
		"phpstan.neon", "phpstan.neon.dist", "phpstan.dist.neon", "conf.neon", "psalm.xml", "phpcs.xml.dist",
		"gradle-wrapper.properties",
	} {
		if !toolConfig(name) {
			t.Errorf("%s is not taken for a tool's configuration", name)
		}
	}
	for _, name := range []string{"index.js", "config.js", "package.json", "tsconfig.json", "app.config", "config.yml", ".rc", "src.rc", ".gitignore", "README.md"} {
		if toolConfig(name) {
			t.Errorf("%s is taken for a tool's configuration", name)
		}
	}
}

// TestScanToolConfigByRule: a configuration the session made or changed
// that git does not track is found, at any depth, whether git ignores it
// or shows it as untracked; a tracked one, whose change git shows, is
// not; a registry's name that the rule also covers (.npmrc) is found
// though git tracks it.
func TestScanToolConfigByRule(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"eslint.config.js", ".npmrc", ".gitignore"} {
		write(t, filepath.Join(root, name))
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/ignored/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "eslint.config.js", ".npmrc", ".gitignore"}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, rel := range []string{"eslint.config.js", ".npmrc", "packages/web/vite.config.ts", ".prettierrc.cjs", "ignored/.babelrc", "phpstan.neon", "conf/local.neon"} {
		write(t, filepath.Join(root, rel))
		if rel != "eslint.config.js" {
			want = append(want, filepath.Join(root, rel))
		}
	}
	write(t, filepath.Join(root, "src", "index.js"))
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// TestScanMercurialIncludes: what a repository's .hg/hgrc includes (one
// beside it, one in the project, one that includes another in turn) is
// found where the session made or changed it; an include of a file the
// session did not touch, or outside the project, is not; an include by
// a variable names the hgrc among those that include what the audit
// cannot spell.
func TestScanMercurialIncludes(t *testing.T) {
	root := t.TempDir()
	hgrc := "[paths]\ndefault = https://hg.example.com\n%include hgrc.local\n%include  ../hgrc.team \n%include ../kept.rc\n%include /etc/mercurial/x.rc\n"
	for rel, content := range map[string]string{".hg/hgrc": hgrc, "kept.rc": "[ui]\n", "sub/.hg/hgrc": "%include $HOME/x.rc\n"} {
		write(t, filepath.Join(root, rel))
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for rel, content := range map[string]string{".hg/hgrc.local": "%include more/deep.rc\n", ".hg/more/deep.rc": "[hooks]\n", "hgrc.team": "[hooks]\n", "other.rc": "[hooks]\n"} {
		write(t, filepath.Join(root, rel))
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := Scan(root, since, nil, start, nil)
	want := []string{filepath.Join(root, ".hg/hgrc.local"), filepath.Join(root, ".hg/more/deep.rc"), filepath.Join(root, "hgrc.team")}
	if !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
	if !slices.Equal(r.IncludesUnspelled, []string{filepath.Join(root, "sub/.hg/hgrc")}) {
		t.Errorf("includes unspelled: %q", r.IncludesUnspelled)
	}
}

// TestMiseTemplatedSources: a source named by a template is looked up
// as what it may render to: a template in its name a pattern in its
// directory, one above it the directories up to the configuration's.
func TestMiseTemplatedSources(t *testing.T) {
	for in, want := range map[string]string{
		"./scripts/{{env.APP_ENV}}.sh":                "./scripts/*.sh",
		"{{env.TOOLS}}/env/common.sh":                 "${T}/env/common.sh",
		"{{ env.ROOT }}/s/{{ env.A }}-{{ env.B }}.sh": "${T}/s/*-*.sh",
		"{{env.ENV_FILE}}":                            "*",
	} {
		if got := templateWord(in); got != want {
			t.Errorf("templateWord(%q) = %q, want %q", in, got, want)
		}
	}
	root := t.TempDir()
	for rel, content := range map[string]string{
		"mise.toml":      "[env]\n_.source = [\"{{config_root}}/scripts/{{env.APP_ENV}}.sh\", \"{{env.TOOLS}}/env/common.sh\"]\n",
		"scripts/dev.sh": "export A=1\n", "env/common.sh": "export B=1\n", "docs/x.md": "x\n",
	} {
		write(t, filepath.Join(root, rel))
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, rel := range []string{"scripts/dev.sh", "env/common.sh", "docs/x.md"} {
		write(t, filepath.Join(root, rel))
	}
	r := Scan(root, since, nil, start, nil)
	for _, rel := range []string{"scripts/dev.sh", "env/common.sh"} {
		if !slices.Contains(r.Found, filepath.Join(root, rel)) {
			t.Errorf("%s not found: %q", rel, r.Found)
		}
	}
	if slices.Contains(r.Found, filepath.Join(root, "docs/x.md")) {
		t.Errorf("docs/x.md found: %q", r.Found)
	}
}

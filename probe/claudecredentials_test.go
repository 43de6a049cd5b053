package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/mount"
)

// A clone's token below plugins/ is never shown: every git directory the
// walk finds is hidden (its submodules' with it), one whose configuration
// may hold a credential named, and a directory the walk cannot look
// through whole (too deep, too many directories) is hidden whole and
// named, rather than shown with what it did not see; a directory shown
// entry by entry that is a git directory itself is hidden whole.
func TestPluginCredentialsFailClosed(t *testing.T) {
	home := t.TempDir()
	plugins := filepath.Join(home, ".claude", "plugins")
	token := "[remote \"origin\"]\n\turl = https://oauth2:glpat-SECRET@git.example/x.git\n"
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(plugins, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitDir := func(rel, config string) {
		write(rel+"/HEAD", "ref: refs/heads/main\n")
		write(rel+"/objects/info/packs", "")
		write(rel+"/config", config)
	}
	gitDir("marketplaces/corp/.git", token)
	gitDir("marketplaces/corp/.git/modules/lib", token) // a submodule's
	gitDir("marketplaces/open/.git", "[core]\n\tbare = false\n")
	gitDir("repos/bare.git", token) // a bare repository
	write("repos/bare.git/worktrees/w/HEAD", "ref: refs/heads/w\n")
	write("repos/bare.git/worktrees/w/commondir", "../..\n")
	gitDir("skills", "[core]\n")                                              // a directory shown entry by entry
	gitDir("cache/m/p/1.0/"+strings.Repeat("d/", gitDirsDepth)+".git", token) // past the walk's depth
	entries := []string{filepath.Join(plugins, "marketplaces"), filepath.Join(plugins, "repos"), filepath.Join(plugins, "cache")}

	kept, own, leftOut := pluginCredentials(home, "/p", entries, []string{filepath.Join(plugins, "skills")})

	if want := entries[:2]; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	var hiddenDirs []string
	for _, m := range own {
		hiddenDirs = append(hiddenDirs, strings.TrimPrefix(m.Dest, plugins+"/"))
	}
	if want := []string{"skills", "marketplaces/corp/.git", "marketplaces/open/.git", "repos/bare.git"}; !slices.Equal(hiddenDirs, want) {
		t.Errorf("hidden %q, want %q", hiddenDirs, want)
	}
	for _, rel := range []string{"marketplaces/corp/.git", "repos/bare.git"} {
		if want := "all of ~/.claude/plugins/" + rel + " (a clone's git directory, whose configuration may hold a credential)"; !slices.Contains(leftOut, want) {
			t.Errorf("leftOut %q does not name %q", leftOut, want)
		}
	}
	if slices.ContainsFunc(leftOut, func(s string) bool { return strings.Contains(s, "open") }) {
		t.Errorf("leftOut %q names a clone with no credential", leftOut)
	}
	hidden := "all of ~/.claude/plugins/cache (claudebox cannot look through it whole"
	if !slices.ContainsFunc(leftOut, func(s string) bool { return strings.HasPrefix(s, hidden) }) {
		t.Errorf("leftOut %q does not name %q", leftOut, hidden)
	}
}

// TestGitDirsPackages: a skill's or a plugin's node_modules (or a hook's
// virtualenv) of more directories than the walk counts does not hide it:
// only its packages' first levels are looked through, where a package
// cloned in place keeps its .git, and the packages they hold in turn.
func TestGitDirsPackages(t *testing.T) {
	dir := t.TempDir()
	nm := filepath.Join(dir, "node_modules")
	for i := range gitDirsCount {
		if err := os.MkdirAll(filepath.Join(nm, "pkg"+strconv.Itoa(i%200), "lib", "deep", strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []string{
		"node_modules/cloned/.git", "node_modules/@scope/cloned/.git", "node_modules/pkg1/node_modules/inner/.git",
		"node_modules/pkg2/lib/.git", ".venv/lib/python3.12/site-packages/mod/.git", "src/.git",
	} {
		if err := os.MkdirAll(filepath.Join(dir, g), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dirs, _, whole := gitDirs(dir)
	if !whole {
		t.Fatal("gitDirs gave up on a node_modules")
	}
	var found []string
	for _, d := range dirs {
		found = append(found, strings.TrimPrefix(d, dir+"/"))
	}
	slices.Sort(found)
	want := []string{
		".venv/lib/python3.12/site-packages/mod/.git", "node_modules/@scope/cloned/.git", "node_modules/cloned/.git",
		"node_modules/pkg1/node_modules/inner/.git", "node_modules/pkg2/lib/.git", "src/.git",
	}
	if !slices.Equal(found, want) {
		t.Errorf("git directories %q, want %q", found, want)
	}
}

// Past its count of directories the walk gives up and says so.
func TestGitConfigsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range gitDirsCount {
		if err := os.Mkdir(filepath.Join(dir, strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "z", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dirs, _, whole := gitDirs(dir); whole {
		t.Errorf("gitDirs says it looked through %d directories whole (git directories %q)", gitDirsCount+1, dirs)
	}
}

// BenchmarkGitDirs walks a tree of as many directories as the walk looks
// through before it gives up: a launch's cost for each large entry of
// ~/.claude.
func BenchmarkGitDirs(b *testing.B) {
	dir := b.TempDir()
	for i := range gitDirsCount - 50 {
		if err := os.MkdirAll(filepath.Join(dir, strconv.Itoa(i%40), strconv.Itoa(i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, _, whole := gitDirs(dir); !whole {
			b.Fatal("gave up")
		}
	}
}

// TestSettingsCredentialsLeftOut: in what the setup shows, a settings
// file of any name with a credential written in it (config.yaml's
// password, an auth file written as .netrc is) or Markdown that shows one
// (a webhook's URL) is hidden as one named so is, and so is a file of no
// known kind but text of at most 16 KiB with none (a .session database,
// a large .csv); one with none, prose's "password: …", an image, a
// script, and a package's in node_modules, whose names alone are judged,
// are shown.
func TestSettingsCredentialsLeftOut(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"skill/config.yaml": "password: hunter2\n", "skill/auth": "machine api login ci password hunter2\n",
		"skill/limits.yaml": "max_tokens: 4096\n", "skill/notes.md": "password: hunter2\n",
		"skill/SKILL.md":                     "Post to https://hooks.slack.com/services/T0/B0/abcdefghijkl\n",
		"skill/node_modules/pkg/config.json": `{"password": "fixture"}`,
		"skill/package.json":                 `{"dependencies": {"fdir1": "npm:fdir@1.2.0"}}`,
		"skill/me.session":                   "SQLite format 3\x00",
		"skill/prod.tfvars":                  "db_password = \"hunter2\"\n",
		"skill/big.csv":                      strings.Repeat("name,count\n", 2000),
		"skill/regions.tfvars":               "region = \"eu-west-1\"\n",
		"skill/logo.png":                     "\x89PNG\r\n\x1a\n\x00password: hunter2",
		"skill/run.py":                       "print('x')\n",
		"skill/deploy.sh":                    "#!/bin/sh\nexport DB_PASSWORD=hunter2\n",
		"skill/env.fish":                     "set -gx DB_PASSWORD hunter2\n",
		"skill/release":                      "#!/usr/bin/env bash\nNPM_TOKEN=hunter2 npm publish\n",
		"skill/plain.sh":                     "#!/bin/sh\nexport DB_PASSWORD=\"$X\"\n",
		"skill/uv.lock":                      strings.Repeat("[[package]]\nname = \"x\"\n", 2000),
		"skill/data.json":                    `{"hook": "https://hooks.slack.com/services/T0/B0/abcdefghijkl", "rows": "` + strings.Repeat("x", 20<<10) + `"}`,
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, files, whole := gitDirs(filepath.Join(dir, "skill"))
	slices.Sort(files)
	want := []string{"SKILL.md", "auth", "big.csv", "config.yaml", "data.json", "deploy.sh", "env.fish", "me.session", "prod.tfvars", "release"}
	for i, name := range want {
		want[i] = filepath.Join(dir, "skill", name)
	}
	if !whole || !slices.Equal(files, want) {
		t.Errorf("gitDirs leaves out %v (whole %v), want %v", files, whole, want)
	}
}

// BenchmarkGitDirsSettings walks a plugin cache's shape, 400 settings
// files of 1 KiB in 40 directories (a plugin's plugin.json, hooks.json,
// package.json), each read to be judged for a credential: what judging
// them adds to a launch, beside BenchmarkGitDirs.
func BenchmarkGitDirsSettings(b *testing.B) {
	dir := b.TempDir()
	content := []byte(`{"name": "plugin", "version": "1.0.0", "description": "` + strings.Repeat("x", 960) + `"}`)
	for i := range 400 {
		p := filepath.Join(dir, strconv.Itoa(i%40), strconv.Itoa(i)+".json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, files, whole := gitDirs(dir); !whole || len(files) != 0 {
			b.Fatalf("gitDirs: %q, whole %v", files, whole)
		}
	}
}

// BenchmarkGitDirsScripts walks a plugin's built scripts, 2,000 of 4 KiB
// in 40 directories, each read to be judged for a credential
// (credential.InCode): what judging scripts adds to a launch, beside
// BenchmarkGitDirsSettings.
func BenchmarkGitDirsScripts(b *testing.B) {
	dir := b.TempDir()
	content := []byte(strings.Repeat(`function f(e,t){return e.valHooks&&t?"mail@example.com":e}`+"\n", 70))
	for i := range 2000 {
		p := filepath.Join(dir, strconv.Itoa(i%40), strconv.Itoa(i)+".js")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, files, whole := gitDirs(dir); !whole || len(files) != 0 {
			b.Fatalf("gitDirs: %q, whole %v", files, whole)
		}
	}
}

// TestCredentialFilesLeftOut: in what the setup shows, a file named as
// credentials are kept is hidden under an empty one (a directory shown
// whole) or left out (a private copy, a frozen directory's entry), and
// named; a script or a template so named is shown.
func TestCredentialFilesLeftOut(t *testing.T) {
	dir := t.TempDir()
	for rel, content := range map[string]string{
		"skill/.env": "K=v\n", "skill/auth/token.json": "{}", "skill/token_utils.py": "", "skill/.env.example": "", "skill/SKILL.md": "",
		"skill/tokenizer.go": "package x\n", "skill/certifi/cacert.pem": "# Issuer: x\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		"skill/tls/server.pem": "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tilde := func(p string) string { return p }
	own, leftOut, whole := cloneCredentials(filepath.Join(dir, "skill"), filepath.Join(dir, "skill"), mount.ClaudeConfig, tilde)
	var hidden []string
	for _, m := range own {
		if m.Kind == mount.RoBindData && m.Content == "" {
			hidden = append(hidden, m.Dest)
		}
	}
	want := []string{filepath.Join(dir, "skill", ".env"), filepath.Join(dir, "skill", "auth", "token.json"), filepath.Join(dir, "skill", "tls", "server.pem")}
	if !whole || !slices.Equal(hidden, want) || len(leftOut) != 3 {
		t.Errorf("cloneCredentials hides %v (whole %v), names %v; want %v", hidden, whole, leftOut, want)
	}
	c, creds, ok := dirCopy(filepath.Join(dir, "skill"))
	var copied []string
	for _, e := range c.Entries {
		copied = append(copied, e.Rel)
	}
	if !ok || !slices.Equal(creds, want) || slices.Contains(copied, ".env") || slices.Contains(copied, "auth/token.json") || !slices.Contains(copied, "token_utils.py") || !slices.Contains(copied, "tokenizer.go") || !slices.Contains(copied, "certifi/cacert.pem") {
		t.Errorf("dirCopy copies %v, leaves out %v; want %v left out", copied, creds, want)
	}
	entries, _, frozenCreds := frozenEntries(filepath.Join(dir, "skill"))
	if !slices.Equal(frozenCreds, want[:1]) || slices.Contains(entries, want[0]) {
		t.Errorf("frozenEntries shows %v, leaves out %v", entries, frozenCreds)
	}
}

// Of the plugins installed, those of the user's scope and of the
// project's folders enter; another project's installation does not.
func TestPluginsOfProject(t *testing.T) {
	in := `{"version": 2, "plugins": {"a@m": [{"scope": "project", "projectPath": "/home/u/clients/acme"}, {"scope": "local", "projectPath": "/home/u/work/app"}, {"scope": "user"}], "b@m": [{"scope": "project", "projectPath": "/home/u/work"}, {"scope": "project", "projectPath": 7}, "odd"]}}`
	out, ok := pluginsOfProject(in, "/home/u/work/app")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); !ok || err != nil {
		t.Fatalf("%v %v: %s", ok, err, out)
	}
	b, _ := json.Marshal(got)
	if want := `{"plugins":{"a@m":[{"projectPath":"/home/u/work/app","scope":"local"},{"scope":"user"}],"b@m":[{"projectPath":"/home/u/work","scope":"project"}]},"version":2}`; string(b) != want {
		t.Errorf("copy %s, want %s", b, want)
	}
	if _, ok := pluginsOfProject("not json", "/p"); ok {
		t.Error("what does not read as a list is shown")
	}
	if out, ok := pluginsOfProject("", "/p"); !ok || out != "" {
		t.Errorf("an empty list: %q %v", out, ok)
	}
}

package probe

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// Host on a home and a repository laid out on disk: what it finds to
// show, copy, guard and refuse.
func TestProbe(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	testfs.Write(t, filepath.Join(home, ".claude", "settings.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".claude", "plugins", "marketplaces", "m", "x.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".claude", "todos", "t.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".claude", ".credentials.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = a\n")
	testfs.Write(t, filepath.Join(home, ".ssh", "known_hosts"), "host key\n")
	testfs.Write(t, filepath.Join(home, ".claudebox", ".credentials.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".local", "share", "claude", "versions", "1.0", "claude"), "#!/bin/sh\n")
	os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755)
	os.Symlink("../share/claude/versions/1.0/claude", filepath.Join(home, ".local", "bin", "claude"))

	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	testfs.Write(t, filepath.Join(proj, ".git", "config"), string(config)+"[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ~/code/app/shared.gitconfig\n")
	testfs.Write(t, filepath.Join(proj, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = x\n")
	testfs.Write(t, filepath.Join(proj, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	testfs.Write(t, filepath.Join(proj, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	testfs.Write(t, filepath.Join(proj, ".claude", "settings.json"), "{}")
	testfs.Write(t, filepath.Join(proj, "real-envrc"), "")
	os.Symlink("real-envrc", filepath.Join(proj, ".envrc"))
	testfs.Write(t, filepath.Join(home, "data", "x"), "")

	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	binds := []mount.BindSpec{{Src: filepath.Join(home, "data"), Dest: "/data", From: "--ro-bind"}}
	h := Host(home, filepath.Join(home, ".claudebox"), project, filepath.Join(home, ".local", "bin", "claude"), env("HOME", home, "PATH", "/usr/bin"), binds, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil, nil, nil)

	var own []string
	for _, m := range h.Own {
		own = append(own, m.Dest)
	}
	if h.KnownHosts != filepath.Join(home, ".ssh", "known_hosts") || !slices.Contains(own, filepath.Join(home, ".gitconfig")) {
		t.Errorf("known_hosts %q, own mounts %q", h.KnownHosts, own)
	}
	if want := (mount.HostPath{Path: filepath.Join(home, ".local", "bin", "claude"), Link: "../share/claude/versions/1.0/claude"}); !slices.Contains(h.Links, want) || !slices.Contains(own, filepath.Join(home, ".local", "share", "claude", "versions", "1.0", "claude")) {
		t.Errorf("command chain: links %+v, own mounts %q", h.Links, own)
	}
	entries := strings.Join(h.ClaudeEntries, " ")
	if !strings.Contains(entries, "plugins") || strings.Contains(entries, "todos") || strings.Contains(entries, "credentials") {
		t.Errorf("~/.claude entries shown: %q", h.ClaudeEntries)
	}
	if len(h.ClaudeCopies) != 1 || h.ClaudeCopies[0].Path != filepath.Join(home, ".claude", "settings.json") || h.ClaudeCopies[0].ID == (untrusted.FileID{}) {
		t.Errorf("copies %+v", h.ClaudeCopies)
	}
	var guards []string
	for _, g := range h.Guards {
		guards = append(guards, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for _, want := range []string{".git/config", ".git/hooks", ".husky", "shared.gitconfig", "lib/.git", ".git/modules/lib/config", ".git/modules/lib/hooks", ".claude/settings.json", ".gitmodules"} {
		if !slices.Contains(guards, want) {
			t.Errorf("no guard on %s among %q", want, guards)
		}
	}
	if !slices.Equal(h.Symlinked, []string{filepath.Join(proj, ".envrc")}) {
		t.Errorf("symlinked %q", h.Symlinked)
	}
	if len(h.Binds) != 1 || h.Binds[0].Src != filepath.Join(home, "data") {
		t.Errorf("binds %+v", h.Binds)
	}
}

// What the host obeys from the home and PATH is found by its real path and
// guarded where it lies in the project or a read-write bind; what no guard
// can cover is named instead.
func TestProbeHostObeyed(t *testing.T) {
	home := t.TempDir()
	dots := filepath.Join(home, "dotfiles")
	if out, err := exec.Command("git", "init", "-q", dots).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	// A bare repository in the project that the shell's $GIT_DIR names.
	if out, err := exec.Command("git", "init", "-q", "--bare", filepath.Join(dots, "bare.git")).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	testfs.Write(t, filepath.Join(dots, "bash", ".bashrc"), "")
	testfs.Write(t, filepath.Join(dots, "git", "config"), "[include]\n\tpath = extra\n[core]\n\texcludesFile = ~/dotfiles/git/ignore\n\thooksPath = ~/dotfiles/hooks\n")
	testfs.Write(t, filepath.Join(dots, "git", "extra"), "[core]\n\tattributesFile = ~/dotfiles/git/attributes\n[credential]\n\thelper = ~/dotfiles/scripts/cred --store\n[alias]\n\tst = !~/dotfiles/scripts/st -v\n[user]\n\temail = ~/dotfiles/not-a-program\n")
	testfs.Write(t, filepath.Join(dots, "claude", "settings.json"), "{}")
	testfs.Write(t, filepath.Join(dots, "nvim", "init.lua"), "")
	testfs.Write(t, filepath.Join(home, "shared", "bin", "tool"), "")
	testfs.Write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = dotfiles/git/missing.inc\n")
	testfs.Write(t, filepath.Join(dots, "scripts", "cred"), "")
	testfs.Write(t, filepath.Join(dots, "scripts", "st"), "")
	testfs.Write(t, filepath.Join(dots, "scripts", "tool.sh"), "")
	testfs.Write(t, filepath.Join(dots, "mise.toml"), "")
	testfs.Write(t, filepath.Join(dots, ".zed", "tasks.json"), "[]")
	testfs.Write(t, filepath.Join(dots, "ssh", "config"), "")
	testfs.Write(t, filepath.Join(dots, "fish", "config.fish"), "")
	testfs.Write(t, filepath.Join(dots, "xdg", "git", "config"), "")
	testfs.Write(t, filepath.Join(dots, "bashrc.d", "aliases.sh"), "")
	testfs.Write(t, filepath.Join(dots, "python", "startup.py"), "")
	testfs.Write(t, filepath.Join(dots, "scripts", "lesspipe"), "")
	testfs.Write(t, filepath.Join(dots, "inputrc"), "")
	testfs.Write(t, filepath.Join(dots, "emacs", "init-go.el"), "")
	testfs.Write(t, filepath.Join(home, ".bashrc.d", "local.sh"), "")
	testfs.Write(t, filepath.Join(home, ".emacs.d", "lisp", "own.el"), "")
	for link, target := range map[string]string{
		".bashrc":               "dotfiles/bash/.bashrc",
		".profile":              "dotfiles/bash/.profile", // dangling: bash would read one made there
		".config/git":           "../dotfiles/git",
		".config/nvim":          "../dotfiles/nvim",
		".claude/settings.json": "../dotfiles/claude/settings.json",
		"code":                  "dotfiles", // not a dotfile: $HOME's other links are not config
		// stow's links one, two and three levels down, where the
		// directories above hold files of their own.
		".ssh/config":              "../dotfiles/ssh/config",
		".config/fish/config.fish": "../../dotfiles/fish/config.fish",
		".config/tool/lua/plugins": "../../../dotfiles/plugins",
		".local/share/app/x":       "../../../dotfiles/share-x",
		".local/bin":               "../dotfiles/localbin",
		// In any other of the home's directories, one and two levels down.
		".bashrc.d/aliases.sh":     "../dotfiles/bashrc.d/aliases.sh",
		".emacs.d/lisp/init-go.el": "../../dotfiles/emacs/init-go.el",
		// A program of a PATH entry outside the project, linked to a
		// script in it.
		"bin/tool": "../dotfiles/scripts/tool.sh",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	project, err := instance.Resolve(dots)
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{filepath.Join(dots, "bin"), filepath.Join(home, "shared", "bin"), "/usr/bin", "bin", "", dots, filepath.Join(home, "bin")}, ":")
	binds := []mount.BindSpec{{Src: filepath.Join(home, "shared"), Dest: filepath.Join(home, "shared"), Writable: true, From: "--bind"}}
	vars := env("HOME", home, "PATH", path, "XDG_CONFIG_HOME", filepath.Join(dots, "xdg"), "ZDOTDIR", filepath.Join(dots, "zsh"),
		"GIT_CONFIG_GLOBAL", filepath.Join(dots, "gitglobal"), "BASH_ENV", filepath.Join(dots, "bash", "env"),
		"EDITOR", "~/dotfiles/scripts/ed -w", "ENV", "rel/envfile", "GIT_DIR", filepath.Join(dots, "bare.git"), "PAGER", "less -R", "GIT_EDITOR", "./ed",
		"INPUTRC", filepath.Join(dots, "inputrc"), "PYTHONSTARTUP", filepath.Join(dots, "python", "startup.py"),
		"LESSOPEN", "||~/dotfiles/scripts/lesspipe %s", "KUBECONFIG", filepath.Join(home, ".kube", "config")+":"+filepath.Join(dots, "kube.yaml"))
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", vars, binds, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil, nil, nil)

	guards := map[string]mount.Guard{}
	for _, g := range h.Guards {
		guards[g.Path] = g
	}
	for rel, from := range map[string]string{
		"bash/.bashrc":         "~/.bashrc",
		"bash/.profile":        "~/.profile",
		"git":                  "~/.config/git",
		"nvim":                 "~/.config/nvim",
		"claude/settings.json": "~/.claude/settings.json",
		"git/ignore":           "core.excludesfile in ~/.config/git/config",
		"git/attributes":       "core.attributesfile in ~/dotfiles/git/extra",
		"hooks":                "core.hookspath in ~/.config/git/config",
		"scripts/cred":         "credential.helper in ~/dotfiles/git/extra",
		"scripts/st":           "alias.st in ~/dotfiles/git/extra",
		"scripts/tool.sh":      "~/bin/tool",
		"bin":                  guard.PathFrom,
		"mise.toml":            "",
		".zed":                 "",
		"ssh/config":           "~/.ssh/config",
		"fish/config.fish":     "~/.config/fish/config.fish",
		"plugins":              "~/.config/tool/lua/plugins",
		"share-x":              "~/.local/share/app/x",
		"localbin":             "~/.local/bin",
		"bashrc.d/aliases.sh":  "~/.bashrc.d/aliases.sh",
		"emacs/init-go.el":     "~/.emacs.d/lisp/init-go.el",
		"xdg":                  "$XDG_CONFIG_HOME",
		"xdg/git/config":       "$XDG_CONFIG_HOME/git/config",
		"zsh":                  "$ZDOTDIR",
		"gitglobal":            "$GIT_CONFIG_GLOBAL",
		"bash/env":             "$BASH_ENV",
		"scripts/ed":           "$EDITOR",
		"inputrc":              "$INPUTRC",
		"python/startup.py":    "$PYTHONSTARTUP",
		"scripts/lesspipe":     "$LESSOPEN",
		"kube.yaml":            "$KUBECONFIG",
		"bare.git/config":      "",
		"bare.git/hooks":       "",
	} {
		g, ok := guards[filepath.Join(dots, rel)]
		switch {
		case !ok:
			t.Errorf("%s is not guarded", rel)
		case g.From != from:
			t.Errorf("%s is guarded as reached through %q, want %q", rel, g.From, from)
		}
	}
	// No operation in progress: nothing stands in for its state, which git
	// would read as one.
	for _, d := range mount.GitOperations {
		if g, ok := guards[filepath.Join(dots, ".git", d)]; ok {
			t.Errorf("a missing .git/%s is guarded: %+v", d, g.Mount())
		}
	}
	if g := guards[filepath.Join(dots, "bash", ".profile")]; g.Exists || g.Mount().Kind != mount.Tmpfs {
		t.Errorf("the missing target of a dangling dotfile link: %+v, want a private stand-in", g.Mount())
	}
	if _, ok := guards[filepath.Join(dots, "not-a-program")]; ok {
		t.Error("a configuration value that runs nothing is guarded")
	}
	if _, ok := guards[filepath.Join(dots, ".helix")]; ok {
		t.Error("a missing tool file is guarded: its stand-in would be in the host's tool's way")
	}
	// ~/.gitconfig's include, missing: git reads a no-op file there, as
	// it would fail on a directory.
	if m := guards[filepath.Join(dots, "git", "missing.inc")].Mount(); m.Kind != mount.RoBind || m.Src != m.Dest {
		t.Errorf("the missing file ~/.gitconfig includes: %+v, want a no-op stand-in", m)
	}
	if _, ok := guards[dots]; ok {
		t.Error("the project itself is guarded")
	}
	var unprotected []string
	for _, u := range h.Unprotected {
		unprotected = append(unprotected, u.From+": "+u.Reason)
	}
	for _, want := range []string{`the relative entry "bin"`, `$ENV: the relative entry "rel/envfile"`, `$GIT_EDITOR: the relative entry "./ed"`, `the relative entry ""`, dots + ", which the sandbox writes, is or lies in " + dots} {
		if !slices.ContainsFunc(unprotected, func(u string) bool { return strings.Contains(u, want) }) {
			t.Errorf("no warning with %q in %q", want, unprotected)
		}
	}
	// The PATH entry in the read-write bind stays read-only there.
	if !slices.ContainsFunc(h.Binds, func(m mount.Mount) bool {
		return m.Dest == filepath.Join(home, "shared", "bin") && m.Kind == mount.RoBind
	}) {
		t.Errorf("the PATH entry in the read-write bind is not read-only: %+v", h.Binds)
	}
}

// BenchmarkProbeHostObeyed: a home of 60 dotfiles (20 of them links into a
// dotfiles repository), 40 entries in ~/.config (10 links), a browser
// profile there of 30 directories of 20 files, ~/.local/share with 20
// applications of 20 directories of 10 files, a global git configuration
// with an include, and a PATH of 10 entries.
func BenchmarkProbeHostObeyed(b *testing.B) {
	home := b.TempDir()
	dots := filepath.Join(home, "dotfiles")
	mk := func(path, content string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(content), 0o644)
	}
	for i := range 60 {
		name := fmt.Sprintf(".file%d", i)
		if i%3 == 0 {
			mk(filepath.Join(dots, name), "")
			os.Symlink(filepath.Join("dotfiles", name), filepath.Join(home, name))
		} else {
			mk(filepath.Join(home, name), "")
		}
	}
	for i := range 40 {
		dir := filepath.Join(home, ".config", fmt.Sprintf("tool%d", i))
		if i%4 == 0 {
			mk(filepath.Join(dots, "config", fmt.Sprintf("tool%d", i), "config"), "")
			os.Symlink(filepath.Join("..", "dotfiles", "config", fmt.Sprintf("tool%d", i)), dir)
		} else {
			mk(filepath.Join(dir, "config"), "")
		}
	}
	for i := range 30 {
		for j := range 20 {
			mk(filepath.Join(home, ".config", "browser", "Default", fmt.Sprintf("d%d", i), fmt.Sprintf("f%d", j)), "")
		}
	}
	for i := range 20 {
		for j := range 20 {
			for k := range 10 {
				mk(filepath.Join(home, ".local", "share", fmt.Sprintf("app%d", i), fmt.Sprintf("d%d", j), fmt.Sprintf("f%d", k)), "")
			}
		}
	}
	mk(filepath.Join(home, ".gitconfig"), "[include]\n\tpath = ~/dotfiles/git/extra\n[core]\n\texcludesFile = ~/.gitignore\n")
	mk(filepath.Join(dots, "git", "extra"), "[core]\n\tattributesFile = ~/.gitattributes\n")
	var path []string
	for i := range 10 {
		path = append(path, filepath.Join(home, fmt.Sprintf("tools%d", i), "bin"))
	}
	b.ResetTimer()
	for b.Loop() {
		probeHostObeyed(home, nil, env("PATH", strings.Join(path, ":")), nil)
	}
}

// env is a getenv over name, value pairs.
func env(pairs ...string) func(string) string {
	return func(name string) string {
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i] == name {
				return pairs[i+1]
			}
		}
		return ""
	}
}

// GIT_CONFIG_GLOBAL=/dev/null (git told to read no global configuration)
// is read as nothing, not refused as a file git could not read.
func TestProbeGitConfigDevNull(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin", "GIT_CONFIG_GLOBAL", "/dev/null", "GIT_CONFIG_SYSTEM", "/dev/null"), nil, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil, nil, nil)
	if len(h.Redirects) > 0 {
		t.Errorf("the launch is refused: %v", h.Redirects)
	}
}

// TestClaudeEntriesKnownOnly: of ~/.claude, only Claude Code's
// configuration, the Markdown files CLAUDE.md imports and what the
// settings name are shown; an entry none of these covers is hidden and
// named (an old .config.json holds the account, a runbook.md not imported
// a vault token), and Claude Code's known
// state is hidden without a word, the plugins' data (where a plugin may
// keep a token) among it.
func TestClaudeEntriesKnownOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	for _, f := range []string{
		"settings.json", "commands/c.md", "skills/s/SKILL.md", "RULES.md", "runbook.md", "scripts/status.sh", "scripts/.env",
		".config.json", "notes/private.txt", "random.txt", "todos/t.json", "history.jsonl",
		"plugins/installed_plugins.json", "plugins/cache/m/p/1.0/x.md", "plugins/data/p/token.json",
		"plugins/store/s.json", "plugins/other.json",
	} {
		testfs.Write(t, filepath.Join(dir, f), "x\n")
	}
	named := []string{filepath.Join(dir, "scripts", "status.sh"), filepath.Join(dir, "RULES.md")}
	entries, copies, hidden, _, _, dirCopies, _ := claudeEntries(dir, named, nil, nil)
	var shown []string
	for _, e := range entries {
		shown = append(shown, strings.TrimPrefix(e, dir+"/"))
	}
	// A directory of files is a private copy of what the launch read.
	if len(dirCopies) != 1 || dirCopies[0].Path != filepath.Join(dir, "commands") || len(dirCopies[0].Entries) != 1 || dirCopies[0].Entries[0] != (mount.DirCopyEntry{Rel: "c.md", Content: "x\n"}) {
		t.Errorf("copied %+v, want commands with c.md", dirCopies)
	}
	if want := []string{"RULES.md", "plugins/cache/m/p/1.0", "plugins/installed_plugins.json", "skills/s", "scripts/status.sh"}; !slices.Equal(shown, want) {
		t.Errorf("shown %q, want %q", shown, want)
	}
	if len(copies) != 1 || copies[0].Path != filepath.Join(dir, "settings.json") {
		t.Errorf("copies %+v", copies)
	}
	var unshown []string
	for _, e := range hidden {
		unshown = append(unshown, strings.TrimPrefix(e, dir+"/"))
	}
	if want := []string{".config.json", "notes", "random.txt", "runbook.md", "plugins/other.json"}; !slices.Equal(unshown, want) {
		t.Errorf("hidden and named %q, want %q", unshown, want)
	}
}

// TestClaudeFrozenNoLinksFollowedOut: the directories of ~/.claude shown
// as the launch found them are those claudeEntries walks: plugins/
// linked into a dotfiles repository (stow) is walked through its link
// as the user's own, the directories below it frozen, skills/ too; a
// link among the entries of a frozen directory (a cloned skill's, or
// one the host's Claude Code wrote) is made again as it is, not
// followed out.
func TestClaudeFrozenNoLinksFollowedOut(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude")
	dots := filepath.Join(home, "dotfiles", "plugins")
	for _, f := range []string{"marketplaces/m/x.json", "cache/mk/tool/1.0/x.md", "known_marketplaces.json"} {
		testfs.Write(t, filepath.Join(dots, f), "{}\n")
	}
	testfs.Write(t, filepath.Join(home, "elsewhere", "notes", "secret.txt"), "x\n")
	testfs.Write(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "x\n")
	os.Symlink(dots, filepath.Join(dir, "plugins"))
	os.Symlink(filepath.Join(home, "elsewhere"), filepath.Join(dots, "cache", "linked"))
	os.Symlink(filepath.Join(home, "elsewhere"), filepath.Join(dots, "cache", "mk", "linked"))
	os.Symlink("../../.aws", filepath.Join(dir, "skills", "aws"))
	entries, _, hidden, frozen, links, _, _ := claudeEntries(dir, nil, nil, nil)
	rel := func(ps []string) (out []string) {
		for _, p := range ps {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return out
	}
	if want := []string{"plugins/cache/mk/tool/1.0", "plugins/known_marketplaces.json", "plugins/marketplaces/m", "skills/s"}; !slices.Equal(rel(entries), want) {
		t.Errorf("shown %q, want %q", rel(entries), want)
	}
	if want := []string{"plugins/cache", "plugins/cache/mk", "plugins/cache/mk/tool", "plugins/marketplaces", "skills"}; !slices.Equal(rel(frozen), want) {
		t.Errorf("frozen %q, want %q", rel(frozen), want)
	}
	var made []string
	for _, l := range links {
		made = append(made, strings.TrimPrefix(l.Path, dir+"/")+" -> "+strings.TrimPrefix(l.Link, home+"/"))
	}
	if want := []string{"plugins/cache/linked -> elsewhere", "plugins/cache/mk/linked -> elsewhere", "skills/aws -> ../../.aws"}; !slices.Equal(made, want) || len(hidden) != 0 {
		t.Errorf("links %q, want %q; hidden %q", made, want, hidden)
	}
}

// TestClaudeFrozenHookOutput: a directory where clones go that a hook
// writes into is not frozen: it is shown whole, for the launch to leave
// it to the sandbox's hooks.
func TestClaudeFrozenHookOutput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	testfs.Write(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "x\n")
	skills := filepath.Join(dir, "skills")
	entries, _, _, frozen, _, _, _ := claudeEntries(dir, []string{skills}, []string{filepath.Join(skills, "log.txt")}, nil)
	if !slices.Equal(entries, []string{skills}) || len(frozen) != 0 {
		t.Errorf("shown %q, frozen %q; want skills whole", entries, frozen)
	}
}

package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// hooksPathSpellings are ways of writing core.hooksPath = .githooks that git
// reads as such, each added to a repository's .git/config (placed before
// its first line when first is set).
var hooksPathSpellings = []struct {
	name, text string
	first      bool
}{
	{name: "one-line", text: "[core] hooksPath = .githooks\n"},
	{name: "no-newline", text: "[core]hooksPath=.githooks\n"},
	{name: "section-case", text: "[Core]\n\thooksPath = .githooks\n"},
	{name: "key-case", text: "[core]\n\tHOOKSPATH = .githooks\n"},
	{name: "quoted-part", text: "[core]\n\thooksPath = \".git\"hooks\n"},
	{name: "continuation", text: "[core]\n\thooksPath = .git\\\nhooks\n"},
	{name: "hash-comment", text: "[core]\n\thooksPath = .githooks # the team's hooks\n"},
	{name: "semicolon-comment", text: "[core]\n\thooksPath = .githooks;team\n"},
	{name: "trailing-spaces", text: "[core]\n\thooksPath = .githooks \t \n"},
	{name: "crlf", text: "[core]\r\n\thooksPath = .githooks\r\n"},
	{name: "bom", text: "\xef\xbb\xbf[core]\n\thooksPath = .githooks\n", first: true},
	{name: "nul-subsection", text: "[core \"hookspath\x00\"]\n\tx = .githooks\n"},
	{name: "include", text: "[include]\n\tpath = team.inc\n"},
	{name: "includeif", text: "[includeIf \"gitdir:/\"]\n\tpath = team.inc\n"},
}

// TestReplayGitConfigHooksPath: the user's repositories set core.hooksPath
// in each of git's legal spellings (and one through the user's own
// ~/.gitconfig, written on one line). The agent rewrites the pre-commit
// hook in .githooks of every one. Host-side proof: after the session the
// host's own git commit in each repository runs none of what it wrote,
// and each hook is byte-identical. claudebox must read the config as git
// does to guard the directory git runs hooks from.
func TestReplayGitConfigHooksPath(t *testing.T) {
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	marker := filepath.Join(h.Base, "marker")
	// The user's own hooks path names another directory, so that it does
	// not stand in for a repository's own that claudebox misses.
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[core] hooksPath = .user-hooks ; for every repository\n")
	repos := []string{filepath.Join(code, "global")}
	for _, s := range hooksPathSpellings {
		repo := filepath.Join(code, s.name)
		h.GitRepo(repo)
		config := filepath.Join(repo, ".git", "config")
		old, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		text := string(old) + s.text
		if s.first {
			text = s.text + string(old)
		}
		h.Write(config, text)
		h.Write(filepath.Join(repo, ".git", "team.inc"), "[core]\n\thooksPath = .githooks\n")
		repos = append(repos, repo)
	}
	h.GitRepo(repos[0])
	var hooks []string
	for _, repo := range repos {
		hooksDir := ".githooks"
		if repo == repos[0] {
			hooksDir = ".user-hooks"
		}
		hook := filepath.Join(repo, hooksDir, "pre-commit")
		h.Write(hook, "#!/bin/sh\nexit 0\n")
		os.Chmod(hook, 0o755)
		hooks = append(hooks, hook)
		// The host's git reads the spelling: the hook it runs is there.
		if got := strings.TrimSpace(h.Run(repo, nil, "git", "rev-parse", "--git-path", "hooks")); got != hooksDir && got != filepath.Join(repo, hooksDir) {
			t.Fatalf("%s: git runs hooks from %q, not %s", repo, got, hooksDir)
		}
	}
	before := harness.Snapshots(hooks)

	// The host commits while the session still runs (the user in another
	// terminal): the guard, not the exit audit, must hold then.
	attack := `
		marker=$1; shift
		for hook in "$@"; do
			name=$(basename "$(dirname "$(dirname "$hook")")")
			payload=$(printf '#!/bin/sh\ntouch %s-%s\n' "$marker" "$name")
			{ printf '%s\n' "$payload" > "$hook"; } 2>/dev/null ||
			{ rm -rf "$(dirname "$hook")" && mkdir "$(dirname "$hook")" && printf '%s\n' "$payload" > "$hook"; } 2>/dev/null
			chmod +x "$hook" 2>/dev/null
		done
		touch .planted
		while [ ! -e .committed ]; do sleep 0.05; done
	` + "\n"
	session := h.Command(code, nil, "claudebox", append([]string{"--shell", "-c", attack, "attack", marker}, hooks...)...)
	var out strings.Builder
	session.Stdout, session.Stderr = &out, &out
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !paths.Exists(filepath.Join(code, ".planted")); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			session.Process.Kill()
			session.Wait()
			t.Fatalf("the attack did not run: %s", out.String())
		}
	}
	for _, repo := range repos {
		// A hook that fails stops the commit; what it ran has run.
		h.Command(repo, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "host").Run()
		if paths.Exists(marker + "-" + filepath.Base(repo)) {
			t.Errorf("%s: the host's git commit ran the hook the sandbox wrote", filepath.Base(repo))
		}
	}
	h.Write(filepath.Join(code, ".committed"), "")
	if err := session.Wait(); err != nil {
		t.Fatalf("claudebox: %v\n%s", err, out.String())
	}
	harness.NoPlaceholders(t, code)
	harness.CompareSnapshots(t, before)
}

package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/gitconfig"
)

// TestGitConfigView: the user's git configuration is copied without what
// may hold a credential, the rest kept as written (a user name in a URL
// included), and what is left out is named without its value; the files it
// includes are copied the same way, wherever they lie in the home; of
// ~/.config/git nothing else enters but the files git reads (ignore,
// attributes, the excludes file).
func TestGitConfigView(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitconfig", `[user]
	name = Alice
[url "https://alice:TOKEN1@github.com/"]
	insteadOf = https://github.com/
[url "https://ghp_TOKEN6abcdefghijklmnopqrstuvwxyz@github.com/"]
	insteadOf = gh:
[url "ssh://ru3@127.0.0.1:22233/"]
	insteadOf = lh:
[http]
	extraHeader = Authorization: Bearer TOKEN2
[sendemail]
	smtpPass = TOKEN3
[credential]
	helper = "!f() { echo password=TOKEN4; }; f"
[github]
	token = TOKEN5
[alias]
	co = checkout
[core]
	excludesFile = ~/.gitignore_global
[include]
	path = .config/git/work.inc
[include]
	path = clean.inc
`)
	const clean = "# the team's aliases\n[alias]\n\tci = commit\n"
	write("clean.inc", clean)
	write(".config/git/work.inc", "[http \"https://git.corp/\"]\n\textraHeader = PRIVATE-TOKEN: TOKEN7\n[user]\n\temail = alice@corp.example\n[includeIf \"gitdir:~/code/\"]\n\tpath = nested.inc\n")
	write(".config/git/nested.inc", "[url \"https://oauth2:TOKEN8@git.corp/\"]\n\tinsteadOf = corp:\n[alias]\n\tst = status\n")
	write(".config/git/config", "# the old one: extraHeader = Authorization: Bearer TOKEN11\n[alias]\n\tlg = log\n")
	write(".config/git/ignore", "*.swp\n")
	write(".config/git/credentials", "https://alice:TOKEN9@github.com\n")
	write(".config/git/gh-token", "TOKEN10\n")
	write(".gitignore_global", ".DS_Store\n")
	v := gitConfigView(home, proj, bind.Secrets(home))
	var all []gitconfig.Entry
	var dests []string
	for _, c := range v.copies {
		if strings.Contains(c.Content, "TOKEN") {
			t.Errorf("the copy of %s holds a credential:\n%s", c.Dest, c.Content)
		}
		entries, err := gitconfig.Parse([]byte(c.Content))
		if err != nil {
			t.Fatalf("%s: %v", c.Dest, err)
		}
		all = append(all, entries...)
		dests = append(dests, strings.TrimPrefix(c.Dest, home+"/"))
	}
	if want := []string{".gitconfig", ".config/git/config", ".config/git/work.inc", "clean.inc", ".config/git/nested.inc"}; !slices.Equal(dests, want) {
		t.Errorf("copies of %q, want %q", dests, want)
	}
	for key, want := range map[string]string{"user.name": "Alice", "alias.co": "checkout", "url.ssh://ru3@127.0.0.1:22233/.insteadof": "lh:", "user.email": "alice@corp.example", "alias.st": "status"} {
		if got := gitconfig.Last(all, key); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	for _, c := range v.copies {
		if c.Dest == filepath.Join(home, "clean.inc") && c.Content != clean {
			t.Errorf("a file with nothing left out is not copied as written: %q", c.Content)
		}
	}
	names := strings.Join(v.leftOut, "\n")
	if strings.Contains(names, "TOKEN") || !strings.Contains(names, "url.….insteadof in ~/.gitconfig") || !strings.Contains(names, "http.https://git.corp/.extraheader in ~/.config/git/work.inc") {
		t.Errorf("left out, named:\n%s", names)
	}
	var shown []string
	for _, o := range v.shown {
		shown = append(shown, strings.TrimPrefix(o.Dest, home+"/"))
	}
	if want := []string{".gitignore_global", ".config/git/ignore"}; !slices.Equal(shown, want) {
		t.Errorf("shown read-only: %q, want %q", shown, want)
	}
}

// BenchmarkGitConfigView: what a launch pays to read the user's git
// configuration as git does (a ~/.gitconfig with an include, an excludes
// file, ~/.config/git/ignore), copy it filtered and name what it leaves
// out.
func BenchmarkGitConfigView(b *testing.B) {
	home, proj := b.TempDir(), b.TempDir()
	for name, s := range map[string]string{
		".gitconfig":           "[user]\n\tname = A\n[url \"https://a:T@h/\"]\n\tinsteadOf = x:\n[core]\n\texcludesFile = ~/.gitignore_global\n[include]\n\tpath = .config/git/work.inc\n",
		".config/git/work.inc": "[http]\n\textraHeader = Bearer T\n[alias]\n\tst = status\n",
		".config/git/ignore":   "*.swp\n",
		".gitignore_global":    ".DS_Store\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		os.WriteFile(filepath.Join(home, name), []byte(s), 0o644)
	}
	secrets := bind.Secrets(home)
	for b.Loop() {
		gitConfigView(home, proj, secrets)
	}
}

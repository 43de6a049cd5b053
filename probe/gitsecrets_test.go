package probe

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/internal/testfs"
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
	v := gitConfigView(home, proj, "", bind.Secrets(home), env("HOME", home))
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
		if c.Dest == filepath.Join(home, "clean.inc") && c.Content != "[alias]\n\tci = \"commit\"\n" {
			t.Errorf("a file with nothing left out is not copied as git reads it: %q", c.Content)
		}
	}
	names := strings.Join(v.leftOut, "\n")
	if strings.Contains(names, "TOKEN") || !strings.Contains(names, "url.….insteadof in ~/.gitconfig") || !strings.Contains(names, "http.https://git.corp/.extraheader in ~/.config/git/work.inc") {
		t.Errorf("left out, named:\n%s", names)
	}
	var copied []string
	for _, m := range v.read {
		copied = append(copied, strings.TrimPrefix(m.Dest, home+"/")+": "+m.Content)
	}
	if want := []string{".gitignore_global: .DS_Store\n", ".config/git/ignore: *.swp\n"}; !slices.Equal(copied, want) {
		t.Errorf("copied: %q, want %q", copied, want)
	}
}

// TestGitConfigViewMoved: a GIT_CONFIG_GLOBAL or XDG_CONFIG_HOME of the
// host's environment moves what git reads as the user's; git inside runs
// with neither, so the file is copied where it reads by default, filtered,
// its relative include made absolute (the include itself copied at its
// place); GIT_CONFIG_GLOBAL=/dev/null reads as nothing.
func TestGitConfigViewMoved(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		".gitconfig":         "[alias]\n\thome = x\n",
		"dot/gitconfig":      "[alias]\n\tglobal = x\n[github]\n\ttoken = TOKEN1\n[include]\n\tpath = local.inc\n",
		"dot/local.inc":      "[alias]\n\tinc = x\n",
		"xdg/git/config":     "[alias]\n\txdg = x\n",
		"xdg/git/ignore":     "*.o\n",
		".config/git/ignore": "*.old\n",
	} {
		testfs.Write(t, filepath.Join(home, name), content)
	}
	view := func(vars ...string) (dests []string, contents map[string]string, shown []string, leftOut []string) {
		v := gitConfigView(home, proj, "", bind.Secrets(home), env(append([]string{"HOME", home}, vars...)...))
		contents = map[string]string{}
		for _, c := range v.copies {
			d := strings.TrimPrefix(c.Dest, home+"/")
			dests = append(dests, d)
			contents[d] = c.Content
		}
		for _, m := range v.read {
			shown = append(shown, m.Content+" at "+strings.TrimPrefix(m.Dest, home+"/"))
		}
		return dests, contents, shown, v.leftOut
	}
	dests, contents, _, leftOut := view("GIT_CONFIG_GLOBAL", filepath.Join(home, "dot", "gitconfig"))
	if want := []string{".gitconfig", "dot/gitconfig", "dot/local.inc"}; !slices.Equal(dests, want) {
		t.Errorf("with GIT_CONFIG_GLOBAL, copies of %q, want %q", dests, want)
	}
	if c := contents[".gitconfig"]; !strings.Contains(c, "global") || !strings.Contains(c, `path = "`+filepath.Join(home, "dot", "local.inc")+`"`) || strings.Contains(c, "TOKEN") {
		t.Errorf("with GIT_CONFIG_GLOBAL, ~/.gitconfig inside holds:\n%s", c)
	}
	if c := contents["dot/gitconfig"]; !strings.Contains(c, `path = "local.inc"`) || strings.Contains(c, "TOKEN") {
		t.Errorf("with GIT_CONFIG_GLOBAL, its file at its place holds:\n%s", c)
	}
	if !slices.Equal(leftOut, []string{"github.token in ~/dot/gitconfig"}) {
		t.Errorf("left out: %q", leftOut)
	}
	dests, contents, shown, _ := view("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	if want := []string{".gitconfig", ".config/git/config"}; !slices.Equal(dests, want) || contents[".config/git/config"] != "[alias]\n\txdg = \"x\"\n" {
		t.Errorf("with XDG_CONFIG_HOME, copies of %q, want %q:\n%q", dests, want, contents)
	}
	if want := []string{"*.o\n at .config/git/ignore"}; !slices.Equal(shown, want) {
		t.Errorf("with XDG_CONFIG_HOME, shown %q, want %q", shown, want)
	}
	if dests, _, _, _ := view("GIT_CONFIG_GLOBAL", os.DevNull); len(dests) != 0 {
		t.Errorf("with GIT_CONFIG_GLOBAL=/dev/null, copies of %q", dests)
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
		gitConfigView(home, proj, "", secrets, env("HOME", home))
	}
}

// TestTokenPrefixesAgree: a token known by its prefix is a credential in
// a git configuration as in a hook's command (one list of prefixes).
func TestTokenPrefixesAgree(t *testing.T) {
	for _, prefix := range []string{"ghp_", "gho_", "github_pat_", "glpat-", "gldt-", "xoxb-", "xoxe-", "sk-ant-", "sk-proj-", "AKIA"} {
		value := []byte("value = " + prefix + "0123456789ABCDEFabcdef")
		if !gitSecret(value) {
			t.Errorf("git configuration: %s… not taken for a credential", prefix)
		}
		if !claudesettings.HasCommandCredential(value) {
			t.Errorf("command: %s… not taken for a credential", prefix)
		}
	}
}

// TestGitConfigKnownOnly: what crosses of the user's and the system's git
// configuration is the variables known to hold no credential, by git's
// documentation of its own settings: a tool's variable whose name and
// value look like nothing (jira.login = alice:…, deploy.prod.pw) stays
// out, as do git's own that take one (credential.*, imap.*, http's
// cookie file), each named; /etc/gitconfig gets the same private copy.
func TestGitConfigKnownOnly(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	testfs.Write(t, filepath.Join(home, ".gitconfig"), `[user]
	name = Alice
[color]
	ui = auto
[jira]
	login = alice:correct-horse-SECRET1
[deploy "prod"]
	pw = SECRET2-battery-staple
[imap]
	tunnel = "ssh -q alice@mail imapd SECRET3"
[credential]
	helper = store
[http]
	sslVerify = false
	cookieFile = ~/.gitcookies
[sendemail]
	smtpServer = smtp.example.com
[delta]
	navigate = true
[url "git@github.com:"]
	insteadOf = gh:
[url "git@github.com:"]
	shortcut = SECRET4
`)
	system := filepath.Join(t.TempDir(), "gitconfig")
	testfs.Write(t, system, "[core]\n\tautocrlf = input\n[ci]\n\tdeployKey = SECRET5\n[mytool]\n\tcredentials = SECRET6\n")
	v := gitConfigView(home, proj, system, bind.Secrets(home), env("HOME", home))
	contents := map[string]string{}
	var all []gitconfig.Entry
	for _, c := range v.copies {
		contents[c.Dest] = c.Content
		entries, err := gitconfig.Parse([]byte(c.Content))
		if err != nil {
			t.Fatalf("%s: %v", c.Dest, err)
		}
		all = append(all, entries...)
		if strings.Contains(c.Content, "SECRET") {
			t.Errorf("the copy at %s holds what is not known to hold no credential:\n%s", c.Dest, c.Content)
		}
	}
	if _, ok := contents[systemGitConfig]; !ok {
		t.Errorf("no private copy at %s: copies at %q", systemGitConfig, slices.Collect(maps.Keys(contents)))
	}
	for key, want := range map[string]string{
		"user.name": "Alice", "color.ui": "auto", "http.sslverify": "false", "sendemail.smtpserver": "smtp.example.com",
		"delta.navigate": "true", "url.git@github.com:.insteadof": "gh:", "core.autocrlf": "input",
	} {
		if got := gitconfig.Last(all, key); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	named := strings.Join(v.leftOut, "\n")
	for _, want := range []string{"jira.login in ~/.gitconfig", "deploy.prod.pw in ~/.gitconfig", "imap.tunnel in ~/.gitconfig", "credential.helper in ~/.gitconfig", "http.cookiefile in ~/.gitconfig", "url.git@github.com:.shortcut in ~/.gitconfig", "ci.deploykey in " + system, "mytool.credentials in " + system} {
		if !strings.Contains(named, want) {
			t.Errorf("%q not named among what is left out:\n%s", want, named)
		}
	}
	if strings.Contains(named, "SECRET") {
		t.Errorf("a value named:\n%s", named)
	}
	// As the host's git reads it: none under GIT_CONFIG_NOSYSTEM, the file
	// GIT_CONFIG_SYSTEM names; one that cannot be read stands empty.
	other := filepath.Join(t.TempDir(), "other")
	testfs.Write(t, other, "[core]\n\tpager = less\n[ci]\n\ttoken = SECRET7\n")
	for _, c := range []struct {
		vars []string
		want string
	}{
		{[]string{"GIT_CONFIG_NOSYSTEM", "1"}, ""},
		{[]string{"GIT_CONFIG_SYSTEM", other}, "[core]\n\tpager = \"less\"\n"},
		{[]string{"GIT_CONFIG_SYSTEM", t.TempDir()}, ""},
	} {
		v := gitConfigView(home, proj, system, bind.Secrets(home), env(append([]string{"HOME", home}, c.vars...)...))
		var at []string
		for _, m := range v.copies {
			if m.Dest == systemGitConfig {
				at = append(at, m.Content)
			}
		}
		if !slices.Equal(at, []string{c.want}) {
			t.Errorf("with %q, at %s: %q, want %q", c.vars, systemGitConfig, at, c.want)
		}
	}
}

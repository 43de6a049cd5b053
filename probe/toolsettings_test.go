package probe

import (
	"slices"
	"strings"
	"testing"
)

// TestGitReadHolds: a file git reads as the user's (an excludes file, a
// commit template, allowed signers) is copied unless the judges find a
// credential in it: a key that names one, a credential in a URL (a
// password, a token as the user; a user name alone is none), a token by
// its prefix, a private key; one that is not text is taken to hold one.
func TestGitReadHolds(t *testing.T) {
	for _, c := range []struct {
		name, content string
		want          bool
	}{
		{"ignore", "*.swp\n.DS_Store\nnode_modules/\n.env\n*.pem\nsecrets/\n", false},
		{"attributes", "*.png binary\n*.ipynb filter=nbstripout\n", false},
		{"allowed_signers", "alice@example.com namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEcrs2stIIkarhmE3QaB/tzZiotlQZpk3oZb29DVb1uA\n", false},
		{".gitmessage", "# Subject, 50 characters\n\n# Why, wrapped at 72\n", false},
		{".gitmessage", "# Subject\n\n# the release bot's token: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n", true},
		{".gitignore_global", "*.swp\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n", true},
		{"ignore", "# deploy: https://alice:pw@proxy.example.com\n*.o\n", true},
		{"ignore", "# registry token = x\n*.o\n", true},
		{"ignore", "*.o\n\x00\x01binary", true},
		{"attributes", "*.o \xff\xfe\n", true},
	} {
		if got := gitReadHolds(c.name, []byte(c.content)); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.name, c.content, got, c.want)
		}
	}
}

// TestToolSettingsKnownOnly: a tool's settings cross as a private copy of
// what the tool reads there that is known to hold no credential, never as
// written: cargo's env table (a token for a build), a registry's token,
// GOAUTH, a comment that names a token, an option pip does not read, an
// npmrc's _authToken, a key kept in /etc/environment are left out, and the rest kept as the tool reads it; a copy that still
// may hold a credential is not shown.
func TestToolSettingsKnownOnly(t *testing.T) {
	for _, c := range []struct {
		name, in string
		rebuild  func([]byte) (string, bool)
		keep     []string
		shown    bool
	}{
		{"go env", "GOPRIVATE=corp.example/*\nGOAUTH=git /src\nOPENAI_API_KEY=sk-LEAKED1\nGOFLAGS=-mod=mod\n", goEnv, []string{"GOPRIVATE=corp.example/*", "GOFLAGS=-mod=mod"}, true},
		{"cargo env", "[env]\nOPENAI_API_KEY = \"sk-LEAKED2\"\nDB_PASS = \"LEAKED3\"\n[net]\ngit-fetch-with-cli = true\n", cargoConfig, []string{"[net]", "git-fetch-with-cli = true"}, true},
		{"cargo registry", "[registries.corp]\nindex = \"sparse+https://cargo.corp.example/\"\ntoken = \"LEAKED4\"\n[registry]\ndefault = \"corp\"\ntoken = \"LEAKED5\"\n", cargoConfig, []string{"index = 'sparse+https://cargo.corp.example/'", "default = 'corp'"}, true},
		{"pip comment", "# my pypi key, pypi-AgELEAKED6\n[global]\nindex-url = https://pypi.corp.example/simple\nextra-index-url =\n    https://a.example/simple\n    https://b.example/simple\nmy-key = LEAKED7\n", pipConfig, []string{"[global]", "index-url = https://pypi.corp.example/simple", "    https://a.example/simple", "    https://b.example/simple"}, true},
		{"uv", "# LEAKED8\nindex-url = \"https://pypi.corp.example/simple\"\nsecret-note = \"LEAKED9\"\n[pip]\nsystem = true\n", uvConfig, []string{"index-url = 'https://pypi.corp.example/simple'", "system = true"}, true},
		{"npmrc", "registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=LEAKED11\n@corp:registry = https://npm.corp.example/\ncafile=/etc/ssl/certs/ca.crt\n_auth=LEAKED12\n", npmrc, []string{"registry=https://npm.corp.example/", "@corp:registry=https://npm.corp.example/", "cafile=/etc/ssl/certs/ca.crt"}, true},
		{"/etc/environment", "PATH=\"/usr/local/bin:/usr/bin\"\nOPENAI_API_KEY=LEAKED13\nLANG=C.UTF-8\n", environmentFile, []string{`PATH="/usr/local/bin:/usr/bin"`, "LANG=C.UTF-8"}, true},
		{"nix.conf", "# old token ghp_LEAKED14\nsubstituters = https://cache.nixos.org # main LEAKED15\naccess-tokens = github.com=ghp_LEAKED16\nextra-access-tokens = x=LEAKED17\nextra-experimental-features = flakes\n!include /etc/nix/secret.conf\nnetrc-file = /etc/nix/netrc\n", nixConfig, []string{"substituters = https://cache.nixos.org", "extra-experimental-features = flakes"}, true},
		{"pip URL", "[global]\nindex-url = https://alice:LEAKED10@pypi.corp.example/simple\n", pipConfig, nil, false},
		{"cargo alias key", "[alias]\nship = \"run -- --api-key Zx81kA9qLm2LEAKED18\"\n", cargoConfig, nil, false},
		{"cargo runner login", "[target.x86_64-unknown-linux-gnu]\nrunner = \"curl -u ci:LEAKED19pw -T\"\n", cargoConfig, nil, false},
		{"cargo alias webhook", "[alias]\nping = \"run -- https://hooks.slack.com/services/T1/B2/LEAKED20\"\n", cargoConfig, nil, false},
	} {
		got, shown := settingsCopy([]byte(c.in), c.rebuild)
		if shown != c.shown {
			t.Errorf("%s: shown %v, want %v:\n%s", c.name, shown, c.shown, got)
		}
		if shown && strings.Contains(got, "LEAKED") {
			t.Errorf("%s: the copy holds what is not known to hold no credential:\n%s", c.name, got)
		}
		for _, line := range c.keep {
			if !strings.Contains(got, line+"\n") {
				t.Errorf("%s: %q not kept:\n%s", c.name, line, got)
			}
		}
	}
}

// nix.conf's includes, both kinds, relative to its directory or not, that
// lie in /etc; not a comment's, a line of another length, nor one
// outside /etc.
func TestNixIncludes(t *testing.T) {
	conf := "!include nix.custom.conf\ninclude conf.d/a.conf # note\n# include /etc/nix/off.conf\ninclude /etc/nix/b.conf extra\ninclude /home/u/nix.conf\n!include ../../x.conf\ninclude /etc/nix/../ssl/c.conf\n"
	got := nixIncludes("/etc/nix/nix.conf", []byte(conf))
	if want := []string{"/etc/nix/nix.custom.conf", "/etc/nix/conf.d/a.conf", "/etc/ssl/c.conf"}; !slices.Equal(got, want) {
		t.Errorf("nixIncludes = %q, want %q", got, want)
	}
}

// TestPHPIni: of a PHP ini file only its sections and the directives
// known to hold no credential, each value up to its comment: not a
// database's default password, an agent's license key, a session
// store's URL with its auth, nor a comment.
func TestPHPIni(t *testing.T) {
	got, ok := phpIni([]byte("; a note: pw hunter2\n[PHP]\nmemory_limit = 321M ; for the importer\nextension = \"newrelic.so\"\nnewrelic.license = \"abc\"\nmysqli.default_pw = hunter2\nsession.save_path = \"tcp://r?auth=x\"\ndate.timezone = \"Europe/Paris;x\" ; zone\nsendmail_path = \"/usr/sbin/ssmtp -t -au shop -ap hunter2\"\nmail.force_extra_parameters = \"-ap hunter2\"\n[HOST=dev.example.com]\ndisplay_errors = On\n"))
	want := "[PHP]\nmemory_limit = 321M\nextension = \"newrelic.so\"\ndate.timezone = \"Europe/Paris;x\"\n[HOST=dev.example.com]\ndisplay_errors = On\n"
	if !ok || got != want {
		t.Errorf("phpIni = %q, %v; want %q", got, ok, want)
	}
}

package bind

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// layout is the mounts as "KIND DEST" lines, relative to home.
func layout(home string, ms []mount.Mount) []string {
	var lines []string
	for _, m := range ms {
		lines = append(lines, string(m.Kind)+" "+strings.TrimPrefix(m.Dest, home+"/"))
	}
	return lines
}

func TestExpandBindsHidesSecrets(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, ".ssh/id_ed25519", "dotfiles/ssh/id_rsa", ".claude.json", ".claude.json.backup", "dotfiles/vimrc", ".gnupg -> dotfiles/gnupg", "dotfiles/gnupg/",
		".claude/settings.json", ".claudebox/approved/0123456789abcdef", "code/app/.git/", "code/other/", "notes/a", ".bashrc -> dotfiles/bashrc")
	if err := os.Symlink(filepath.Join(home, "dotfiles", "ssh"), filepath.Join(home, ".ssh-link")); err != nil {
		t.Fatal(err)
	}
	// ~/.ssh itself is a link into dotfiles (stow, home-manager): its
	// target stays hidden under a bind of dotfiles.
	os.RemoveAll(filepath.Join(home, ".ssh"))
	testfs.Tree(t, home, ".ssh -> dotfiles/ssh")
	project := instance.Project{Root: home + "/code/app", Checkout: home + "/code/app"}
	b := mount.BindSpec{Src: home, Dest: home}
	ms, _, hidden, _ := Layout(home, project, []mount.BindSpec{b}, nil, StateDirs(home, nil), Secrets(home), nil)
	got := layout(home, ms)
	for _, want := range []string{"--ro-bind code/other", "--ro-bind notes", "--ro-bind dotfiles/vimrc", "--symlink .bashrc", "--symlink .ssh-link"} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	for _, line := range got {
		for _, bad := range []string{" .ssh", "dotfiles/ssh", ".gnupg", "dotfiles/gnupg", ".claude", ".claude.json", ".claude.json.backup", "code/app", home} {
			if strings.HasSuffix(line, bad) {
				t.Errorf("%q is mounted", line)
			}
		}
	}
	var hiddenPaths []string
	for _, h := range hidden {
		hiddenPaths = append(hiddenPaths, strings.TrimPrefix(h.Path, home+"/"))
	}
	slices.Sort(hiddenPaths)
	if want := []string{".gnupg", ".ssh", "dotfiles/gnupg", "dotfiles/ssh"}; !slices.Equal(hiddenPaths, want) {
		t.Errorf("hidden = %q, want %q", hiddenPaths, want)
	}
}

// A writable bind keeps what the host runs read-only: its bin/ and .git,
// and the cargo files a shell sources. ~/.cargo holds another bind's
// destination, so it is split, and that entry left to the other bind.
func TestExpandBindsWritable(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, ".cargo/bin/cargo", ".cargo/env", ".cargo/registry/index/", ".cargo/git/", "cache/x", "cache/sub/")
	project := instance.Project{Root: "/srv/p", Checkout: "/srv/p"}
	cargo := mount.BindSpec{Src: home + "/.cargo", Dest: home + "/.cargo", Writable: true}
	inner := mount.BindSpec{Src: home + "/cache", Dest: home + "/.cargo/git"}
	ms, _, _, _ := Layout(home, project, []mount.BindSpec{cargo, inner}, nil, StateDirs(home, nil), Secrets(home), nil)
	got := layout(home, ms)
	want := []string{"--ro-bind .cargo/bin", "--ro-bind .cargo/env", "--bind .cargo/registry", "--ro-bind .cargo/git"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Nothing to leave out: one bind, with what the host runs mounted
	// read-only over it, so new files at its top still reach the host.
	testfs.Tree(t, home, "repo/.git/hooks/", "repo/bin/run", "repo/src/")
	repo := mount.BindSpec{Src: home + "/repo", Dest: "/opt/repo", Writable: true}
	ms, _, _, _ = Layout(home, project, []mount.BindSpec{repo}, nil, StateDirs(home, nil), Secrets(home), nil)
	got = layout(home, ms)
	if want := []string{"--bind /opt/repo", "--ro-bind /opt/repo/bin", "--ro-bind /opt/repo/.git"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A link there could be replaced, whatever is mounted on its target.
	testfs.Tree(t, home, "linked/bin -> ../cache")
	linked := mount.BindSpec{Src: home + "/linked", Dest: "/opt/linked", Writable: true}
	if _, _, _, symlinks := Layout(home, project, []mount.BindSpec{linked}, nil, StateDirs(home, nil), Secrets(home), nil); !slices.Equal(symlinks, []string{home + "/linked/bin"}) {
		t.Errorf("symlinks = %q", symlinks)
	}
	plain := mount.BindSpec{Src: home + "/cache", Dest: "/opt/cache", Writable: true}
	if ms, _, _, _ := Layout(home, project, []mount.BindSpec{plain}, nil, StateDirs(home, nil), Secrets(home), nil); len(ms) != 1 || ms[0].Kind != mount.Bind {
		t.Errorf("got %v", ms)
	}
}

func TestCheckBinds(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, ".config/nvim/", ".local/bin/", "cache/", "sock/", "xdg/claudebox/", "dotfiles/claudebox/", ".config/claudebox -> ../dotfiles/claudebox",
		".ssh/id_ed25519", ".aws/credentials", ".codex/auth.json", ".codex/config.toml", ".cargo/credentials.toml", ".cargo/registry/", "dotfiles/gnupg/", ".gnupg -> dotfiles/gnupg")
	l, err := net.Listen("unix", home+"/sock/agent")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	project := instance.Project{Root: home + "/code/app", Checkout: home + "/code/app"}
	cases := map[string]struct {
		b       mount.BindSpec
		reason  string
		problem Problem
	}{
		"rw home":       {mount.BindSpec{Src: home, Dest: home, Writable: true}, "whole home", WholeHome},
		"rw parent":     {mount.BindSpec{Src: filepath.Dir(home), Dest: "/mnt/h", Writable: true}, "whole home", WholeHome},
		"rw config":     {mount.BindSpec{Src: home + "/.config", Dest: home + "/.config", Writable: true}, "programs and settings", HomeTools},
		"state":         {mount.BindSpec{Src: home + "/.claude/projects", Dest: "/x"}, "state", State},
		"moved config":  {mount.BindSpec{Src: home + "/xdg/claudebox", Dest: "/x"}, "state", State},
		"linked state":  {mount.BindSpec{Src: home + "/dotfiles/claudebox", Dest: "/x"}, "state", State},
		"into project":  {mount.BindSpec{Src: home + "/cache", Dest: home + "/code/app/cache"}, "inside the project", DestInProject},
		"over .claude":  {mount.BindSpec{Src: home + "/cache", Dest: home + "/.claude"}, "claudebox's own mount", DestManaged},
		"above home":    {mount.BindSpec{Src: home + "/cache", Dest: filepath.Dir(home)}, "hide the private home", DestHidesHome},
		"into ro /usr":  {mount.BindSpec{Src: home + "/cache", Dest: "/usr/claudebox-test-missing"}, "read-only inside", DestReadOnly},
		"host sockets":  {mount.BindSpec{Src: "/run", Dest: "/mnt/run"}, "sockets", HostRuntime},
		"host tmp":      {mount.BindSpec{Src: "/tmp", Dest: "/mnt/tmp"}, "sockets", SharedTemp},
		"a socket":      {mount.BindSpec{Src: home + "/sock", Dest: "/mnt/s"}, home + "/sock/agent is a socket", Socket},
		"host proc":     {mount.BindSpec{Src: "/proc/1", Dest: "/mnt/p"}, "processes", HostRuntime},
		"rw subdir ok":  {mount.BindSpec{Src: home + "/.config/nvim", Dest: home + "/.config/nvim", Writable: true}, "", 0},
		"project above": {mount.BindSpec{Src: home + "/cache", Dest: home + "/code"}, "", 0},
		// Where a credential is, or may be.
		"ssh":           {mount.BindSpec{Src: home + "/.ssh", Dest: "/x"}, "~/.ssh is a credential store", CredentialStore},
		"in aws":        {mount.BindSpec{Src: home + "/.aws/credentials", Dest: "/x"}, "~/.aws is a credential store", CredentialStore},
		"codex login":   {mount.BindSpec{Src: home + "/.codex/auth.json", Dest: "/x"}, "~/.codex/auth.json is a credential store", CredentialStore},
		"linked gnupg":  {mount.BindSpec{Src: home + "/dotfiles/gnupg", Dest: "/x"}, "dotfiles/gnupg is a credential store", CredentialStore},
		"holds gnupg":   {mount.BindSpec{Src: home + "/dotfiles", Dest: "/x"}, "it holds ~/dotfiles/gnupg, a credential store", HoldsCredentials},
		"holds login":   {mount.BindSpec{Src: home + "/.codex", Dest: "/x"}, "it holds ~/.codex/auth.json", HoldsCredentials},
		"cargo":         {mount.BindSpec{Src: home + "/.cargo", Dest: "/x", Writable: true}, "it holds ~/.cargo/credentials.toml", HoldsCredentials},
		"ro home":       {mount.BindSpec{Src: home, Dest: home}, "it holds ~, where other tools", ToolState},
		"ro config":     {mount.BindSpec{Src: home + "/.config", Dest: home + "/.config"}, "it holds ~/.config", ToolState},
		"ro share":      {mount.BindSpec{Src: home + "/.local/share", Dest: "/x"}, "it holds ~/.local/share", ToolState},
		"ro above home": {mount.BindSpec{Src: filepath.Dir(home), Dest: "/x"}, "it holds ~,", ToolState},
		"cargo part ok": {mount.BindSpec{Src: home + "/.cargo/registry", Dest: "/x", Writable: true}, "", 0},
	}
	for name, c := range cases {
		err := Check([]mount.BindSpec{c.b}, home, project, StateDirs(home, []string{home + "/xdg/claudebox"}))
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.reason != "" && (err == nil || !strings.Contains(err.Error(), c.reason)):
			t.Errorf("%s: got %v, want %q", name, err, c.reason)
		case c.reason != "":
			if be := err.(*Error); be.Problem != c.problem || be.Writable != c.b.Writable {
				t.Errorf("%s: problem %d (writable %v), want %d", name, be.Problem, be.Writable, c.problem)
			}
		}
	}
}

// TestRefusalNamesNarrower: a bind refused for the credential store it
// holds names what of it could be bound instead, none a store itself.
func TestRefusalNamesNarrower(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, ".cargo/credentials.toml", ".cargo/registry/", ".cargo/git/", "code/", "datasets/", ".ssh/id_ed25519")
	project := instance.Project{Root: home + "/code/app", Checkout: home + "/code/app"}
	for src, want := range map[string][]string{home + "/.cargo": {"~/.cargo/git", "~/.cargo/registry"}, home: {"~/code", "~/datasets"}} {
		err := Check([]mount.BindSpec{{Src: src, Dest: "/x"}}, home, project, StateDirs(home, nil))
		if be, ok := err.(*Error); !ok || !slices.Equal(be.Narrower, want) {
			t.Errorf("%s: %v, narrower %q, want %q", src, err, be.Narrower, want)
		}
	}
}

// A bind of / leaves out the host's runtime directories, where sockets
// live (the test's home is under /tmp, so with them), and secrets.
func TestExpandBindsRoot(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, ".ssh/id_ed25519", "notes/")
	project := instance.Project{Root: "/srv/p", Checkout: "/srv/p"}
	ms, _, _, _ := Layout(home, project, []mount.BindSpec{{Src: "/", Dest: "/host"}}, nil, StateDirs(home, nil), Secrets(home), nil)
	if len(ms) == 0 {
		t.Fatal("nothing mounted")
	}
	for _, m := range ms {
		for _, bad := range append(append([]string{"/", home + "/.ssh"}, hostRuntime...), sharedTemp...) {
			if m.Kind != mount.Symlink && paths.Within(bad, m.Src) {
				t.Errorf("%s %s is mounted, showing %s", m.Kind, m.Src, bad)
			}
		}
	}
}

func TestParseBind(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, "real/", "link -> real", "work/")
	cases := map[string]struct {
		spec, src, dest string
	}{
		"tilde":    {"~/real", home + "/real", home + "/real"},
		"relative": {"../real", home + "/real", home + "/real"},
		"dest":     {"~/real:/opt/r", home + "/real", "/opt/r"},
		// What bwrap mounts is the link's target; where it appears is the
		// path the user wrote.
		"link": {"~/link", home + "/real", home + "/link"},
	}
	for name, c := range cases {
		b, err := Parse(c.spec, home, home+"/work", false, "")
		if err != nil || b.Src != c.src || b.Dest != c.dest {
			t.Errorf("%s: got %+v, %v", name, b, err)
		}
	}
	for bad, problem := range map[string]Problem{"~/missing": SourceMissing, "": Syntax, ":/x": Syntax, "~/real:": Syntax} {
		_, err := Parse(bad, home, home, true, "")
		if be, ok := err.(*Error); !ok || be.Problem != problem || !be.Writable || be.Spec != "--bind "+bad {
			t.Errorf("%q: %#v", bad, err)
		}
	}
}

// BenchmarkCheckBind: what a launch pays to check one bind against the
// credential stores (each looked up, with the real path of a linked one).
func BenchmarkCheckBind(b *testing.B) {
	home := b.TempDir()
	testfs.Tree(b, home, ".ssh/id_ed25519", ".aws/credentials", "work/data/", "code/app/")
	project := instance.Project{Root: home + "/code/app", Checkout: home + "/code/app"}
	binds := []mount.BindSpec{{Src: home + "/work", Dest: home + "/work"}}
	state := StateDirs(home, nil)
	for b.Loop() {
		if err := Check(binds, home, project, state); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExposes: a repository's bind is named in its approval question with
// the first file under it named as credentials are kept (a private key, an
// env file, a token, a service account), not with a template of one, and
// not from inside .git or node_modules.
func TestExposes(t *testing.T) {
	for files, want := range map[string]string{
		"a/.env.example b/README":              "",
		"a/.env":                               "a/.env",
		"keys/id_ed25519":                      "keys/id_ed25519",
		"deploy/gcp-service-account.json x":    "deploy/gcp-service-account.json",
		".git/token node_modules/x/secret.txt": "",
		"a/b/c/d/deep.pem":                     "",
		"cfg/api_token":                        "cfg/api_token",
	} {
		dir := t.TempDir()
		testfs.Tree(t, dir, strings.Fields(files)...)
		got := Exposes(dir)
		if want != "" {
			want = filepath.Join(dir, want)
		}
		if got != want {
			t.Errorf("%s: %q, want %q", files, got, want)
		}
	}
}

// TestCredentialNameHints: the hints that spare credentialName's
// expression leave out no name it matches, in any case.
func TestCredentialNameHints(t *testing.T) {
	for _, name := range []string{
		"id_rsa", "id_ed25519_sk", "a.pem", "a.key", "a.p12", "a.pfx", "a.jks", "a.keystore", "a.kdbx", "a.ovpn", "a.ppk",
		".env", ".env.local", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".vault-token",
		"credentials", "credentials.json", "auth.json", "oauth_creds.json", "my_token.txt", "secrets", "passwords.kdb",
		"service-account-prod.json", "serviceaccount.json", "a.\u212aey",
	} {
		for _, n := range []string{name, strings.ToUpper(name)} {
			if credentialName().MatchString(n) && !mayBeCredentialName(n) {
				t.Errorf("%q matches credentialName, but holds none of its hints", n)
			}
			if !credentialName().MatchString(n) {
				t.Errorf("%q does not match credentialName: the test's list is wrong", n)
			}
		}
	}
}

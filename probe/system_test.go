package probe

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// TestUsersOwn: of a system directory, what not every user may read is
// listed, a directory not every user may enter whole and unwalked; what
// every user reads, links, and certificates alone (public) are not.
func TestUsersOwn(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	for rel, mode := range map[string]os.FileMode{
		"public.conf":         0o644,
		"service.conf":        0o640,
		"mine":                0o600,
		"sub/public":          0o644,
		"sub/group.key":       0o640,
		"private/site.key":    0o644,
		"listed/unreadable/x": 0o644,
		"corp-ca.pem":         0o640,
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "corp-ca.pem"), []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o640)
	os.Chmod(filepath.Join(dir, "private"), 0o710)
	os.Chmod(filepath.Join(dir, "listed"), 0o750)
	os.Symlink("service.conf", filepath.Join(dir, "link"))
	got := usersOwn(dir)
	want := []mount.HostEntry{
		{Path: filepath.Join(dir, "listed"), Dir: true},
		{Path: filepath.Join(dir, "mine")},
		{Path: filepath.Join(dir, "private"), Dir: true},
		{Path: filepath.Join(dir, "service.conf")},
		{Path: filepath.Join(dir, "sub", "group.key")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("usersOwn = %v, want %v", got, want)
	}
}

// TestEtcShown: of /etc, only the entries of mount.EtcShown are found,
// a link as it is, and not through a link on the way; the rest is named,
// by the entries of a directory of which some are shown; what of the
// shown only the user may read is listed.
func TestEtcShown(t *testing.T) {
	etc := t.TempDir()
	os.Chmod(etc, 0o755)
	for rel, mode := range map[string]os.FileMode{
		"passwd":                      0o644,
		"hosts":                       0o640,
		"fstab":                       0o644,
		"rancher/k3s/k3s.yaml":        0o644,
		"ssl/certs/ca.pem":            0o644,
		"ssl/private/site.key":        0o644,
		"ssh/ssh_config":              0o644,
		"ssh/ssh_host_rsa_key":        0o600,
		"ld.so.conf.d/mine.conf":      0o640,
		"pki/other/ca.pem":            0o644,
		"pki/tls/private/site.key":    0o644,
		"pki/tls/openssl.cnf":         0o644,
		"php/8.2/cli/php.ini":         0o644,
		"php/8.2/fpm/pool.d/www.conf": 0o644,
		"maven/m2.conf":               0o644,
		"maven/settings.xml":          0o644,
		// Claude Code's managed policy: its files copied to be rebuilt,
		// never bound (one not every user may read is not shown), and
		// nothing else of its directory.
		"claude-code/managed-settings.json":      0o644,
		"claude-code/managed-settings.d/10.json": 0o644,
		"claude-code/managed-settings.d/sub/x":   0o644,
		"claude-code/managed-mcp.json":           0o640,
		"claude-code/CLAUDE.md":                  0o644,
		"claude-code/deploy.env":                 0o644,
	} {
		p := filepath.Join(etc, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("/usr/share/zoneinfo/UTC", filepath.Join(etc, "localtime"))
	os.MkdirAll(filepath.Join(etc, "elsewhere"), 0o755)
	os.WriteFile(filepath.Join(etc, "elsewhere", "tls"), nil, 0o644)
	os.Symlink("elsewhere", filepath.Join(etc, "pki2"))
	os.MkdirAll(filepath.Join(etc, "profiles", "per-user"), 0o755)
	os.Symlink("/nix/store/0000-user-environment", filepath.Join(etc, "profiles", "per-user", "alice"))
	shown, own, leftOut := etcShown(etc)
	at := func(rel string) string { return filepath.Join(etc, rel) }
	// A regular file every user may read is copied, as the probe saw it.
	copied := func(rel string) mount.HostPath {
		fi, err := os.Lstat(at(rel))
		if err != nil {
			t.Fatal(err)
		}
		return mount.HostPath{Path: at(rel), Checked: untrusted.IDOf(fi)}
	}
	wantShown := []mount.HostPath{
		copied("passwd"),
		{Path: at("hosts")},
		{Path: at("ld.so.conf.d")},
		{Path: at("localtime"), Link: "/usr/share/zoneinfo/UTC"},
		{Path: at("ssl/certs")},
		copied("pki/tls/openssl.cnf"),
		copied("ssh/ssh_config"),
		copied("claude-code/managed-settings.json"),
		copied("claude-code/managed-settings.d/10.json"),
		copied("claude-code/CLAUDE.md"),
		// php/8.2/cli: a private copy (phpDirCopy), not shown from here.
		copied("maven/m2.conf"),
		{Path: at("profiles")},
	}
	if !slices.Equal(shown, wantShown) {
		t.Errorf("shown = %v, want %v", shown, wantShown)
	}
	if want := []mount.HostEntry{{Path: at("hosts")}, {Path: at("ld.so.conf.d/mine.conf")}}; !slices.Equal(own, want) {
		t.Errorf("own = %v, want %v", own, want)
	}
	if want := []string{"claude-code/deploy.env", "claude-code/managed-mcp.json", "claude-code/managed-settings.d/sub", "elsewhere", "fstab", "maven/settings.xml", "php/8.2/fpm", "pki/other", "pki/tls/private", "pki2", "rancher", "ssh/ssh_host_rsa_key", "ssl/private"}; !slices.Equal(leftOut, want) {
		t.Errorf("leftOut = %v, want %v", leftOut, want)
	}
}

// TestEtcShownScripts: the shells' startup scripts of /etc are copies
// of those with no credential written in them; one with an
// administrator's proxy password or a token exported, or one too large
// to copy, is not shown and is named.
func TestEtcShownScripts(t *testing.T) {
	etc := t.TempDir()
	os.Chmod(etc, 0o755)
	for rel, content := range map[string]string{
		"profile":     "export http_proxy=http://corp:hunter2hunter2@proxy.corp:3128\n",
		"bash.bashrc": "PS1='\\u@\\h:\\w\\$ '\nexport PATH=/opt/oauth-tools/bin:/home/alice/.local/bin:$PATH\n",
		"zsh/zshenv":  "export ARTIFACTORY_TOKEN=abcdefghijklmnopqrstuvwxyz\n",
		"zsh/zshrc":   "setopt autocd\n",
		"zshrc":       strings.Repeat("#", maxEtcCopy+1),
	} {
		p := filepath.Join(etc, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shown, _, leftOut := etcShown(etc)
	var paths []string
	for _, s := range shown {
		if s.Checked == (untrusted.FileID{}) {
			t.Errorf("%s is bound, not copied", s.Path)
		}
		paths = append(paths, strings.TrimPrefix(s.Path, etc+"/"))
	}
	if want := []string{"bash.bashrc", "zsh/zshrc"}; !slices.Equal(paths, want) {
		t.Errorf("shown = %v, want %v", paths, want)
	}
	if want := []string{"profile", "zsh/zshenv", "zshrc"}; !slices.Equal(leftOut, want) {
		t.Errorf("leftOut = %v, want %v", leftOut, want)
	}
}

// BenchmarkEtcShown: what finding the host's /etc's shown entries, and
// walking them, costs a launch.
func BenchmarkEtcShown(b *testing.B) {
	for b.Loop() {
		etcShown("/etc")
	}
}

// BenchmarkUsersOwnEtc: what the walk of the host's whole /etc cost a
// launch before only EtcShown was shown, for comparison.
func BenchmarkUsersOwnEtc(b *testing.B) {
	for b.Loop() {
		usersOwn("/etc")
	}
}

// TestUsersOwnInUnlistable: what of a shown entry only the user's group
// may read is listed though the directory holding the entry lists
// nothing to the user (mode 0711): run as claudebox-e2e, root reads all.
func TestUsersOwnInUnlistable(t *testing.T) {
	if path := os.Getenv("CLAUDEBOX_TEST_USERSOWN"); path != "" {
		for _, e := range usersOwn(path) {
			fmt.Println(e.Path)
		}
		return
	}
	u, err := user.Lookup("claudebox-e2e")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and the user claudebox-e2e")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "usersown")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	conf := filepath.Join(dir, "pki", "tls")
	os.MkdirAll(conf, 0o755)
	os.Chmod(filepath.Dir(conf), 0o711)
	key := filepath.Join(conf, "group.key")
	if err := os.WriteFile(key, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chown(key, 0, gid)
	// The test's binary, where the user may run it.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUsersOwnInUnlistable$")
	cmd.Env = append(os.Environ(), "CLAUDEBOX_TEST_USERSOWN="+conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), key+"\n") && !strings.Contains(string(out), conf+"\n") {
		t.Errorf("usersOwn(%s) as the user does not list %s:\n%s", conf, key, out)
	}
}

// TestManagedClaudeCopy: of the managed policy's .claude, the copy holds
// the known directories' files and links, and leaves out
// (naming each) a file named as credentials are kept, one with a
// credential written in it, one only the user's groups may read, a git
// directory, a directory it cannot read whole, and every other entry.
func TestManagedClaudeCopy(t *testing.T) {
	etc := t.TempDir()
	dir := filepath.Join(etc, "claude-code", ".claude")
	for rel, mode := range map[string]os.FileMode{
		"CLAUDE.md":                        0o644,
		"notes.txt":                        0o644,
		"settings.json":                    0o644,
		"skills/a/SKILL.md":                0o644,
		"skills/a/run.sh":                  0o755,
		"skills/a/.env":                    0o644,
		"skills/a/hook.sh":                 0o755,
		"skills/a/group.md":                0o640,
		"skills/clone/.git/config":         0o644,
		"rules/r.md":                       0o644,
		"plugins/p/x.md":                   0o644,
		"agents/1/2/3/4/5/6/7/8/9/deep.md": 0o644,
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		content := "harmless\n"
		if rel == "skills/a/hook.sh" {
			content = "curl -H 'Authorization: Bearer abcdefghijklmnop0123456789' https://x.example\n"
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	os.Symlink("/usr/share/doc", filepath.Join(dir, "skills", "a", "doc"))
	c, leftOut, ok := managedClaudeCopy(etc, dir)
	if !ok {
		t.Fatal("not copied")
	}
	var got []string
	for _, e := range c.Entries {
		switch {
		case e.Link != "":
			got = append(got, e.Rel+" -> "+e.Link)
		case e.Dir:
			got = append(got, e.Rel+"/")
		case e.Executable:
			got = append(got, e.Rel+" (x)")
		default:
			got = append(got, e.Rel)
		}
	}
	slices.Sort(got)
	want := []string{"rules/", "rules/r.md", "skills/", "skills/a/", "skills/a/SKILL.md", "skills/a/doc -> /usr/share/doc", "skills/a/run.sh (x)", "skills/clone/"}
	if !slices.Equal(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
	slices.Sort(leftOut)
	wantOut := []string{"claude-code/.claude/CLAUDE.md", "claude-code/.claude/agents", "claude-code/.claude/notes.txt", "claude-code/.claude/plugins", "claude-code/.claude/settings.json", "claude-code/.claude/skills/a/.env", "claude-code/.claude/skills/a/group.md", "claude-code/.claude/skills/a/hook.sh", "claude-code/.claude/skills/clone/.git"}
	if !slices.Equal(leftOut, wantOut) {
		t.Errorf("left out %q, want %q", leftOut, wantOut)
	}
}

func TestUsrLocalHidden(t *testing.T) {
	usr := filepath.Join(t.TempDir(), "usr")
	local := filepath.Join(usr, "local")
	file := func(rel, content string, mode os.FileMode) {
		p := filepath.Join(local, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	file("bin/build", "#!/bin/sh\nmake\n", 0o755)
	file("bin/deploy.sh", "#!/bin/sh\ncurl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz' https://x\n", 0o755)
	file("bin/notes.txt", "x\n", 0o644)
	file("bin/conf/credentials.json", `{"token": "x"}`, 0o644)
	file("bin/lib/common.sh", "COMMON=1\n", 0o644)
	file("sbin/rotate", "#!/bin/sh\nexport VAULT_TOKEN=hvs.abcdefghijklmnopqrstuvwxyz\n", 0o755)
	file("deploy.env", "PASSWORD=x\n", 0o644)
	file(".secrets/token", "x\n", 0o644)
	file("go/bin/go", "\x7fELF", 0o755)
	file("share/doc/README", "x\n", 0o644)
	file("share/deploy/creds.env", "DEPLOY_TOKEN=x\n", 0o644)
	file("share/man/man1/tool.1.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xd3\x0b\xf1\x50\x08\xf1\xf7\xf7\x51\x30\xe4\x02\x00\x0a\x05\x9e\xaf\x0b\x00\x00\x00", 0o644) // .TH TOOL 1
	file("share/man/man1/leak.1.gz", "\x1f\x8b\x08\x00password=x", 0o644)
	file("share/tool/cache.db", "SQLite format 3\x00token=x", 0o644)
	file("lib/node_modules/tool/.npmrc", "//r/:_authToken=x\n", 0o644)
	file("lib/node_modules/tool/lib/config.json", `{"password": "x"}`, 0o644)
	file("lib/python3.11/dist-packages/tool/settings.yaml", "password: x\n", 0o644)
	file("lib/libtool.so.1", "\x7fELF\x00password=x", 0o644)
	file("include/tool.h", "#define TOOL 1\n", 0o644)
	file("src/ops/.git/HEAD", "ref: refs/heads/main\n", 0o644)
	file("deploy/notes.txt", "curl -u ci:hunter2 https://x\n", 0o644)
	file("go/misc/deploy.env", "PASSWORD=x\n", 0o644)
	file("go/VERSION", "go1.99\n", 0o644)
	file("tools/bin/deploy", "#!/bin/sh\n. ../deploy.env\n", 0o755)
	file("tools/deploy.env", "DEPLOY_TOKEN=abcdefghijklmnopqrstuvwxyz\n", 0o644)
	file("tools/README.md", "x\n", 0o644)
	file("tools/.git/HEAD", "ref: refs/heads/main\n", 0o644)
	file("tools/platform/config.json", `{"password": "x"}`, 0o644)
	file("tools/platform/lib.py", "NAME = 'x'\n", 0o644)
	file("cuda/bin/nvcc", "\x7fELF", 0o755)
	file("cuda/version.json", `{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}`, 0o644)
	file("cuda/nvvm/libdevice/notes.env", "PASSWORD=x\n", 0o644)
	file("maven/bin/mvn", "#!/bin/sh\n", 0o755)
	file("maven/boot/plexus-classworlds.jar", "PK\x05\x06"+strings.Repeat("\x00", 18), 0o644)
	file("maven/conf/settings.xml", "<settings><!-- <password>repopwd</password> --></settings>\n", 0o644)
	file("maven/conf/corp/settings.xml", "<settings><servers><server><password>hunter2</password></server></servers></settings>\n", 0o644)
	os.Symlink("share/man", filepath.Join(local, "man"))
	var got []string
	for _, e := range usrLocalHidden(local) {
		rel, _ := filepath.Rel(local, e.Path)
		got = append(got, fmt.Sprintf("%s %v", rel, e.Dir))
	}
	// Of a package's files, past its first level, only the names are
	// judged (config.json, settings.yaml), as in a skill's; of an installed
	// toolchain's directory (with a bin) its top's files and its git
	// directory, and of its directories what an installed directory's
	// would hide (tools), but a vendor's toolchain's, shown whole (go, cuda)
	// but its settings (maven's conf, its comments' examples shown).
	want := []string{
		".secrets true", "bin/deploy.sh false", "bin/notes.txt false", "bin/conf/credentials.json false", "deploy/notes.txt false", "deploy.env false",
		"lib/node_modules/tool/.npmrc false", "maven/conf/corp/settings.xml false", "sbin/rotate false", "share/deploy/creds.env false", "share/tool/cache.db false",
		"share/man/man1/leak.1.gz false", "src/ops/.git true", "tools/.git true", "tools/deploy.env false", "tools/platform/config.json false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("usrLocalHidden = %q, want %q", got, want)
	}
	os.RemoveAll(local)
	os.Symlink(t.TempDir(), local)
	if got := usrLocalHidden(local); got != nil {
		t.Errorf("usrLocalHidden of a link = %v, want nothing", got)
	}
}

// BenchmarkUsrLocalHidden looks through the machine's own /usr/local, or
// the one CLAUDEBOX_BENCH_USR_LOCAL names (a copy of global npm packages
// and documentation), as a launch does: with the verdicts the last
// launch kept (kept), and with none (first).
func BenchmarkUsrLocalHidden(b *testing.B) {
	local := mount.UsrLocal
	if dir := os.Getenv("CLAUDEBOX_BENCH_USR_LOCAL"); dir != "" {
		local = dir
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			usrLocalHidden(local)
		}
	})
	b.Run("kept", func(b *testing.B) {
		state := b.TempDir()
		done := verdict.Use(state)
		usrLocalHidden(local)
		done()
		before := processorTime()
		for b.Loop() {
			done := verdict.Use(state)
			usrLocalHidden(local)
			done()
		}
		b.ReportMetric(float64((processorTime()-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
}

// processorTime is the user and system time this process used.
func processorTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

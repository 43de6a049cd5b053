package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview19EtcNotKnownHarmless: /etc was shown but for what only
// the user's uid or groups may read, so what every user may read there
// crossed whatever it held: a share's password in /etc/fstab, a proxy's
// in apt's apt.conf.d, a token in a unit's Environment= under
// /etc/systemd (and a k3s admin kubeconfig written 0644). The attack,
// from inside: read them. Proof: none is readable inside and --dry-run
// names each as not shown; what the tools read (passwd, the
// certificates, the linker's cache) still is, and /etc is read-only.
func TestReplayReview19EtcNotKnownHarmless(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc's files needs root")
	}
	const secret = "REVIEW19-ETC-SECRET"
	// Each is made outside /etc and mounted over the host's in a mount
	// namespace of the test's own: other tests' sessions read the host's
	// /etc meanwhile, which must not change under them.
	stage := filepath.Join(h.Base, "etc")
	over := map[string]string{
		"/etc/fstab":          "fstab",
		"/etc/apt/apt.conf.d": "apt.conf.d",
		"/etc/systemd/system": "system",
	}
	h.Write(filepath.Join(stage, "fstab"), "//nas/share /mnt/share cifs username=u,password="+secret+"-fstab 0 0\n")
	h.Write(filepath.Join(stage, "apt.conf.d", "90proxy"), `Acquire::http::Proxy "http://u:`+secret+`-apt@proxy:3128/";`+"\n")
	h.Write(filepath.Join(stage, "system", "deploy.service"), "[Service]\nEnvironment=API_TOKEN="+secret+"-unit\n")
	var mounts []string
	for dest, src := range over {
		if _, err := os.Stat(dest); err != nil {
			t.Skipf("no %s to mount over", dest)
		}
		mounts = append(mounts, `mount --bind `+filepath.Join(stage, src)+` `+dest)
	}
	for _, p := range []string{stage, filepath.Join(stage, "apt.conf.d"), filepath.Join(stage, "system")} {
		os.Chmod(p, 0o755)
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", strings.Join(mounts, " && ") + ` && exec "$@"`, "sh"}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	if host := run("grep", "-r", secret, "/etc/fstab", "/etc/apt/apt.conf.d", "/etc/systemd/system"); strings.Count(host, secret) != 3 {
		t.Fatalf("the user cannot read the staged files on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /etc; head -1 /etc/passwd; test -d /etc/ssl/certs && echo CERTS; test -s /etc/ld.so.cache && echo LDCACHE; touch /etc/planted || echo ETC-READ-ONLY; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a secret in /etc every user may read is readable inside:\n%s", out)
	}
	for _, want := range []string{"root:", "CERTS", "LDCACHE", "ETC-READ-ONLY"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s of what the tools read in /etc:\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	if !strings.Contains(dry, "# not shown, of /etc") || !strings.Contains(dry, " fstab ") || !strings.Contains(dry, " apt ") || !strings.Contains(dry, " systemd") {
		t.Errorf("--dry-run does not name what of /etc it leaves out:\n%s", dry)
	}
}

// TestReplayReview19WidenedToolchainRoot: a PATH entry's bin/ two levels
// or more below the home is widened to the directory above it, which was
// shown whole but its git directories when it is no node or python
// prefix nor a known manager's: a checkout of one's own tools
// (~/work/devtools/bin on PATH) shows its .env, its configuration and
// its notes beside the programs. The attack, from inside: read them.
// Proof: none is readable inside, and --dry-run names each; the program,
// the library it sources and the toolchain's VERSION still are.
func TestReplayReview19WidenedToolchainRoot(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW19-TOOLROOT-SECRET"
	root := filepath.Join(h.Home, "work", "devtools")
	h.Write(filepath.Join(root, "bin", "deploy"), "#!/bin/sh\n. \"$(dirname \"$0\")/../lib/common.sh\"\necho DEPLOY-RUNS \"$COMMON\"\n")
	os.Chmod(filepath.Join(root, "bin", "deploy"), 0o755)
	h.Write(filepath.Join(root, "lib", "common.sh"), "COMMON=LIB-SOURCED\n")
	h.Write(filepath.Join(root, "VERSION"), "1.2.3\n")
	h.Write(filepath.Join(root, ".env"), "DEPLOY_TOKEN="+secret+"-env\n")
	h.Write(filepath.Join(root, "config.json"), `{"token":"`+secret+`-config"}`)
	h.Write(filepath.Join(root, "NOTES.md"), "prod password: "+secret+"-notes\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := []string{"PATH=" + filepath.Join(root, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, path, "exec 2>&1; deploy; cat "+filepath.Join(root, "VERSION")+"; grep -r "+secret+" "+root+"; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a file beside a PATH toolchain's programs is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "DEPLOY-RUNS LIB-SOURCED") || !strings.Contains(out, "1.2.3") {
		t.Errorf("inside, want the toolchain's program, its library and its VERSION:\n%s", out)
	}
	dry := h.Run(proj, path, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{".env", "config.json", "NOTES.md"} {
		if !strings.Contains(dry, filepath.Join(root, f)) {
			t.Errorf("--dry-run does not name %s as not shown:\n%s", f, dry)
		}
	}
}

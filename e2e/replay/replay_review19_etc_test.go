package replay

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

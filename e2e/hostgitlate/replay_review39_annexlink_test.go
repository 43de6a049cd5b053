package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview39AnnexObjectWrittenThroughLink: a link the session
// made into git-annex's objects stayed at the exit, as git-annex's own
// (an annexed file's), whatever the object: the session made the object
// of the annexed deploy.sh writable (the exit checks its content against
// its key, which still matched) and linked out.txt to it; the host's make,
// writing out.txt from static/, rewrote deploy.sh's content, with git
// status showing only a new out.txt and a note in static/, and the host's
// sh deploy.sh ran the session's command. Host-side proof: after the
// session, make then sh deploy.sh run nothing planted.
func TestReplayReview39AnnexObjectWrittenThroughLink(t *testing.T) {
	harness.RequireTool(t, "git-annex", "apt-get install git-annex")
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	git := annexRepo(t, h, proj)
	h.Write(filepath.Join(proj, "deploy.sh"), "echo deploying\n")
	h.Write(filepath.Join(proj, "Makefile"), "build:\n\tcat static/*.txt > out.txt\n")
	h.Write(filepath.Join(proj, "static", "index.txt"), "")
	git("annex", "add", "-q", "deploy.sh")
	git("add", "Makefile", "static")
	git("commit", "-qm", "deploy")
	h.Chown()
	out := h.Plant(proj, "a link to a writable annex object", `o=$(readlink deploy.sh) && chmod u+w $o && ln -s $o out.txt && echo 'touch `+h.Marker()+`' > static/note.txt`)
	h.Run(proj, nil, "make", "build")
	h.RunsNothingPlanted(out, proj, nil, "sh", "deploy.sh")
	if b, err := os.ReadFile(filepath.Join(proj, "deploy.sh")); err != nil || !strings.Contains(string(b), "deploying") {
		t.Errorf("deploy.sh after make: %q %v", b, err)
	}
}

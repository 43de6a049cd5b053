package secrets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34rUsrLocalRubyLibrary: Ruby installed with its default
// prefix /usr/local (from source, ruby-install, Docker's official ruby
// images) keeps its standard library in /usr/local/lib/ruby/<version>,
// which the launch judges file by file as an administrator's files: the
// examples of URLs with a user and a password in uri/generic.rb,
// json/common.rb and rubygems/uri.rb read as credentials, and each was
// an empty file inside, so require "uri" failed, and with it gem and
// bundler. Proof: inside, Ruby loads uri from that library alone and
// parses a URL.
func TestReplayReview34rUsrLocalRubyLibrary(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	harness.RequireTool(t, "ruby", "apt-get install ruby")
	lib, err := filepath.Glob("/usr/lib/ruby/[0-9]*")
	if err != nil || len(lib) == 0 {
		t.Skip("no Ruby standard library in /usr/lib/ruby")
	}
	stage := filepath.Join(h.Base, "usr-local")
	dest := filepath.Join(stage, "lib", "ruby", filepath.Base(lib[0]))
	harness.Must(t, os.MkdirAll(filepath.Dir(dest), 0o755))
	if out, err := exec.Command("cp", "-r", lib[0], dest).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.RunOver(stage, "/usr/local", proj, "claudebox", "--shell", "-c",
		"exec 2>&1; cd /usr/local/lib/ruby/"+filepath.Base(lib[0])+" && wc -c uri/generic.rb json/common.rb rubygems/uri.rb; ruby --disable-gems -e '$LOAD_PATH.replace([Dir.pwd]); require \"uri\"; puts \"R34-RUBY-\" + URI(\"https://example.com/x\").host'; true")
	t.Log(out)
	if !strings.Contains(out, "R34-RUBY-example.com") {
		t.Errorf("inside, Ruby's standard library below /usr/local does not load")
	}
}

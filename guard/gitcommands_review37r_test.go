package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// TestProbeGuardsGitConfigOtherCommandFiles: the keys git runs as a
// command are one list (gitconfig.RunsCommand), and it lacked those of
// git's other commands: what git send-email asks for addresses (a kernel
// tree's sendemail.cccmd = scripts/get_maintainer.pl) or sends with,
// imap-send's tunnel, git gui's tools, git help's viewer, git archive's
// compressor, a local remote's upload program. A tracked script they
// named by its path in the work tree was the sandbox's to edit, and the
// host's next git send-email ran the session's edit. Each is guarded
// where it exists, as a filter's is; a remote's URL is not.
func TestProbeGuardsGitConfigOtherCommandFiles(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "linux")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	testfs.Write(t, filepath.Join(proj, ".git", "config"), string(config)+
		"[sendemail]\n\tcccmd = scripts/get_maintainer.pl --norolestats\n\ttocmd = scripts/to.sh\n"+
		"[imap]\n\ttunnel = sh tools/tunnel.sh\n[guitool \"lint\"]\n\tcmd = tools/gui-lint\n"+
		"[man \"viewer\"]\n\tcmd = tools/man.sh\n[tar \"tar.xz\"]\n\tcommand = tools/xz.sh\n"+
		"[remote \"local\"]\n\turl = tools/url\n\tuploadpack = tools/upload-pack.sh\n")
	for _, f := range []string{"scripts/get_maintainer.pl", "scripts/to.sh", "tools/tunnel.sh", "tools/gui-lint", "tools/man.sh", "tools/xz.sh", "tools/upload-pack.sh", "tools/url"} {
		testfs.Write(t, filepath.Join(proj, f), "cat\n")
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, _, _, _ := Find(home, project, nil, nil)
	var guarded []string
	for _, g := range guards {
		guarded = append(guarded, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for f, want := range map[string]bool{"scripts/get_maintainer.pl": true, "scripts/to.sh": true, "tools/tunnel.sh": true, "tools/gui-lint": true, "tools/man.sh": true, "tools/xz.sh": true, "tools/upload-pack.sh": true, "tools/url": false} {
		if got := slices.Contains(guarded, f); got != want {
			t.Errorf("%s: guarded %v, want %v (guards %q)", f, got, want, guarded)
		}
	}
}

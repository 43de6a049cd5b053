package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
)

// A link among the home's other dot-directories that leads to a folder
// holding the project (Wine's drive z: is /) is no setting of the host's
// that the project is: the launch says nothing of it. One that leads into
// the project is guarded.
func TestProbeDotDirLinkAboveProject(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	os.WriteFile(filepath.Join(proj, "aliases.sh"), nil, 0o644)
	os.MkdirAll(filepath.Join(home, ".wine", "dosdevices"), 0o755)
	os.MkdirAll(filepath.Join(home, ".bashrc.d"), 0o755)
	for link, target := range map[string]string{
		".wine/dosdevices/z:":  "/",
		".wine/dosdevices/h:":  home,
		".bashrc.d/aliases.sh": filepath.Join(proj, "aliases.sh"),
	} {
		if err := os.Symlink(target, filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin"), nil, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil, nil, nil)
	for _, u := range h.Unprotected {
		if strings.Contains(u.From, ".wine") {
			t.Errorf("a drive letter of Wine's is named: %s: %s", u.From, u.Reason)
		}
	}
	guarded := false
	for _, g := range h.Guards {
		guarded = guarded || g.Path == filepath.Join(proj, "aliases.sh")
	}
	if !guarded {
		t.Error("what ~/.bashrc.d/aliases.sh leads to in the project is not guarded")
	}
}

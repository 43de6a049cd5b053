package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview16ManagerRootAllowlist: a version manager's root on
// PATH for its shims (~/.asdf, ~/.local/share/mise, ~/.pyenv) was shown
// whole but its git directories and its prefixes' configuration: a file
// the user or a plugin keeps there (a token beside the installs, mise's
// records of the configurations it trusts) was readable. The attack,
// from inside: read every file under the roots. Proof: none of the
// planted secrets is readable; each manager's shim still runs the
// installed tool it leads to.
func TestReplayReview16ManagerRootAllowlist(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW16-MANAGER-ROOT-SECRET"
	shim := func(root, tool, target string) {
		h.Write(filepath.Join(root, "shims", tool), "#!/bin/sh\nexec "+target+"\n")
		os.Chmod(filepath.Join(root, "shims", tool), 0o755)
	}
	tool := func(path, says string) {
		h.Write(path, "#!/bin/sh\necho "+says+"\n")
		os.Chmod(path, 0o755)
	}
	asdf := filepath.Join(h.Home, ".asdf")
	tool(filepath.Join(asdf, "installs", "nodejs", "20.1.0", "bin", "node"), "ASDF-NODE")
	shim(asdf, "node", filepath.Join(asdf, "installs", "nodejs", "20.1.0", "bin", "node"))
	h.Write(filepath.Join(asdf, "plugins", "nodejs", "bin", "install"), "#!/bin/sh\n")
	h.Write(filepath.Join(asdf, "token"), secret+"-asdf\n")
	h.Write(filepath.Join(asdf, "downloads", "nodejs", "auth.json"), secret+"-asdf-downloads\n")
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	tool(filepath.Join(mise, "installs", "go", "1.22", "bin", "go"), "MISE-GO")
	shim(mise, "go", filepath.Join(mise, "installs", "go", "1.22", "bin", "go"))
	h.Write(filepath.Join(mise, "trusted-configs", "work"), secret+"-mise\n")
	pyenv := filepath.Join(h.Home, ".pyenv")
	tool(filepath.Join(pyenv, "versions", "3.12", "bin", "python"), "PYENV-PYTHON")
	shim(pyenv, "python", filepath.Join(pyenv, "versions", "3.12", "bin", "python"))
	h.Write(filepath.Join(pyenv, ".pypirc"), secret+"-pyenv\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + strings.Join([]string{filepath.Join(asdf, "shims"), filepath.Join(mise, "shims"), filepath.Join(pyenv, "shims"), h.Bin, "/usr/local/bin:/usr/bin:/bin"}, ":")
	out := h.Inside(proj, []string{path}, `node; go; python; grep -rh -e `+secret+` ~ 2>/dev/null; true`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a file beside a version manager's installs is readable inside:\n%s", out)
	}
	for _, want := range []string{"ASDF-NODE", "MISE-GO", "PYENV-PYTHON"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the shims to run the installed tools (%s):\n%s", want, out)
		}
	}
}

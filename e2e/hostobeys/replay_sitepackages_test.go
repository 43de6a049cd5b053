package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// venvWithPackage makes a virtualenv at proj/.venv (git ignores it) with
// the package greet installed in its site-packages, as pip leaves one: the
// package and its dist-info naming its files. It returns site-packages.
func venvWithPackage(t *testing.T, h *harness.Host, proj string) string {
	t.Helper()
	harness.RequireTool(t, "python3", "apt-get install python3")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Run(proj, nil, "python3", "-m", "venv", "--without-pip", ".venv")
	found, _ := filepath.Glob(filepath.Join(proj, ".venv", "lib", "python3*", "site-packages"))
	if len(found) != 1 {
		t.Skipf("python3 -m venv made no one site-packages: %v", found)
	}
	site := found[0]
	h.Write(filepath.Join(site, "greet", "__init__.py"), "def hi():\n    return 'ok-test'\n")
	h.Write(filepath.Join(site, "greet-1.0.dist-info", "METADATA"), "Metadata-Version: 2.1\nName: greet\nVersion: 1.0\n")
	h.Write(filepath.Join(site, "greet-1.0.dist-info", "INSTALLER"), "pip\n")
	h.Write(filepath.Join(site, "greet-1.0.dist-info", "RECORD"), "greet/__init__.py,,\ngreet-1.0.dist-info/METADATA,,\ngreet-1.0.dist-info/INSTALLER,,\ngreet-1.0.dist-info/RECORD,,\n")
	if out := h.Run(proj, nil, ".venv/bin/python", "-c", "import greet; print(greet.hi())"); !strings.Contains(out, "ok-test") {
		t.Fatalf("the host's python before the session: %s", out)
	}
	return site
}

// TestReplayAuditSitePackages: a project's virtualenv, which git ignores,
// holds the packages the host's python imports (pytest, the project's
// own imports). The session rewrites an installed package's module in
// place and adds a .pth file, which python runs at every start in that
// virtualenv; git status is clean. Host-side proof: the host's python in
// the virtualenv runs neither; the exit names site-packages and a command
// that installs the package again.
func TestReplayAuditSitePackages(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	site := venvWithPackage(t, h, proj)
	rel, _ := filepath.Rel(proj, site)
	marker := h.Marker()
	stderr := h.InsideStderr(proj, `
		set -e
		printf 'open("`+marker+`.module", "w")\n' >> `+rel+`/greet/__init__.py
		printf 'import os; open("`+marker+`.pth", "w")\n' > `+rel+`/zz-hook.pth
		test -z "$(git status --porcelain)"
	`)
	out, _ := h.Command(proj, nil, ".venv/bin/python", "-c", "import greet").CombinedOutput()
	for _, planted := range []string{marker + ".module", marker + ".pth"} {
		if paths.Exists(planted) {
			t.Errorf("the host's python ran what the session planted (%s):\n%s\n%s", filepath.Base(planted), out, stderr)
		}
	}
	if !strings.Contains(stderr, "site-packages/: ") || !strings.Contains(stderr, "pip install") {
		t.Errorf("the exit does not name site-packages and the command:\n%s", stderr)
	}
	if _, err := os.Lstat(filepath.Join(site, "greet-1.0.dist-info")); err == nil {
		t.Errorf("greet's dist-info stayed: pip would take greet for installed and install nothing again")
	}
}

package replay

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// npmEnv keeps the host's npm on this machine: no registry, no audit.
var npmEnv = []string{"npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}

// TestReplayAuditNodeModulesRunner: the project's test script runs a
// package's runner through node_modules/.bin, installed before the
// session; git ignores node_modules. The session rewrites the runner in
// place: git status is clean, and the exit audit looked in node_modules
// only for a .env. Host-side proof: the host's npm test runs nothing
// planted; the exit names node_modules and the command that installs it
// again.
func TestReplayAuditNodeModulesRunner(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "package.json"), `{"name":"p","version":"1.0.0","scripts":{"test":"run-tests"}}`+"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules\n")
	h.Write(filepath.Join(proj, "node_modules", "runner", "package.json"), `{"name":"runner","version":"1.0.0","bin":{"run-tests":"bin/run.js"}}`+"\n")
	runner := filepath.Join(proj, "node_modules", "runner", "bin", "run.js")
	h.Write(runner, "#!/usr/bin/env node\nconsole.log('ok-test')\n")
	harness.Must(t, os.Chmod(runner, 0o755))
	harness.Must(t, os.MkdirAll(filepath.Join(proj, "node_modules", ".bin"), 0o755))
	harness.Must(t, os.Symlink("../runner/bin/run.js", filepath.Join(proj, "node_modules", ".bin", "run-tests")))
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "package")
	if out := h.Run(proj, npmEnv, "npm", "test"); !strings.Contains(out, "ok-test") {
		t.Fatalf("the host's npm test before the session: %s", out)
	}
	marker := h.Marker()
	stderr := h.InsideStderr(proj, `
		set -e
		printf '#!/usr/bin/env node\nrequire("fs").writeFileSync("`+marker+`", "")\n' > node_modules/runner/bin/run.js
		test -z "$(git status --porcelain)"
	`)
	c := h.Command(proj, npmEnv, "npm", "test")
	out, _ := c.CombinedOutput()
	if paths.Exists(marker) {
		t.Errorf("the host's npm test ran the rewritten runner:\n%s\n%s", out, stderr)
	}
	if !strings.Contains(stderr, "node_modules/: ") || !strings.Contains(stderr, "npm install") {
		t.Errorf("the exit does not name node_modules and the command:\n%s", stderr)
	}
}

// TestReplayAuditNpmInstall: not an attack but the workflow the audit
// must leave working: npm install inside (offline: a local file:
// dependency with a runner) adds what the test script runs. Host-side
// proof: after the one command the exit names, the host's npm test works.
func TestReplayAuditNpmInstall(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "package.json"), `{"name":"p","version":"1.0.0","scripts":{"test":"local-run"},"dependencies":{"localdep":"file:./localdep"}}`+"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules\n")
	h.Write(filepath.Join(proj, "localdep", "package.json"), `{"name":"localdep","version":"1.0.0","bin":{"local-run":"run.js"}}`+"\n")
	h.Write(filepath.Join(proj, "localdep", "run.js"), "#!/usr/bin/env node\nconsole.log('ok-test')\n")
	harness.Must(t, os.Chmod(filepath.Join(proj, "localdep", "run.js"), 0o755))
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "package")
	stderr := h.InsideStderr(proj, `
		set -e
		export npm_config_update_notifier=false
		npm install --offline --no-audit --no-fund
		npm test
	`)
	_, command, ok := strings.Cut(stderr, "(read git diff first): ")
	if !ok {
		// Nothing moved aside: npm test must work as it is.
		command = "true"
	}
	command, _, _ = strings.Cut(command, "\n")
	h.Run(proj, npmEnv, "sh", "-c", command)
	if out := h.Run(proj, npmEnv, "npm", "test"); !strings.Contains(out, "ok-test") {
		t.Errorf("after %q, the host's npm test: %s\n%s", command, out, stderr)
	}
}

// TestReplayAuditSelfIgnoringMakefile: the session writes a GNUmakefile,
// which make prefers to the project's Makefile, and a .gitignore that
// ignores both: git status --porcelain is empty. Host-side proof: the
// host's make runs the project's Makefile, not the planted recipe.
func TestReplayAuditSelfIgnoringMakefile(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed (.ci/run installs it)")
	}
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\t@echo ok-make\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "Makefile")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "make")
	marker := h.Marker()
	stderr := h.InsideStderr(proj, `
		set -e
		printf 'all:\n\t@touch `+marker+`\n' > GNUmakefile
		printf 'GNUmakefile\n.gitignore\n' > .gitignore
		test -z "$(git status --porcelain)"
	`)
	out := h.Run(proj, nil, "make")
	if paths.Exists(marker) || !strings.Contains(out, "ok-make") {
		t.Errorf("the host's make ran the planted GNUmakefile:\n%s\n%s", out, stderr)
	}
}

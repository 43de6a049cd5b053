package hostrunslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview39SubfolderPlants: what the user's tools obey in a
// folder of the project they later cd into, planted where nothing was at
// the launch, so that no guard stood there. A .git file in sub/ naming a
// git directory the session made elsewhere in the tree (gitdir:
// ../.cache/sub.git), whose config sets core.fsmonitor: git status in sub/
// runs it. A tracked folder, docs/, made a bare repository in place (git
// takes a folder holding HEAD, objects and refs for one: safe.bareRepository
// is "all" unless the user set it), whose config sets diff.external: git
// diff there runs it. A package's own Claude Code settings, pkg/.claude,
// with a SessionStart hook, which the host's claude started in pkg/ runs,
// beside its .mcp.json, .envrc, mise.toml and .tool-versions. Host-side
// proof: after the session the host's git status in sub/, git diff in
// docs/ and claude -p in pkg/ run nothing the session wrote, and each
// plant is gone from the project.
func TestReplayReview39SubfolderPlants(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "docs", "guide.md"), "the guide\n")
	h.Write(filepath.Join(proj, "pkg", "app.py"), "print('app')\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "docs", "pkg")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "docs and pkg")
	pkg := filepath.Join(proj, "pkg")
	const key = "sk-ant-test-key-hostruns39-0123456789ab"
	h.Onboarded(key, pkg)
	marker := h.Marker()
	touch := "touch " + marker
	h.Plant(proj, "a gitfile's repository, a bare repository in docs/, pkg's agent and shell settings", `set -e
		git init -q --bare .cache/sub.git
		git --git-dir=.cache/sub.git config core.bare false
		git --git-dir=.cache/sub.git config core.fsmonitor '`+touch+`'
		mkdir sub && echo sub > sub/notes.txt
		echo 'gitdir: ../.cache/sub.git' > sub/.git
		git init -q --bare docs
		w=$(mktemp -d)
		for v in one two; do
			echo $v > $w/page.md
			GIT_DIR=$PWD/docs GIT_WORK_TREE=$w git add page.md
			GIT_DIR=$PWD/docs GIT_WORK_TREE=$w git -c user.name=t -c user.email=t@example.com commit -qm $v
		done
		git --git-dir=docs config diff.external '`+touch+`'
		mkdir -p pkg/.claude
		printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"%s"}]}]}}\n' '`+touch+`' > pkg/.claude/settings.json
		printf '{"mcpServers":{"x":{"command":"sh","args":["-c","%s"]}}}\n' '`+touch+`' > pkg/.mcp.json
		echo '`+touch+`' > pkg/.envrc
		printf '[env]\n_.source = "setup.sh"\n' > pkg/mise.toml
		echo 'nodejs 20.0.0' > pkg/.tool-versions`)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the marker is there before any host command ran")
	}
	for _, c := range []struct {
		dir  string
		name string
		args []string
		env  []string
	}{
		{filepath.Join(proj, "sub"), "git", []string{"status", "--porcelain"}, nil},
		{filepath.Join(proj, "docs"), "git", []string{"diff", "HEAD~1", "HEAD"}, nil},
		{pkg, "claude", []string{"-p", "hello"}, harness.StartFakeAPI(t, "FAKE-REPLY-hostruns39").Env(key)},
	} {
		out, _ := h.Command(c.dir, c.env, c.name, c.args...).CombinedOutput()
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the host's %s %q in %s ran what the session planted:\n%s", c.name, c.args, c.dir, out)
			os.Remove(marker)
		}
	}
	for _, planted := range []string{
		"sub/.git", ".cache/sub.git/config", "docs/config", "pkg/.claude/settings.json", "pkg/.mcp.json",
		"pkg/.envrc", "pkg/mise.toml", "pkg/.tool-versions",
	} {
		if _, err := os.Lstat(filepath.Join(proj, planted)); err == nil {
			t.Errorf("the session's %s is left in the project", planted)
		}
	}
	if got := h.Run(proj, nil, "git", "status", "--porcelain", "docs", "pkg"); strings.Contains(got, "app.py") || strings.Contains(got, "guide.md") {
		t.Errorf("the exit changed the tracked files of docs/ or pkg/:\n%s", got)
	}
}

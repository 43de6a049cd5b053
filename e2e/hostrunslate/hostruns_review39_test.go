package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview39LinkLeadsOutThroughLink: a link the session made
// that leads nowhere yet, through a link of its own to the project's top
// and a .. after it, stayed at the exit: read as the rest of its path
// taken as written, trick/up/../../.local/bin/git was .local/bin/git in
// the project, where the kernel, following trick/up before its .., has
// the host's build that writes tool (an open that creates: a shell's >,
// cc -o) write ~/.local/bin/git, which the user's next git anywhere runs.
// Host-side proof: after the session, the host's make writes nothing
// there.
func TestReplayReview39LinkLeadsOutThroughLink(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "site")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, ".local", "bin")
	harness.Must(t, os.MkdirAll(bin, 0o755))
	h.Write(filepath.Join(proj, ".gitignore"), "/tool/\n")
	h.Write(filepath.Join(proj, "Makefile"), "build:\n\tsed s/hello/built/ static/index.html > tool\n")
	h.Write(filepath.Join(proj, "static", "index.html"), "<p>hello</p>\n")
	harness.CommitAll(h, proj, "site")
	out := h.Plant(proj, "a link out through a link to the top", `mkdir trick && ln -s .. trick/up && ln -s trick/up/../../.local/bin/git tool`)
	h.Run(proj, nil, "make", "build")
	if _, err := os.Lstat(filepath.Join(bin, "git")); err == nil {
		t.Errorf("the host's make wrote through the session's tool into %s:\n%s", bin, out)
	}
}

// TestReplayReview39LinkThroughProc: a link the session made through
// /proc/self/cwd stayed at the exit where the exit, running where the
// user launched claudebox (a subdirectory of the project), found it
// within the project, /proc/self/cwd/../.local/bin/git being the
// project's .local/bin/git there; the host's make, at the top, writing
// tool through it, wrote ~/.local/bin/git. Host-side proof: after the
// session, the host's make writes nothing there.
func TestReplayReview39LinkThroughProc(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "site")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, ".local", "bin")
	harness.Must(t, os.MkdirAll(bin, 0o755))
	h.Write(filepath.Join(proj, ".gitignore"), "/tool/\n")
	h.Write(filepath.Join(proj, "Makefile"), "build:\n\tsed s/hello/built/ static/index.html > tool\n")
	h.Write(filepath.Join(proj, "static", "index.html"), "<p>hello</p>\n")
	harness.CommitAll(h, proj, "site")
	out := h.Plant(filepath.Join(proj, "static"), "a link through /proc", `ln -s /proc/self/cwd/../.local/bin/git ../tool`)
	h.Run(proj, nil, "make", "build")
	if _, err := os.Lstat(filepath.Join(bin, "git")); err == nil {
		t.Errorf("the host's make wrote through the session's tool into %s:\n%s", bin, out)
	}
}

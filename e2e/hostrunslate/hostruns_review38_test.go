package hostrunslate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview38SnapshotRunsNoFilter: the launch's undo snapshot
// hashes the checkout with git on the host while the session already
// runs, and that git obeyed the user's git configuration and the
// checkout's attributes: a clean filter of the user's, nbstripout's
// "python3" -m nbstripout, ran from the checkout's top on each notebook
// it hashed, Python importing from there first. The nbstripout.py the
// session wrote at the top as it started ran on the host before the
// snapshot was done, no git command of the user's run (the exit moves
// the module aside, too late). Host-side proof: the session's launch runs
// nothing it planted.
func TestReplayReview38SnapshotRunsNoFilter(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "notebooks")
	h.GitRepo(proj)
	// nbstripout, installed for the user; as slow to start as the real
	// one (it imports nbformat), where a checkout holds a few notebooks.
	const passThrough = "import sys\nsys.stdout.write(sys.stdin.read())\n"
	site := strings.TrimSpace(h.Run(proj, nil, "python3", "-c", "import site; print(site.getusersitepackages())"))
	h.Write(filepath.Join(site, "nbstripout.py"), "import time\ntime.sleep(0.5)\n"+passThrough)
	for i := range 16 {
		h.Write(filepath.Join(proj, fmt.Sprintf("analysis%02d.ipynb", i)), "{}\n")
	}
	harness.CommitAll(h, proj, "notebooks")
	// What nbstripout --install --global writes.
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[filter \"nbstripout\"]\n\tclean = \\\"python3\\\" -m nbstripout\n\tsmudge = cat\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "attributes"), "*.ipynb filter=nbstripout\n")
	out := h.Plant(proj, "a module the snapshot's filter imports", `printf 'open("`+h.Marker()+`", "w")\n`+strings.ReplaceAll(passThrough, "\n", `\n`)+`' > nbstripout.py && sleep 10`)
	if _, err := os.Lstat(h.Marker()); err == nil {
		t.Errorf("the session's launch ran the nbstripout.py it wrote:\n%s", out)
	}
}

// TestReplayReview38FolderRepositoryGitRunsNewScript: as
// TestReplayReview37GitRunsNewScript, in a folder of repositories
// (claudebox run where no repository is, above several): a clean filter
// of a repository's configuration runs sh tools/strip.sh, not there at
// the launch. The exit judged what the session made in such a
// repository by its kind and ignore rules alone, and left the new
// tools/strip.sh to that repository's git status, which ran it on a
// notebook whose time changed before naming it. Host-side proof: the
// host's git status there runs nothing planted.
func TestReplayReview38FolderRepositoryGitRunsNewScript(t *testing.T) {
	h := harness.NewHost(t)
	work := filepath.Join(h.Home, "work")
	app := filepath.Join(work, "app")
	h.GitRepo(app)
	h.Write(filepath.Join(app, "analysis.ipynb"), "{}\n")
	harness.CommitAll(h, app, "notebook")
	h.Run(app, nil, "git", "config", "filter.strip.clean", "sh tools/strip.sh")
	h.Write(filepath.Join(app, ".git", "info", "attributes"), "*.ipynb filter=strip\n")
	h.Write(filepath.Join(work, "notes.txt"), "a folder of repositories\n")
	out := h.Plant(work, "a new script a repository's filter runs", `sleep 2; mkdir -p app/tools && printf 'touch `+h.Marker()+`\ncat\n' > app/tools/strip.sh && touch app/analysis.ipynb`)
	h.RunsNothingPlanted(out, app, nil, "git", "status")
}

// TestReplayReview38LinkLeadsOut: a link the session made that leads
// out of the project, or into its git directory, where git does not
// ignore it (a .gitignore's /dist/ matches a directory, not a link),
// stayed at the exit, git status showing a new dist: the host's make,
// whose recipe copies static/ into dist/, wrote through it into
// ~/.local/bin, or .git/hooks (a static/pre-commit would be a hook).
// Host-side proof: after the session, the host's make writes nothing
// there.
func TestReplayReview38LinkLeadsOut(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "site")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, ".local", "bin")
	harness.Must(t, os.MkdirAll(bin, 0o755))
	h.Write(filepath.Join(proj, ".gitignore"), "/dist/\n/out/\n/hooks/\n")
	h.Write(filepath.Join(proj, "Makefile"), "OUT ?= dist\nbuild:\n\tmkdir -p $(OUT) && cp -r static/. $(OUT)/\n")
	h.Write(filepath.Join(proj, "static", "index.html"), "<p>hello</p>\n")
	harness.CommitAll(h, proj, "site")
	// In the project too, leading out through the user's own link.
	harness.Must(t, os.Symlink(h.Home, filepath.Join(proj, "home")))
	for _, link := range [][2]string{{"dist", bin}, {"out", "home/.local/bin"}, {"hooks", ".git/hooks"}} {
		name, target := link[0], link[1]
		t.Run(name, func(t *testing.T) {
			out := h.Plant(proj, "a link out of the project", `ln -s `+target+` `+name)
			h.Run(proj, nil, "make", "build", "OUT="+name)
			for _, dir := range []string{bin, filepath.Join(proj, ".git", "hooks")} {
				if _, err := os.Lstat(filepath.Join(dir, "index.html")); err == nil {
					t.Errorf("the host's make wrote index.html through the session's %s into %s:\n%s", name, dir, out)
					os.Remove(filepath.Join(dir, "index.html"))
				}
			}
		})
	}
}

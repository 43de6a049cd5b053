package hostruns

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview24MergeAutostash: git merge --autostash keeps the stash
// it made in .git/MERGE_AUTOSTASH, and every git commit after applies it
// (git stash apply, its untracked and ignored files too), with no merge
// in progress and nothing in git status before or after. The exit audit
// judged a git directory's top by the names it knew (HEAD's kin, named;
// config, moved aside), and passed the rest: the session writes an
// autostash that holds an ignored build output the project's make takes
// for up to date. Host-side proof: the host's next git commit and make
// run run nothing the session wrote.
func TestReplayReview24MergeAutostash(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/app\n")
	h.Write(filepath.Join(proj, "app.sh"), "#!/bin/sh\necho built\n")
	h.Write(filepath.Join(proj, "Makefile"), "run: app\n\t./app\napp: app.sh\n\tcp app.sh app && chmod +x app\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "autostash", `
		export GIT_INDEX_FILE=/tmp/untracked GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		app=$(printf '#!/bin/sh\ntouch `+marker+`\n' | git hash-object -w --stdin)
		git update-index --add --cacheinfo 100755,$app,app
		u=$(git commit-tree $(git write-tree) -m 'untracked files on main')
		i=$(git commit-tree 'HEAD^{tree}' -p HEAD -m 'index on main')
		git commit-tree 'HEAD^{tree}' -p HEAD -p $i -p $u -m 'autostash' > .git/MERGE_AUTOSTASH
		unset GIT_INDEX_FILE`)
	committed, _ := h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "release").CombinedOutput()
	ran, _ := h.Command(proj, nil, "make", "run").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit and make run ran what the session's autostash held:\n%s\n%s%s", out, committed, ran)
	}
	if !strings.Contains(out, filepath.Join(proj, ".git", "MERGE_AUTOSTASH")) {
		t.Errorf("the end did not name the autostash the session wrote:\n%s", out)
	}
}

// TestReplayReview24AnnexObject: git-annex keeps a file's content in the
// git directory (.git/annex/objects/<xx>/<yy>/<key>/<key>, the key naming
// the content's hash) and commits a symlink to it, which the host follows
// wherever it reads or runs the file; nothing but git annex fsck checks
// the content against the key. The exit audit walked a git directory's
// directories by the names it knew (objects, refs, lfs, ...) and passed
// the rest: the session rewrites the object of the project's annexed
// script. Host-side proof: git status says nothing, and the host's run of
// the committed script runs nothing the session wrote.
func TestReplayReview24AnnexObject(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	content := "#!/bin/sh\necho deployed\n"
	key := fmt.Sprintf("SHA256E-s%d--%x.sh", len(content), sha256.Sum256([]byte(content)))
	object := filepath.Join(".git", "annex", "objects", "pX", "3Q", key, key)
	h.Write(filepath.Join(proj, object), content)
	h.Run(proj, nil, "chmod", "-R", "a-w", filepath.Join(proj, ".git", "annex", "objects", "pX", "3Q", key))
	h.Run(proj, nil, "ln", "-s", object, "deploy.sh")
	harness.CommitAll(h, proj, "annexed")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "annexed object", `
		o=$(readlink deploy.sh)
		chmod u+w "$(dirname "$o")" "$o"
		printf '#!/bin/sh\ntouch `+marker+`\n' > "$o"
		chmod a-w "$o" "$(dirname "$o")"`)
	h.RunsNothingPlanted(out, proj, nil, "sh", "deploy.sh")
	if !strings.Contains(out, filepath.Join(proj, ".git", "annex", "objects")) {
		t.Errorf("the end did not name the annexed object the session rewrote:\n%s", out)
	}
}

// TestReplayReview24VimExrc: Vim with 'exrc' set (a user's choice, as
// for .exrc, which the registry knew) runs the first of .vimrc, _vimrc
// and .exrc in the directory it starts in, and gvim .gvimrc or _gvimrc:
// the host's git commit in the project starts it there. The session
// writes .vimrc and _vimrc. Host-side proof: the host's vim there runs
// nothing the session wrote.
func TestReplayReview24VimExrc(t *testing.T) {
	harness.RequireTool(t, "vim", "apt-get install vim")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".vimrc"), "set exrc\n")
	marker := h.Marker()
	out := h.Plant(proj, "the .vimrc", `printf 'call writefile([], "`+marker+`.dot")\n' > .vimrc && printf 'call writefile([], "`+marker+`.under")\n' > _vimrc`)
	for _, what := range []string{"dot", "under"} {
		ran, _ := h.Command(proj, nil, "vim", "-N", "--not-a-term", "-c", "qa!").CombinedOutput()
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's vim ran the exrc (%s) the session wrote:\n%s\n%q", what, out, ran)
		}
		os.Remove(filepath.Join(proj, ".vimrc")) // vim reads the first it finds
	}
}

// TestReplayReview24GemfileLocal: Bundler evaluates the Gemfile as Ruby at
// every bundle exec, check and install, and many a Gemfile evaluates a
// developer's own beside it, which git ignores (rubocop's: local =
// File.expand_path("Gemfile.local", __dir__); eval_gemfile local if
// File.exist?(local)). The exit audit judged an ignored file by its mode,
// its #! and its extension, and .local is none: the session writes one.
// Host-side proof: git status says nothing, and the host's bundle check
// runs nothing the session wrote.
func TestReplayReview24GemfileLocal(t *testing.T) {
	harness.RequireTool(t, "bundle", "apt-get install ruby-bundler")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\nlocal = File.expand_path(\"Gemfile.local\", __dir__)\neval_gemfile local if File.exist?(local)\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/Gemfile.local\n/Gemfile.lock\n")
	harness.CommitAll(h, proj, "gems")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "local Gemfile", `printf 'File.write("`+marker+`", "")\n' > Gemfile.local`)
	h.RunsNothingPlanted(out, proj, nil, "bundle", "check")
}

// TestReplayReview24VirtualenvPrefix: a virtualenv is the prefix of the
// host's python there, whose tools read their configuration and data from
// it: IPython runs the exec_lines of etc/ipython/ipython_config.json,
// Jupyter starts a kernel by the argv of share/jupyter/kernels/*/kernel.json.
// The exit audit judged a virtualenv's bin/, its pyvenv.cfg and its
// site-packages, and an ignored file elsewhere by its mode, #! and
// extension, which .json is none of: the session writes IPython's.
// Host-side proof: git status says nothing, and the host's IPython in the
// virtualenv runs nothing the session wrote.
func TestReplayReview24VirtualenvPrefix(t *testing.T) {
	h := harness.NewHost(t)
	// The python of the test's own environment, which may have IPython
	// where the unprivileged user's has not: the host's user is whoever
	// runs IPython there.
	python, err := exec.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import IPython").Run() != nil {
		t.Skip("no python3 with IPython (pip install ipython)")
	}
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/.venv/\n")
	harness.CommitAll(h, proj, "ignore")
	if out, err := exec.Command(python, "-m", "venv", "--system-site-packages", filepath.Join(proj, ".venv")).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv: %v\n%s", err, out)
	}
	h.Chown()
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "IPython configuration", `
		mkdir -p .venv/etc/ipython
		printf '{"InteractiveShellApp": {"exec_lines": ["open(\\"`+marker+`\\", \\"w\\").close()"]}}\n' > .venv/etc/ipython/ipython_config.json`)
	ipython := exec.Command(filepath.Join(proj, ".venv", "bin", "python"), "-m", "IPython", "-c", "print(1)")
	ipython.Dir, ipython.Env = proj, append(os.Environ(), "IPYTHONDIR="+t.TempDir())
	ran, _ := ipython.CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's IPython ran the configuration the session wrote in the virtualenv:\n%s\n%s", out, ran)
	}
}

// TestReplayReview24PathGemspec: Bundler evaluates, as Ruby, the gemspec
// of each gem the Gemfile takes from a path (gem "tool", path:
// "vendor/tool"), at every bundle exec, check and install, and git
// ignores a vendored gem as often as not. The exit audit judged an
// ignored file by its mode, #! and extension, and .gemspec was none: the
// session rewrites the vendored gem's. Host-side proof: git status says
// nothing, and the host's bundle check runs nothing the session wrote.
func TestReplayReview24PathGemspec(t *testing.T) {
	harness.RequireTool(t, "bundle", "apt-get install ruby-bundler")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\ngem \"tool\", path: \"vendor/tool\"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/vendor/\n/Gemfile.lock\n")
	gemspec := "Gem::Specification.new do |s|\n  s.name = \"tool\"\n  s.version = \"0.1\"\n  s.summary = \"tool\"\n  s.authors = [\"t\"]\n  s.files = []\nend\n"
	h.Write(filepath.Join(proj, "vendor", "tool", "tool.gemspec"), gemspec)
	harness.CommitAll(h, proj, "gems")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "gemspec", `printf 'File.write("`+marker+`", "")\n' | cat - vendor/tool/tool.gemspec > /tmp/g && cat /tmp/g > vendor/tool/tool.gemspec`)
	h.RunsNothingPlanted(out, proj, nil, "bundle", "check")
}

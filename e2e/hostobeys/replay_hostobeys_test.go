package hostobeys

// The replay suite for what the host runs or obeys that lands in a writable
// mount, found from the host's side: the real files behind the home's
// dotfiles, the user's PATH, and git's own state outside the guard list.
// Each test runs the attack in the real sandbox as an unprivileged user,
// then runs the host's own command and checks that nothing planted ran.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// TestReplayHostObeysDotfiles: the user's dotfiles repository, stow-style:
// ~/.config/git, ~/.bashrc and ~/.claude/settings.json are symlinks into it.
// Started there, the sandbox writes their real targets through the project
// mount: an fsmonitor in the git config, a line in .bashrc, a hook in
// Claude's settings. Host-side proof: the host's git status in another
// repository and a new interactive bash run nothing, and the three files
// are byte-identical.
func TestReplayHostObeysDotfiles(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	gitConfig := filepath.Join(dots, "git", ".config", "git", "config")
	bashrc := filepath.Join(dots, "bash", ".bashrc")
	settings := filepath.Join(dots, "claude", ".claude", "settings.json")
	h.Write(gitConfig, "[user]\n\tname = alice\n")
	h.Write(bashrc, "# alice's bashrc\n")
	h.Write(settings, "{}\n")
	os.MkdirAll(filepath.Join(h.Home, ".config"), 0o755)
	os.MkdirAll(filepath.Join(h.Home, ".claude"), 0o755)
	for link, target := range map[string]string{
		filepath.Join(h.Home, ".config", "git"):           "../dotfiles/git/.config/git",
		filepath.Join(h.Home, ".bashrc"):                  "dotfiles/bash/.bashrc",
		filepath.Join(h.Home, ".claude", "settings.json"): "../dotfiles/claude/.claude/settings.json",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(h.Home, "code", "other")
	h.GitRepo(other)
	h.Chown()
	before := harness.Snapshots([]string{gitConfig, bashrc, settings})

	attack := `
		m=$1
		printf '[core]\n\tfsmonitor = touch %s\n' "$m" >> git/.config/git/config
		echo "touch $m" >> bash/.bashrc
		printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch %s"}]}]}}\n' "$m" > claude/.claude/settings.json
		echo attacked
	` + "\n"
	if out := h.Run(dots, nil, "claudebox", "--shell", "-c", attack, "attack", marker); !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	h.Run(other, nil, "git", "status", "--short")
	h.Run(h.Home, nil, "bash", "-ic", "true")
	if paths.Exists(marker) {
		t.Error("the host's git or a new shell ran what the sandbox wrote into the dotfiles")
	}
	harness.CompareSnapshots(t, before)
	harness.NoPlaceholders(t, dots)
}

// TestReplayHostObeysPath: a PATH entry inside the project, as direnv's
// PATH_add bin makes one, whether it exists or not. The sandbox drops a git
// in each. Host-side proof: the host's next git, with that PATH, runs the
// real git only.
func TestReplayHostObeysPath(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	proj := filepath.Join(h.Home, "code", "direnv")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "bin", "build"), "#!/bin/sh\necho build\n")
	os.Chmod(filepath.Join(proj, "bin", "build"), 0o755)
	path := "PATH=" + filepath.Join(proj, "bin") + ":" + filepath.Join(proj, "tools") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"

	attack := `
		m=$1
		for d in bin tools; do
			mkdir -p $d
			printf '#!/bin/sh\ntouch %s\nexec /usr/bin/git "$@"\n' "$m" > $d/git && chmod +x $d/git
		done
		echo attacked
	` + "\n"
	if out := h.Run(proj, []string{path}, "claudebox", "--shell", "-c", attack, "attack", marker); !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	h.Run(proj, []string{path}, "sh", "-c", "git status --short")
	if paths.Exists(marker) {
		t.Error("the host's git on its PATH ran what the sandbox wrote")
	}
	harness.NoPlaceholders(t, proj)

	// A relative entry follows the host's shell anywhere: no guard can
	// stand for it, so the launch says so.
	out, err := h.Command(proj, []string{"PATH=bin:" + h.Bin + ":/usr/bin:/bin"}, "claudebox", "--shell", "-c", "true").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `claudebox: not protected: your PATH: the relative entry "bin"`) {
		t.Errorf("no warning of a relative PATH entry (%v):\n%s", err, out)
	}
	out, _ = h.Command(proj, []string{"PATH=bin:" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}, "claudebox", "--check").CombinedOutput()
	if !strings.Contains(string(out), `your PATH: the relative entry "bin"`) {
		t.Errorf("--check does not warn of a relative PATH entry:\n%s", out)
	}
}

// TestReplayHostObeysSubmoduleGitDir: a submodule named in .gitmodules but
// not yet initialised. The sandbox creates .git/modules/<name> with a
// post-checkout hook and the submodule's URL as its origin. Host-side
// proof: the host's git submodule update --init (which adopts an existing
// git dir) runs no hook.
func TestReplayHostObeysSubmoduleGitDir(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	upstream := filepath.Join(h.Base, "upstream")
	h.GitRepo(upstream)
	super := filepath.Join(h.Base, "super")
	h.GitRepo(super)
	fileOK := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always"}
	h.Run(super, fileOK, "git", "submodule", "add", "-q", upstream, "sub")
	h.Run(super, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "sub")
	proj := filepath.Join(h.Home, "code", "fresh")
	h.Run(h.Base, nil, "git", "clone", "-q", super, proj)

	attack := `
		m=$1
		url=$(git config -f .gitmodules submodule.sub.url)
		git init -q --bare .git/modules/sub &&
		git -C .git/modules/sub config core.bare false &&
		git -C .git/modules/sub remote add origin "$url" &&
		printf '#!/bin/sh\ntouch %s\n' "$m" > .git/modules/sub/hooks/post-checkout &&
		chmod +x .git/modules/sub/hooks/post-checkout
		echo attacked
	` + "\n"
	if out := h.Run(proj, nil, "claudebox", "--shell", "-c", attack, "attack", marker); !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	harness.NoPlaceholders(t, proj)
	h.Run(proj, fileOK, "git", "submodule", "update", "--init", "-q")
	if paths.Exists(marker) {
		t.Error("the host's git submodule update ran a hook the sandbox planted")
	}
}

// TestReplayHostObeysRebaseTodo: the sandbox plants an interactive rebase
// in progress whose todo has an exec line, so that the host's git status
// says to run git rebase --continue. Host-side proof: after the session the
// host's git rebase --continue runs nothing planted; and a rebase in
// progress at launch stays as it was.
func TestReplayHostObeysRebaseTodo(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	proj := filepath.Join(h.Home, "code", "rebase")
	h.GitRepo(proj)

	attack := `
		m=$1
		mkdir -p .git/rebase-merge && cd .git/rebase-merge &&
		touch interactive && echo refs/heads/$(git symbolic-ref --short HEAD) > head-name &&
		git rev-parse HEAD > onto && git rev-parse HEAD > orig-head &&
		printf 'exec touch %s\n' "$m" > git-rebase-todo
		cd - >/dev/null
		git rebase -i HEAD 2>&1 | head -n 1
		echo attacked
	` + "\n"
	out := h.Run(proj, nil, "claudebox", "--shell", "-c", attack, "attack", marker)
	if !strings.Contains(out, "attacked") {
		t.Fatalf("the attack did not run: %s", out)
	}
	harness.NoPlaceholders(t, proj)
	for _, d := range []string{"rebase-merge", "rebase-apply", "sequencer"} {
		if paths.Exists(filepath.Join(proj, ".git", d)) {
			t.Errorf(".git/%s is left on the host after the session", d)
		}
	}
	h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "rebase", "--continue").Run()
	if paths.Exists(marker) {
		t.Fatal("the host's git rebase --continue ran the todo the sandbox planted")
	}

	// A rebase in progress at launch: its todo stays as it was.
	h.Write(filepath.Join(proj, "f"), "1\n")
	h.Run(proj, nil, "git", "add", "f")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "f")
	h.Run(proj, []string{"GIT_SEQUENCE_EDITOR=sed -i 1s/^pick/edit/"}, "git", "rebase", "-q", "-i", "HEAD~1")
	todo := filepath.Join(proj, ".git", "rebase-merge")
	before := harness.Snapshots([]string{todo})
	h.Run(proj, nil, "claudebox", "--shell", "-c", `printf 'exec touch %s\n' "$1" >> .git/rebase-merge/git-rebase-todo; echo attacked`+"\n", "attack", marker)
	harness.CompareSnapshots(t, before)
	h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "rebase", "--continue").Run()
	if paths.Exists(marker) {
		t.Error("the host's git rebase --continue ran what the sandbox added to a rebase in progress")
	}
}

// TestReplayHostObeysIOURing: io_uring is a second way into the kernel's
// file and network code, which other sandboxes close. Inside, its setup
// answers ENOSYS (as on a kernel without it), and node, whose libuv is told
// to use io_uring, falls back and reads files as before.
func TestReplayHostObeysIOURing(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "perl", "apt-get install perl")
	harness.RequireTool(t, "node", "apt-get install nodejs")
	proj := filepath.Join(h.Home, "code", "uring")
	h.Write(filepath.Join(proj, "f"), "content\n")
	out := h.Inside(proj, nil, `
		perl -e 'my $p = "\0" x 120; my $r = syscall(425, 4, $p); print "setup $r ", $!+0, "\n"'
		UV_USE_IO_URING=1 node -e 'require("fs").readFile("f", "utf8", (e, d) => console.log(e ? "node " + e : "node read " + d.trim()))'
	`)
	if !strings.Contains(out, "setup -1 38\n") {
		t.Errorf("io_uring_setup inside did not answer ENOSYS: %s", out)
	}
	if !strings.Contains(out, "node read content") {
		t.Errorf("node did not fall back from io_uring: %s", out)
	}
}

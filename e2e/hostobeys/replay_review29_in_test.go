package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview29InDotfileLinkInDotDirectory: the launch looks for the
// links that lead from the home's dotfiles into the project (stow and
// home-manager make them) only at the home's top and in a fixed list of
// its directories (~/.config, ~/.local/share, ~/.local/bin, ~/.ssh,
// ~/.claude). GNU stow links each file on its own where the directory
// exists already: ~/.bashrc.d/aliases.sh, linked into the dotfiles
// repository at ~/.dotfiles, was not found, so a session of that
// repository wrote the file, and the host's next bash ran what it added.
// The attack, from inside: append a command to it. Proof, on the host:
// the file is byte-identical, the host's interactive bash runs nothing
// planted; the repository's own link among its files does not refuse the
// launch.
func TestReplayReview29InDotfileLinkInDotDirectory(t *testing.T) {
	h := harness.NewHost(t)
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, ".dotfiles")
	h.GitRepo(dots)
	aliases := filepath.Join(dots, "bash", ".bashrc.d", "aliases.sh")
	h.Write(aliases, "alias ll='ls -l'\n")
	if err := os.Symlink("aliases.sh", filepath.Join(dots, "bash", ".bashrc.d", "shortcuts.sh")); err != nil {
		t.Fatal(err)
	}
	h.Run(dots, nil, "git", "add", ".")
	h.Run(dots, nil, "git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "bash")
	h.Write(filepath.Join(h.Home, ".bashrc"), "for f in ~/.bashrc.d/*.sh; do . \"$f\"; done\n")
	h.Write(filepath.Join(h.Home, ".bashrc.d", "local.sh"), "export EDITOR=vi\n")
	if err := os.Symlink("../.dotfiles/bash/.bashrc.d/aliases.sh", filepath.Join(h.Home, ".bashrc.d", "aliases.sh")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	before := harness.Snapshot(aliases)
	out, _ := h.Command(dots, nil, "claudebox", "--shell", "-c", `exec 2>&1; echo "touch $1" >> bash/.bashrc.d/aliases.sh && echo attacked; echo session ran`, "attack", marker).CombinedOutput()
	t.Logf("session: %s", out)
	if !strings.Contains(string(out), "session ran") {
		t.Fatalf("the session did not run: %s", out)
	}
	h.Command(h.Home, nil, "bash", "-ic", "true").Run()
	if paths.Exists(marker) {
		t.Error("the host's bash, through ~/.bashrc.d/aliases.sh linked into the dotfiles repository, ran what the sandbox wrote")
	}
	if after := harness.Snapshot(aliases); after != before {
		t.Errorf("the file behind ~/.bashrc.d/aliases.sh changed:\n%s\nwant:\n%s", after, before)
	}
}

// TestReplayReview29InVariableNamesToolSettings: the launch guards what
// the host obeys through a variable of the environment claudebox starts
// in, but only the variables of a list (XDG_CONFIG_HOME, BASH_ENV,
// EDITOR, …): INPUTRC (readline's macros type commands into the shell),
// PYTHONSTARTUP (run at every interactive python) and LESSOPEN (run at
// every less) naming files of the dotfiles repository left them writable
// in its sessions, tracked, so the exit audit moved nothing aside. The
// attack, from inside: append a command to each. Proof, on the host: each
// file is byte-identical, and the host's interactive python runs nothing
// planted.
func TestReplayReview29InVariableNamesToolSettings(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "python3", "apt-get install python3")
	marker := filepath.Join(h.Base, "marker")
	dots := filepath.Join(h.Home, "code", "dotfiles")
	h.GitRepo(dots)
	files := map[string]string{
		"inputrc":           "set editing-mode emacs\n",
		"python/startup.py": "import readline\n",
		"bin/lesspipe":      "#!/bin/sh\ncat \"$1\"\n",
	}
	for name, content := range files {
		h.Write(filepath.Join(dots, name), content)
	}
	os.Chmod(filepath.Join(dots, "bin", "lesspipe"), 0o755)
	h.Run(dots, nil, "git", "add", ".")
	h.Run(dots, nil, "git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "tools")
	vars := []string{
		"INPUTRC=" + filepath.Join(dots, "inputrc"),
		"PYTHONSTARTUP=" + filepath.Join(dots, "python", "startup.py"),
		"LESSOPEN=|" + filepath.Join(dots, "bin", "lesspipe") + " %s",
	}
	before := map[string]string{}
	for name := range files {
		before[name] = harness.Snapshot(filepath.Join(dots, name))
	}
	attack := `exec 2>&1
		echo '"\C-m": "\C-e; touch ` + marker + `\C-j"' >> inputrc && echo attacked inputrc
		echo 'open("` + marker + `", "w").close()' >> python/startup.py && echo attacked startup
		echo 'touch ` + marker + `' >> bin/lesspipe && echo attacked lesspipe
		echo session ran`
	out, _ := h.Command(dots, vars, "claudebox", "--shell", "-c", attack).CombinedOutput()
	t.Logf("session: %s", out)
	if !strings.Contains(string(out), "session ran") {
		t.Fatalf("the session did not run: %s", out)
	}
	py := h.Command(h.Home, vars, "python3", "-i")
	py.Stdin = strings.NewReader("")
	py.Run()
	if paths.Exists(marker) {
		t.Error("the host's interactive python ran what the sandbox wrote into the file PYTHONSTARTUP names")
	}
	for name := range files {
		if after := harness.Snapshot(filepath.Join(dots, name)); after != before[name] {
			t.Errorf("%s, which a variable of the host's names, changed:\n%s\nwant:\n%s", name, after, before[name])
		}
	}
}

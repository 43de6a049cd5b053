package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30AnyVariableNamingAFile: the launch guarded what the
// host obeys through a variable of the environment claudebox starts in
// only for the variables of a list (INPUTRC, PYTHONSTARTUP, …): the files
// of the dotfiles repository that NODE_OPTIONS' --require, RUBYOPT's -r
// and the directory HGRCPATH name were writable in its sessions (tracked,
// so the exit audit moved nothing aside), and the host's next node, ruby
// and hg ran what the session added. The attack, from inside: append a
// line to each file, add a configuration to the directory. Proof, on the
// host: the host's node, ruby and hg run nothing planted.
func TestReplayReview30AnyVariableNamingAFile(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "node", "apt-get install nodejs")
	harness.RequireTool(t, "ruby", "apt-get install ruby")
	harness.RequireTool(t, "hg", "apt-get install mercurial")
	marker := h.Marker()
	dots := filepath.Join(h.Home, "code", "dotfiles")
	h.GitRepo(dots)
	h.Write(filepath.Join(dots, "node", "preload.js"), "globalThis.started = Date.now()\n")
	h.Write(filepath.Join(dots, "ruby", "setup.rb"), "$started = Time.now\n")
	h.Write(filepath.Join(dots, "hg", "ui.rc"), "[ui]\nusername = alice\n")
	h.Run(dots, nil, "git", "add", ".")
	h.Run(dots, nil, "git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "tools")
	vars := []string{
		"NODE_OPTIONS=--require " + filepath.Join(dots, "node", "preload.js"),
		"RUBYOPT=-r" + filepath.Join(dots, "ruby", "setup.rb"),
		"HGRCPATH=" + filepath.Join(dots, "hg"),
	}
	attack := `exec 2>&1
		echo 'require("fs").writeFileSync("` + marker + `", "")' >> node/preload.js && echo attacked node
		echo 'File.write("` + marker + `", "")' >> ruby/setup.rb && echo attacked ruby
		printf '[hooks]\npre-status = touch ` + marker + `\n' > hg/zz.rc && echo attacked hg
		echo session ran`
	out, _ := h.Command(dots, vars, "claudebox", "--shell", "-c", attack).CombinedOutput()
	session := string(out)
	if !strings.Contains(session, "session ran") {
		t.Fatalf("the session did not run: %s", session)
	}
	h.RunsNothingPlanted(session, h.Home, vars, "node", "-e", "0")
	h.RunsNothingPlanted(session, h.Home, vars, "ruby", "-e", "0")
	repo := filepath.Join(h.Base, "hgrepo")
	os.MkdirAll(repo, 0o755)
	h.Chown()
	h.Run(repo, vars, "hg", "init")
	h.RunsNothingPlanted(session, repo, vars, "hg", "status")
}

// TestReplayReview30DeepDotfileLinkAndHomeBin: the launch looked for the
// links from the home into the project two levels into its
// dot-directories, and not in ~/bin unless claudebox's PATH held it
// (Debian's ~/.profile puts it on another shell's PATH): stow's link
// ~/.vim/after/plugin/go.vim (where after/plugin existed) and ~/bin/deploy,
// both into the dotfiles repository, left their targets writable in its
// sessions, and the host's next vim and deploy ran what the session
// added. The attack, from inside: append a command to each. Proof, on
// the host: vim (in a terminal, as the user opens it) and ~/bin/deploy
// run nothing planted.
func TestReplayReview30DeepDotfileLinkAndHomeBin(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "vim", "apt-get install vim")
	harness.RequireTool(t, "script", "apt-get install util-linux")
	marker := h.Marker()
	dots := filepath.Join(h.Home, "code", "dotfiles")
	h.GitRepo(dots)
	h.Write(filepath.Join(dots, "vim", "after", "plugin", "go.vim"), "set expandtab\n")
	h.Write(filepath.Join(dots, "bin", "deploy"), "#!/bin/sh\necho deployed\n")
	os.Chmod(filepath.Join(dots, "bin", "deploy"), 0o755)
	h.Run(dots, nil, "git", "add", ".")
	h.Run(dots, nil, "git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "tools")
	for link, target := range map[string]string{
		".vim/after/plugin/go.vim": "vim/after/plugin/go.vim",
		"bin/deploy":               "bin/deploy",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(h.Home, link)), 0o755)
		harness.Must(t, os.Symlink(filepath.Join(dots, target), filepath.Join(h.Home, link)))
	}
	h.Chown()
	attack := `exec 2>&1
		echo 'call writefile([], "` + marker + `")' >> vim/after/plugin/go.vim && echo attacked vim
		echo 'touch ` + marker + `' >> bin/deploy && echo attacked deploy
		echo session ran`
	out, _ := h.Command(dots, nil, "claudebox", "--shell", "-c", attack).CombinedOutput()
	session := string(out)
	if !strings.Contains(session, "session ran") {
		t.Fatalf("the session did not run: %s", session)
	}
	h.RunsNothingPlanted(session, h.Home, []string{"TERM=xterm"}, "script", "-qec", "vim -N -c qa", "/dev/null")
	h.RunsNothingPlanted(session, h.Home, nil, filepath.Join(h.Home, "bin", "deploy"))
}

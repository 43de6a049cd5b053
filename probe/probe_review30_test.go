package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A file in the project that any variable of the host's environment names,
// anywhere in its value, is obeyed, whether a list knows the variable or
// not; a directory such a variable names is not (PYTHONPATH=src is the
// project's code), nor a file the working directories or direnv's record
// name.
func TestProbeAnyVariableNamingAFile(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	files := []string{"x.js", "x.rb", "agent.jar", "args", "go.env", "starship.toml", "wgetrc", "ansible.cfg", "lib/Evil.pm", "src/app.py", ".envrc"}
	for _, f := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(proj, f)), 0o755)
		if err := os.WriteFile(filepath.Join(proj, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(f string) string { return filepath.Join(proj, f) }
	environ := []string{
		"NODE_OPTIONS=--max-old-space-size=4096 --require " + in("x.js"),
		"RUBYOPT=-r" + in("x.rb"),
		"JAVA_TOOL_OPTIONS=-javaagent:" + in("agent.jar") + "=opt",
		"JDK_JAVA_OPTIONS=@" + in("args"),
		"GOENV=~/code/app/go.env",
		"STARSHIP_CONFIG='" + in("starship.toml") + "'",
		"WGETRC=" + in("wgetrc"),
		"ANSIBLE_CONFIG=file://" + in("ansible.cfg"),
		"PERL5OPT=-I" + in("lib") + ",-MEvil",
		"PYTHONPATH=" + in("src") + ":/usr/lib/python3",
		"PWD=" + in("src/app.py"),
		"DIRENV_FILE=" + in(".envrc"),
		"LS_COLORS=di=01;34:*.tar=01;31",
	}
	obeyed, _ := probeHostObeyed(home, []string{proj}, env("HOME", home), environ)
	var paths []string
	for _, o := range obeyed {
		paths = append(paths, o.Path)
	}
	for _, f := range []string{"x.js", "x.rb", "agent.jar", "args", "go.env", "starship.toml", "wgetrc", "ansible.cfg"} {
		if !slices.Contains(paths, in(f)) {
			t.Errorf("%s, which a variable names, is not obeyed", f)
		}
	}
	for _, f := range []string{"lib", "src", "src/app.py", ".envrc"} {
		if slices.Contains(paths, in(f)) {
			t.Errorf("%s is obeyed", f)
		}
	}
}

// Links three and four levels into a dot-directory of the home (stow's
// ~/.vim/after/plugin/go.vim where after/plugin existed) and in ~/bin are
// followed; below the second level, a directory of more than dotDirFanOut
// subdirectories (a plugin manager's clones) is not entered.
func TestProbeDeepDotDirLinks(t *testing.T) {
	home := t.TempDir()
	dots := filepath.Join(home, "code", "dotfiles")
	for _, f := range []string{"go.vim", "x.vim", "deploy", "far.vim"} {
		os.MkdirAll(dots, 0o755)
		os.WriteFile(filepath.Join(dots, f), nil, 0o644)
	}
	for i := range dotDirFanOut + 1 {
		os.MkdirAll(filepath.Join(home, ".vim", "plugged", strconv.Itoa(i), "plugin"), 0o755)
	}
	links := map[string]string{
		".vim/after/plugin/go.vim":      "go.vim",
		".vim/pack/mine/start/x":        "x.vim",
		"bin/deploy":                    "deploy",
		".vim/plugged/0/plugin/far.vim": "far.vim",
	}
	for link, target := range links {
		os.MkdirAll(filepath.Dir(filepath.Join(home, link)), 0o755)
		if err := os.Symlink(filepath.Join(dots, target), filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	obeyed, _ := probeHostObeyed(home, []string{dots}, env("HOME", home), nil)
	var paths []string
	for _, o := range obeyed {
		paths = append(paths, o.Path)
	}
	for _, f := range []string{"go.vim", "x.vim", "deploy"} {
		if !slices.Contains(paths, filepath.Join(dots, f)) {
			t.Errorf("%s, which a link of the home's leads to, is not obeyed", f)
		}
	}
	if slices.Contains(paths, filepath.Join(dots, "far.vim")) {
		t.Errorf("a link below a directory of %d subdirectories was looked for", dotDirFanOut+1)
	}
}

package probe

import (
	"testing"

	"github.com/claudebox/claudebox/gitconfig"
)

// TestProgramPath: what the user's git configuration runs by a path in
// the home is what the host obeys, for every key git runs as a command
// (gitconfig.RunsCommand, which the guards of the work tree ask too): a
// difftool's or mergetool's command and core.gitProxy were left out of
// this look's own list, and a program of the dotfiles they named stayed
// writable inside. A value that is a word, or a key git runs nothing of,
// names none.
func TestProgramPath(t *testing.T) {
	home := "/home/u"
	for _, c := range []struct {
		key, value, want string
	}{
		{"difftool.meld.cmd", "~/dotfiles/bin/meld $LOCAL $REMOTE", "/home/u/dotfiles/bin/meld"},
		{"mergetool.kd.cmd", "/home/u/dotfiles/bin/kd", "/home/u/dotfiles/bin/kd"},
		{"core.gitproxy", "~/bin/proxy-for-git", "/home/u/bin/proxy-for-git"},
		{"alias.st", "!~/dotfiles/scripts/st", "/home/u/dotfiles/scripts/st"},
		{"init.templatedir", "~/.git-template", "/home/u/.git-template"},
		{"core.editor", "vim", ""},
		{"user.name", "/home/u/not-a-program", ""},
	} {
		if got := programPath(gitconfig.Entry{Key: c.key, Value: c.value}, home); got != c.want {
			t.Errorf("%s = %q: %q, want %q", c.key, c.value, got, c.want)
		}
	}
}

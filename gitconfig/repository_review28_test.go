package gitconfig

import (
	"strings"
	"testing"
)

// TestRepositoryCopyRemoteByURL: where a remote's name would do, git
// takes a URL too, and git push -u URL writes it into the branch's
// remote as typed: each is kept without its credentials, a name as it is.
func TestRepositoryCopyRemoteByURL(t *testing.T) {
	for _, c := range []struct{ name, config, want string }{
		{"a branch's remote", "[branch \"main\"]\n\tremote = https://x-access-token:SECRET@github.com/a/b.git\n", "branch.main.remote=https://github.com/a/b.git"},
		{"a branch's push remote", "[branch \"main\"]\n\tpushRemote = https://SECRET@host/a.git?t=SECRET\n", "branch.main.pushremote=https://host/a.git"},
		{"the push default", "[remote]\n\tpushDefault = https://u:SECRET@host/a.git\n", "remote.pushdefault=https://host/a.git"},
		{"an scp-like password", "[branch \"main\"]\n\tremote = git:SECRET@host:a/b.git\n", ""},
		{"a remote's name", "[branch \"main\"]\n\tremote = origin\n\tpushRemote = fork\n[remote]\n\tpushDefault = fork\n", "branch.main.remote=origin branch.main.pushremote=fork remote.pushdefault=fork"},
		{"the repository itself", "[branch \"main\"]\n\tremote = .\n", "branch.main.remote=."},
		{"a path", "[branch \"main\"]\n\tremote = /home/u/up.git\n", "branch.main.remote=/home/u/up.git"},
	} {
		got := RepositoryCopy([]byte(c.config))
		entries, err := Parse(got)
		if err != nil {
			t.Errorf("%s: git cannot read the copy: %v\n%s", c.name, err, got)
			continue
		}
		var list []string
		for _, e := range entries {
			list = append(list, e.Key+"="+e.Value)
		}
		if s := strings.Join(list, " "); s != c.want || strings.Contains(string(got), "SECRET") {
			t.Errorf("%s: the copy holds\n\t%s\nwant\n\t%s", c.name, got, c.want)
		}
	}
}

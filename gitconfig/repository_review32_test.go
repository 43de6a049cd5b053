package gitconfig

import (
	"strings"
	"testing"
)

// A registry's token as a segment of a remote's URL's path
// (https://host/TOKEN/repo.git) is a * in the copy; a path of words and
// versions, and a local file's, are kept as written.
func TestRepositoryCopyURLPathToken(t *testing.T) {
	for _, c := range []struct{ config, want string }{
		{"[remote \"origin\"]\n\turl = https://git.example.com/Zk3wQp9LmT2v/acme/app.git\n", `url = "https://git.example.com/*/acme/app.git"`},
		{"[submodule \"lib\"]\n\turl = https://git.example.com/Zk3wQp9LmT2v-lib\n", `url = "https://git.example.com/*"`},
		{"[remote \"origin\"]\n\tpushurl = https://u:pw@git.example.com/go/8f14e45fceea167a/x\n", `pushurl = "https://git.example.com/go/*/x"`},
		{"[remote \"origin\"]\n\turl = https://github.com/acme/tools-v2.git\n", `url = "https://github.com/acme/tools-v2.git"`},
		{"[remote \"up\"]\n\turl = file:///home/u/Zk3wQp9LmT2v/up.git\n", `url = "file:///home/u/Zk3wQp9LmT2v/up.git"`},
	} {
		got := string(RepositoryCopy([]byte(c.config)))
		if !strings.Contains(got, c.want) || strings.Contains(got, "Zk3wQp9LmT2v") && !strings.Contains(c.want, "Zk3wQp9LmT2v") || strings.Contains(got, "8f14e45fceea167a") {
			t.Errorf("%q: the copy holds\n%s\nwant %q", c.config, got, c.want)
		}
	}
}

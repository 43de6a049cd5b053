package bind

import (
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
)

// Each mount carries the role of what made it, split or not: the user's
// binds, claudebox's own mounts of the git configuration and of a
// toolchain, each piece of them.
func TestExpandBindsRoles(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, "notes/a", ".gitconfig", ".nvm/versions/node/v20/bin/node", ".nvm/versions/node/v20/lib/x", "cache/")
	project := instance.Project{Root: "/srv/p", Checkout: "/srv/p"}
	binds := []mount.BindSpec{{Src: home + "/notes", Dest: home + "/notes"}, {Src: home + "/cache", Dest: "/opt/cache", Writable: true}}
	own := []Own{
		{Src: home + "/.gitconfig", Dest: home + "/.gitconfig", Why: "git configuration, read-only", Role: mount.HostFiles},
		{Src: home + "/.nvm/versions/node/v20", Dest: home + "/.nvm/versions/node/v20", Why: "a toolchain", Role: mount.Tools},
	}
	// The bind of ~ is split around the secrets and the state it holds.
	user, ownMounts, _, _ := Layout(home, project, append(binds, mount.BindSpec{Src: home, Dest: "/opt/home"}), own, StateDirs(home, nil), Secrets(home), nil)
	for _, m := range user {
		if m.Role != mount.Requested {
			t.Errorf("the user's %s %s: role %v", m.Kind, m.Dest, m.Role)
		}
	}
	want := map[string]mount.Role{home + "/.gitconfig": mount.HostFiles, home + "/.nvm/versions/node/v20": mount.Tools}
	for _, m := range ownMounts {
		if r, ok := want[m.Dest]; !ok || m.Role != r {
			t.Errorf("own %s %s: role %v", m.Kind, m.Dest, m.Role)
		}
	}
	if len(ownMounts) != 2 || len(user) < 3 {
		t.Errorf("user %d, own %d mounts", len(user), len(ownMounts))
	}
}

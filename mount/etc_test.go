package mount

import (
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/untrusted"
)

// TestEtcShownOnly: the sandbox's /etc is empty but for the entries the
// probe found of EtcShown (a link made again as it is, a file it checked
// written as a copy, with no mount), read-only once
// every mount in it is made (the tools' copies among them, written into
// it as files where nothing is bound there, as each bind makes bwrap
// read the mount table again); --dry-run
// names the rest, and a copy shown in a directory it leaves out.
func TestEtcShownOnly(t *testing.T) {
	p := Build(Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p",
		Host: Host{
			System:     []HostPath{{Path: "/usr"}, {Path: Etc}},
			Etc:        []HostPath{{Path: "/etc/passwd"}, {Path: "/etc/localtime", Link: "/usr/share/zoneinfo/UTC"}, {Path: "/etc/hosts", Checked: untrusted.FileID{Dev: 1, Ino: 2}}},
			EtcLeftOut: []string{"fstab", "nix", "rancher"},
			Own:        []Mount{{Kind: RoBindData, Dest: "/etc/npmrc", Content: "x", Role: Tools}, {Kind: RoBindData, Dest: "/etc/nix/nix.conf", Content: "x", Role: Tools}},
			UsersOwn:   []HostEntry{{Path: "/etc/passwd"}},
		},
		Command: []string{"sh"},
	})
	var etc []string
	for _, m := range p.Mounts {
		if m.Dest == Etc || strings.HasPrefix(m.Dest, Etc+"/") {
			etc = append(etc, string(m.Kind)+" "+m.Src+" "+m.Dest)
		}
	}
	want := []string{
		"--tmpfs  /etc",
		"--ro-bind /etc/passwd /etc/passwd",
		"--symlink /usr/share/zoneinfo/UTC /etc/localtime",
		"--file /etc/hosts /etc/hosts",
		"--file  /etc/npmrc",
		"--file  /etc/nix/nix.conf",
		"--ro-bind-data  /etc/passwd",
		"--remount-ro  /etc",
	}
	if !slices.Equal(etc, want) {
		t.Errorf("/etc's mounts = %q, want %q", etc, want)
	}
	if s := p.Script("bwrap"); !strings.Contains(s, "# not shown, of /etc (not known harmless, nor read by the tools inside): fstab nix (but nix/nix.conf, a private copy) rancher\n") {
		t.Errorf("--dry-run does not name what of /etc is not shown:\n%s", s)
	}
}

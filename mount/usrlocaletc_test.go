package mount

import (
	"slices"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// TestBuildUsrLocalEtc: /usr/local/etc is an empty directory over /usr's
// bind, the tools' settings' copies written in it as files (no mount: each
// bind makes bwrap read the mount table again) and then read-only; where
// the host has none (or /usr is a link), nothing is mounted there.
func TestBuildUsrLocalEtc(t *testing.T) {
	npmrc := Mount{Kind: RoBindData, Dest: "/usr/local/etc/npmrc", Content: "registry=https://r/\n", Role: HostFiles}
	in := func(usrLocalEtc bool, usr HostPath) Inputs {
		return Inputs{
			Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Exe: "/usr/bin/claudebox", Command: []string{"sh"},
			Host: Host{System: []HostPath{usr}, UsrLocalEtc: usrLocalEtc, Own: []Mount{npmrc}},
		}
	}
	lines := mountLines(Build(in(true, HostPath{Path: "/usr"})))
	at := func(line string) int {
		i := slices.Index(lines, line)
		if i < 0 {
			t.Fatalf("no %q among the mounts:\n%q", line, lines)
		}
		return i
	}
	usr, hidden, copied, ro := at("--ro-bind /usr /usr"), at("--tmpfs  "+UsrLocalEtc), at("--file  /usr/local/etc/npmrc"), at("--remount-ro  "+UsrLocalEtc)
	if usr >= hidden || hidden >= copied || copied >= ro {
		t.Errorf("want /usr, then an empty /usr/local/etc, then npmrc's copy in it, then read-only: %d, %d, %d, %d", usr, hidden, copied, ro)
	}
	for _, c := range []Inputs{in(false, HostPath{Path: "/usr"}), in(true, HostPath{Path: "/usr", Link: "/nix/store/x"})} {
		for _, l := range mountLines(Build(c)) {
			if l == "--tmpfs  "+UsrLocalEtc || l == "--remount-ro  "+UsrLocalEtc {
				t.Errorf("%q where the host has no /usr/local/etc of its own", l)
			}
		}
	}
}

package gc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// Expected names computed by Claude Code's own function (run under node).
func TestClaudeProjectDir(t *testing.T) {
	long := "/very/" + strings.Repeat("long-directory-name/", 12) + "end"
	for path, want := range map[string]string{
		"/tmp/x1/proj":              "-tmp-x1-proj",
		"/home/al ice/code/it.s-ü😀": "-home-al-ice-code-it-s----",
		long:                        "-very" + strings.Repeat("-long-directory-name", 9) + "-long-directory-lo9ufh",
	} {
		if got := ClaudeProjectDir(path); got != want {
			t.Errorf("ClaudeProjectDir(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestUnmounted(t *testing.T) {
	m := Mounts{
		mounted:  []string{"/", "/home", "/mnt/data"},
		expected: []string{"/", "/home", "/srv/share", "/mnt/data"},
	}
	for root, want := range map[string]bool{
		"/home/alice/gone":       false, // its filesystem is mounted: gone
		"/srv/share/proj":        true,  // fstab share not mounted
		"/mnt/data/proj":         false, // mounted, so really gone
		"/mnt/usb/proj":          true,  // removable media, nothing mounted there
		"/media/alice/disk/proj": true,
		"/opt/proj":              false,
	} {
		if got := m.unmounted(root); got != want {
			t.Errorf("unmounted(%q) = %v, want %v", root, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/media/my\040disk`); got != "/media/my disk" {
		t.Errorf("unescape = %q", got)
	}
}

func TestReadMounts(t *testing.T) {
	dir := t.TempDir()
	mountinfo := filepath.Join(dir, "mountinfo")
	fstab := filepath.Join(dir, "fstab")
	must(t, os.WriteFile(mountinfo, []byte(strings.Join([]string{
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
		"35 22 0:30 / /media/my\\040disk rw - vfat /dev/sdb1 rw",
		"36 22 0:31 /sub /home/a\\011tab rw - tmpfs tmpfs rw",
		"37 22 0:32 / short",
		"",
	}, "\n")), 0o600))
	must(t, os.WriteFile(fstab, []byte(strings.Join([]string{
		"# <file system> <mount point> <type>",
		"UUID=1234 / ext4 defaults 0 1",
		"   # indented comment",
		"UUID=5678 none swap sw 0 0",
		"//nas/share /srv/my\\040share cifs noauto 0 0",
		"/dev/sdc1",
		"",
	}, "\n")), 0o600))
	got := ReadMounts(mountinfo, fstab)
	want := Mounts{
		mounted:  []string{"/", "/media/my disk", "/home/a\ttab"},
		expected: []string{"/", "/srv/my share"},
	}
	if !slices.Equal(got.mounted, want.mounted) || !slices.Equal(got.expected, want.expected) {
		t.Errorf("ReadMounts = %q, want %q", got, want)
	}
	if got := ReadMounts(filepath.Join(dir, "missing"), filepath.Join(dir, "missing")); got.mounted != nil || got.expected != nil {
		t.Errorf("missing files: %q", got)
	}
}

// TestRecordHolder: the mount point that held a root is recorded once, in
// claudebox's state; a root on / needs none, and an old record goes.
func TestRecordHolder(t *testing.T) {
	state := t.TempDir()
	root := "/home/al/mnt/enc/project"
	file := filepath.Join(state, "mounts", instance.Hash(root))
	m := Mounts{mounted: []string{"/", "/home", "/home/al/mnt/enc"}}
	must(t, RecordHolder(state, root, m))
	if b, err := os.ReadFile(file); err != nil || string(b) != "/home/al/mnt/enc\n" {
		t.Fatalf("record: %q, %v", b, err)
	}
	if m.holderAway(state, instance.Hash(root)) {
		t.Error("away while mounted")
	}
	fi, _ := os.Stat(file)
	must(t, RecordHolder(state, root, m))
	if fi2, _ := os.Stat(file); !os.SameFile(fi, fi2) {
		t.Error("an unchanged record was rewritten")
	}
	if !(Mounts{mounted: []string{"/", "/home"}}).holderAway(state, instance.Hash(root)) {
		t.Error("not away once unmounted")
	}
	must(t, RecordHolder(state, root, Mounts{mounted: []string{"/"}}))
	if _, err := os.Lstat(file); err == nil {
		t.Error("a root on / kept its record")
	}
	must(t, RecordHolder(state, root, Mounts{mounted: []string{"/"}}))
	// A record that is not an absolute path says nothing.
	must(t, os.WriteFile(file, []byte("relative\n"), 0o600))
	if (Mounts{}).holderAway(state, instance.Hash(root)) {
		t.Error("a relative record counts")
	}
}

// An instance whose project-root names another root, as an interrupted
// --move leaves it, is skipped with that root, for the hint to name.
func TestScanForeignRoot(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(ProjectsDir(state), instance.Hash("/old/app"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, instance.RootFile), []byte("/new/app\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	insts, skipped, _, err := Scan(state, Mounts{})
	want := Skipped{Dir: dir, Reason: "project-root names /new/app, whose instance is elsewhere", Cause: ForeignRoot, Root: "/new/app"}
	if err != nil || len(insts) != 0 || len(skipped) != 1 || skipped[0] != want {
		t.Errorf("Scan = %v, %+v, %v", insts, skipped, err)
	}
}

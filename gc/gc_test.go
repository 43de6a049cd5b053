package gc

import (
	"os"
	"path/filepath"
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
		Mounted:  []string{"/", "/home", "/mnt/data"},
		Expected: []string{"/", "/home", "/srv/share", "/mnt/data"},
	}
	for root, want := range map[string]bool{
		"/home/alice/gone":       false, // its filesystem is mounted: gone
		"/srv/share/proj":        true,  // fstab share not mounted
		"/mnt/data/proj":         false, // mounted, so really gone
		"/mnt/usb/proj":          true,  // removable media, nothing mounted there
		"/media/alice/disk/proj": true,
		"/opt/proj":              false,
	} {
		if got := m.Unmounted(root); got != want {
			t.Errorf("Unmounted(%q) = %v, want %v", root, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/media/my\040disk`); got != "/media/my disk" {
		t.Errorf("unescape = %q", got)
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

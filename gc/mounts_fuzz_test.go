package gc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mangle escapes a path as the kernel writes it in mountinfo (space, tab,
// newline and backslash as \ooo).
func mangle(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; strings.IndexByte(" \t\n\\", c) >= 0 {
			fmt.Fprintf(&b, "\\%03o", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzMountinfo: whatever the mount table holds, the reader returns one
// absolute path per line at most; and any mount point, as the kernel
// writes it, reads back as itself, between lines of other mounts.
func FuzzMountinfo(f *testing.F) {
	for _, s := range []string{"/mnt/my disk", "/media/a\\b", "/x\ty\nz", "/nb\u00a0sp", "/x\x85", "/", "/a/\\040"} {
		f.Add(s, []byte("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw\n"))
	}
	f.Fuzz(func(t *testing.T, mountPoint string, table []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "mountinfo")
		if err := os.WriteFile(path, table, 0o600); err != nil {
			t.Fatal(err)
		}
		got := fields(path, 4)
		if lines := strings.Count(string(table), "\n") + 1; len(got) > lines {
			t.Fatalf("%d mount points from %d lines", len(got), lines)
		}
		for _, p := range got {
			if !strings.HasPrefix(p, "/") {
				t.Fatalf("%q is not absolute", p)
			}
		}
		if !strings.HasPrefix(mountPoint, "/") || strings.IndexByte(mountPoint, 0) >= 0 {
			return
		}
		line := "36 35 98:0 / " + mangle(mountPoint) + " rw,noatime shared:1 - ext4 /dev/sda1 rw\n"
		other := "1 0 8:1 / /other rw - ext4 /dev/sda2 rw\n"
		if err := os.WriteFile(path, []byte(other+line+other), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, want := fields(path, 4), []string{"/other", mountPoint, "/other"}; !slices.Equal(got, want) {
			t.Fatalf("mount point %q reads as %q", mountPoint, got)
		}
	})
}

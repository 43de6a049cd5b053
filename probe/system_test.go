package probe

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/mount"
)

// TestUsersOwn: of a system directory, what not every user may read is
// listed, a directory not every user may enter whole and unwalked; what
// every user reads, links, and certificates alone (public) are not.
func TestUsersOwn(t *testing.T) {
	dir := t.TempDir()
	for rel, mode := range map[string]os.FileMode{
		"public.conf":         0o644,
		"service.conf":        0o640,
		"mine":                0o600,
		"sub/public":          0o644,
		"sub/group.key":       0o640,
		"private/site.key":    0o644,
		"listed/unreadable/x": 0o644,
		"corp-ca.pem":         0o640,
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "corp-ca.pem"), []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o640)
	os.Chmod(filepath.Join(dir, "private"), 0o710)
	os.Chmod(filepath.Join(dir, "listed"), 0o750)
	os.Symlink("service.conf", filepath.Join(dir, "link"))
	got := usersOwn(dir)
	want := []mount.HostEntry{
		{Path: filepath.Join(dir, "listed"), Dir: true},
		{Path: filepath.Join(dir, "mine")},
		{Path: filepath.Join(dir, "private"), Dir: true},
		{Path: filepath.Join(dir, "service.conf")},
		{Path: filepath.Join(dir, "sub", "group.key")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("usersOwn = %v, want %v", got, want)
	}
}

// BenchmarkUsersOwnEtc: what the walk of the host's /etc costs a launch.
func BenchmarkUsersOwnEtc(b *testing.B) {
	for b.Loop() {
		usersOwn("/etc")
	}
}

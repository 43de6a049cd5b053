package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/mount"
)

// TestUsersOwnManyEntries: a directory of more entries than one read of
// them holds (certificates', alternatives' hundreds) is listed whole: the
// files not every user may read among 3,000 that each may are all found,
// and no link.
func TestUsersOwnManyEntries(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	var want []mount.HostEntry
	for i := range 3000 {
		name := filepath.Join(dir, fmt.Sprintf("public-certificate-or-alternative-%04d.conf", i))
		mode := os.FileMode(0o644)
		if i%300 == 7 {
			mode = 0o600
			want = append(want, mount.HostEntry{Path: name})
		}
		if err := os.WriteFile(name, nil, mode); err != nil {
			t.Fatal(err)
		}
		if i%300 == 8 {
			os.Symlink(filepath.Join(dir, fmt.Sprintf("public-certificate-or-alternative-%04d.conf", i-1)), name+".link")
		}
	}
	if got := usersOwn(dir); !slices.Equal(got, want) {
		t.Errorf("usersOwn of 3,000 entries = %v, want %v", got, want)
	}
}

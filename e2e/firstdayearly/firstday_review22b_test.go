package firstdayearly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayReview22bWindowsPath: under WSL the PATH holds Windows'
// folders, whose names have spaces ("/mnt/c/Program Files (x86)/Authy
// Desktop/resources/app"), and the credential recogniser took "Authy
// Desktop/resources/app" for a key given to a name: the PATH did not pass,
// and inside the user's programs were not found at every session. The
// entries of a list of paths are names: the PATH passes whole.
func TestFirstDayReview22bWindowsPath(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	path := h.Bin + ":/usr/local/bin:/usr/bin:/bin:/mnt/c/Program Files (x86)/Authy Desktop/resources/app:/mnt/c/Program Files/Tokenizer Tools/binaries/x64"
	out := h.Inside(proj, []string{"PATH=" + path}, `echo "PATH=$PATH"`)
	if !strings.Contains(out, path+"\n") {
		t.Errorf("the PATH inside is not the user's %q:\n%s", path, out)
	}
}

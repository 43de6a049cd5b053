package probe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLibraryKinds: Perl's modules, Vim's, Emacs Lisp's, Tcl's and
// CMake's files and assembly are source code, judged as code is: one
// larger than a settings file of no credential is shown (as a kind not
// known, it was not), one with a password written in it is not.
func TestLibraryKinds(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	var big strings.Builder
	for i := 0; big.Len() < 20<<10; i++ {
		big.WriteString("sub f" + strconv.Itoa(i) + " { return " + strconv.Itoa(i) + "; } # set(x \"1\") au BufRead *.x setf x\n")
	}
	for name, content := range map[string]string{
		"Carp.pm": big.String(), "perlfunc.pod": big.String(), "filetype.vim": big.String(), "simple.el": big.String(),
		"init.tcl": big.String(), "FindBoost.cmake": big.String(), "gcm_amd64.s": big.String(),
		"Conf.pm":       "package Conf;\nour $db_password = 'hunter2x';\n1;\n",
		"secrets.vim":   "let g:db_password = \"hunter2x\"\n",
		"BigConf.pm":    big.String() + "my $api_password = \"hunter2x\";\n",
		"notes.unknown": big.String(),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		want := strings.Contains(content, "hunter2x") || name == "notes.unknown"
		if got := settingsHoldCredential(path); got != want {
			t.Errorf("settingsHoldCredential(%s) = %v, want %v", name, got, want)
		}
	}
}

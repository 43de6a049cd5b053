package probe

import (
	"os"
	"path/filepath"
	"slices"
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

// TestLibraryDirsAsPackages: a Ruby's lib/ruby below /usr/local is
// looked through as a package manager's packages are: the examples of a
// URL with a password in its uri/generic.rb are shown, a file named as
// credentials are kept and a gem's git directory are not; the same
// example elsewhere, and in Perl's lib/perl5, is still judged.
func TestLibraryDirsAsPackages(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	local := filepath.Join(dir, "local")
	example := "# URI('ftp://anonymous:hunter2x@ftp.example.com/pub')\nmodule URI\nend\n"
	for name, content := range map[string]string{
		"lib/ruby/3.3.0/uri/generic.rb":        example,
		"lib/perl5/site_perl/Local.rb":         example,
		"lib/ruby/3.3.0/.env":                  "TOKEN=x\n",
		"share/deploy/generic.rb":              example,
		"lib/ruby/gems/3.3.0/gems/x/.git/HEAD": "ref: refs/heads/main\n",
	} {
		path := filepath.Join(local, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, top := range []string{"lib", "share"} {
		for _, e := range installedFiles(filepath.Join(local, top)) {
			rel, _ := filepath.Rel(local, e.Path)
			got = append(got, rel)
		}
	}
	slices.Sort(got)
	if want := []string{"lib/perl5/site_perl/Local.rb", "lib/ruby/3.3.0/.env", "lib/ruby/gems/3.3.0/gems/x/.git", "share/deploy/generic.rb"}; !slices.Equal(got, want) {
		t.Errorf("installedFiles = %q, want %q", got, want)
	}
}

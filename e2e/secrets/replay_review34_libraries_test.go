package secrets

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34rUsrLocalLibraries: below /usr/local, a file of a
// kind the judges did not know was shown only as text of at most 16 KiB
// with no credential in it. Perl's modules, Vim's runtime, Tcl's library
// and CMake's modules are such kinds, and many of them are larger: a
// Perl, Vim, Tcl or CMake installed there (from source, with its default
// prefix /usr/local, or unpacked with a bin, whose directories are judged
// since 83e25bf) lost its own library inside (an empty file in its
// place: Perl's use of the module failed; of this machine's Perl 5.36,
// Vim 9.0 and CMake 3.25 so placed, 216 of 518 modules, 331 of 1,926
// runtime files, 69 of 974 modules). Now they are judged as source code
// is (2, 65, mostly the tutor's translations, and 2 left out). Proof: the libraries are whole
// inside and Perl loads its module; a module with a password written in
// it, small or large, is still not shown, and --dry-run names it.
func TestReplayReview34rUsrLocalLibraries(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	harness.RequireTool(t, "perl", "apt-get install perl")
	const secret = "R34libSecret"
	stage := filepath.Join(h.Base, "usr-local")
	large := func(line func(i int) string, last string) string {
		var b strings.Builder
		for i := 0; b.Len() < 20<<10; i++ {
			b.WriteString(line(i))
		}
		return b.String() + last
	}
	perl := filepath.Join(stage, "lib", "perl5", "site_perl", "Local")
	h.Write(filepath.Join(perl, "Big.pm"), "package Local::Big;\nuse strict;\n"+large(func(i int) string { return "sub f" + strconv.Itoa(i) + " { return " + strconv.Itoa(i) + "; }\n" }, "sub hello { return \"R34-PERL-\" . \"LOADED\"; }\n# R34-PERL-WHOLE\n1;\n"))
	h.Write(filepath.Join(perl, "Conf.pm"), "package Local::Conf;\nour $db_password = '"+secret+"Small';\n1;\n")
	h.Write(filepath.Join(perl, "BigConf.pm"), "package Local::BigConf;\n"+large(func(i int) string { return "sub g" + strconv.Itoa(i) + " { return " + strconv.Itoa(i) + "; }\n" }, "my $api_password = \""+secret+"Large\";\n1;\n"))
	h.Write(filepath.Join(stage, "share", "vim", "vim91", "filetype.vim"), large(func(i int) string {
		return "au BufNewFile,BufRead *.x" + strconv.Itoa(i) + " setf x" + strconv.Itoa(i) + "\n"
	}, "\" R34-VIM-WHOLE\n"))
	h.Write(filepath.Join(stage, "lib", "tcl8.6", "init.tcl"), large(func(i int) string { return "proc p" + strconv.Itoa(i) + " {} { return " + strconv.Itoa(i) + " }\n" }, "# R34-TCL-WHOLE\n"))
	h.Write(filepath.Join(stage, "cmake-3.30", "bin", "cmake"), "#!/bin/sh\necho R34-CMAKE-RUNS\n")
	h.Write(filepath.Join(stage, "cmake-3.30", "share", "cmake-3.30", "Modules", "FindBig.cmake"), large(func(i int) string { return "set(BIG_VAR_" + strconv.Itoa(i) + " \"" + strconv.Itoa(i) + "\")\n" }, "# R34-CMAKE-WHOLE\n"))
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/lib/perl5/site_perl/Local/Conf.pm",
		script: "exec 2>&1; grep -rao '" + secret + "[A-Za-z]*' /usr/local; grep -rah R34- /usr/local; perl -I/usr/local/lib/perl5/site_perl -MLocal::Big -e 'print Local::Big::hello(), qq(\\n)'; /usr/local/cmake-3.30/bin/cmake; true",
		where:  "in a Perl module below /usr/local",
		want:   []string{"R34-PERL-WHOLE", "R34-PERL-LOADED", "R34-VIM-WHOLE", "R34-TCL-WHOLE", "R34-CMAKE-WHOLE", "R34-CMAKE-RUNS"},
		hidden: []string{"/usr/local/lib/perl5/site_perl/Local/Conf.pm", "/usr/local/lib/perl5/site_perl/Local/BigConf.pm"},
	}.check(t, h)
}

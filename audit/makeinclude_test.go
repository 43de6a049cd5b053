package audit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanMakeIncludes: what a makefile includes (by name, by a
// $(wildcard) pattern, after a variable, by a variable it sets, through
// an included makefile, from the top makefile's directory or its own)
// that the session made or changed and git does not track is found; an
// included file the session left as it was, or one it changed that git
// tracks, is not, nor a recipe's or a comment's words; a makefile naming
// one by a reference the audit cannot expand is reported.
func TestScanMakeIncludes(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte("CONF ?= site.conf\n-include $(CONF)\n-include config.mak\nsinclude $(wildcard build/*.dep)\ninclude sub/rules.mk tracked.mak # and\nall:\n\tinclude recipe.mak\n# include comment.mak\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "sub", "rules.mk"), []byte("include $(top)/auto.conf\ninclude kept.conf\n-include top.conf\n"), 0o644))
	write(t, filepath.Join(root, "sub", "kept.conf"))
	write(t, filepath.Join(root, "tracked.mak"))
	for _, args := range [][]string{{"init", "-q"}, {"add", "tracked.mak"}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	made := []string{"config.mak", "build/a.dep", "sub/auto.conf", "site.conf", "top.conf"}
	for _, rel := range append(slices.Clone(made), "recipe.mak", "comment.mak", "tracked.mak", "build/a.other") {
		write(t, filepath.Join(root, rel))
	}
	r := Scan(root, since, nil, start, nil)
	var want []string
	for _, rel := range made {
		want = append(want, filepath.Join(root, rel))
	}
	slices.Sort(want)
	if !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
	// $(top)/auto.conf names a file the audit can only guess at.
	if want := []string{filepath.Join(root, "sub", "rules.mk")}; !slices.Equal(r.IncludesUnspelled, want) {
		t.Errorf("makefiles with includes not spelled: %q, want %q", r.IncludesUnspelled, want)
	}
}

// TestIncludePatternsBounded: a variable tripled at each line, or more
// variables than the audit keeps, leave the makefile not read whole, in
// bounded work; a makefile's few variables are expanded.
func TestIncludePatternsBounded(t *testing.T) {
	left := makeExpanded
	words, _, whole, _ := includePatterns("D = build\nF := $(D)/local.mk\ninclude $(F) ${D}/x.mk\n", nil, &left)
	if !whole || !slices.Equal(words, []string{"build/local.mk", "build/x.mk"}) {
		t.Errorf("got %q, whole %v", words, whole)
	}
	tripled := "A = abcdefgh\n" + strings.Repeat("A += $(A) $(A)\n", 40) + "include $(A)\n"
	var many strings.Builder
	for i := range maxVars + 1 {
		fmt.Fprintf(&many, "V%d = x\n", i)
	}
	for _, makefile := range []string{tripled, many.String()} {
		left := makeExpanded
		if _, _, whole, _ := includePatterns(makefile, nil, &left); whole {
			t.Errorf("read whole: %.60q", makefile)
		}
	}
}

// TestIncludePatternsContinued: an include line that ends in a backslash
// goes on with the next, as make reads it; so do a comment's and a
// recipe's, whose words include nothing, and an escaped backslash ends
// its line.
func TestIncludePatternsContinued(t *testing.T) {
	left := makeExpanded
	makefile := "-include a.mk \\\n\tevil.mk\n# a note \\\ninclude noted.mk\nall:\n\techo \\\ninclude recipe.mk\ninclude b.mk\\\\\ninclude c.mk\r\n"
	words, _, whole, _ := includePatterns(makefile, nil, &left)
	if want := []string{"a.mk", "evil.mk", "b.mk\\\\", "c.mk"}; !whole || !slices.Equal(words, want) {
		t.Errorf("got %q (whole %v), want %q", words, whole, want)
	}
}

// TestScanLargeMakefile: a makefile larger than the audit reads is named
// as not examined, not passed over.
func TestScanLargeMakefile(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte("-include local.conf\n"+strings.Repeat("# padding\n", maxMakefileSize/10+1)), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	write(t, filepath.Join(root, "local.conf"))
	r := Scan(root, since, nil, start, nil)
	if !slices.ContainsFunc(r.NotExamined, func(s string) bool { return strings.HasPrefix(s, filepath.Join(root, "Makefile")+": ") }) {
		t.Errorf("not examined: %q, want the Makefile", r.NotExamined)
	}
}

// TestIncludeDirsUnspelled: make searches the directories -I and
// --include-dir name for an included file it does not find where it
// runs, and a makefile passes them to its sub-makes (MAKEFLAGS += -Iconf,
// $(MAKE) -I conf): an include there is by a path the audit cannot spell.
// A compiler's -I is not make's.
func TestIncludeDirsUnspelled(t *testing.T) {
	for makefile, want := range map[string]bool{
		"MAKEFLAGS += -Iconf\nall:\n\t$(MAKE) -f build.mk\n":              true,
		"MAKEFLAGS += --include-dir=$(CURDIR)\n":                          true,
		"all:\n\t${MAKE} -I conf -C sub\n":                                true,
		"all:\n\tmake --include-dir conf\n":                               true,
		"CFLAGS += -Iinclude\nall:\n\t$(CC) -Iinclude -o x x.c\n":         false,
		"MAKEFLAGS += -rR\n-include config.mak\nall:\n\t$(MAKE) -C sub\n": false,
	} {
		left := makeExpanded
		if _, _, _, got := includePatterns(makefile, nil, &left); got != want {
			t.Errorf("%q: unspelled %v, want %v", makefile, got, want)
		}
	}
}

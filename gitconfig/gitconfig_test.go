package gitconfig

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// spellings are git's legal ways to set core.hooksPath, each with the value
// git reads, and the seeds of the fuzzer.
var spellings = []struct{ name, text, want string }{
	{"plain", "[core]\n\thooksPath = x\n", "x"},
	{"one line", "[core] hooksPath = x\n", "x"},
	{"section case", "[Core]\nhooksPath = x\n", "x"},
	{"key case", "[core]\nHOOKSPATH = x\n", "x"},
	{"no spaces", "[core]hookspath=x", "x"},
	{"quoted", "[core]\nhooksPath = \"x y\"\n", "x y"},
	{"quoted part", "[core]\nhooksPath = \"x\"/y\n", "x/y"},
	{"escapes", "[core]\nhooksPath = \"a\\\\b\\\"c\\td\"\n", "a\\b\"c\td"},
	{"continuation", "[core]\nhooksPath = a\\\nb\n", "ab"},
	{"continued name line", "[core]\nhooksPath = \\\nx\n", "x"},
	{"hash comment", "[core]\nhooksPath = x # not y\n", "x"},
	{"semicolon comment", "[core]\nhooksPath = x;y\n", "x"},
	{"quoted comment chars", "[core]\nhooksPath = \"x;#y\"\n", "x;#y"},
	{"trailing spaces", "[core]\nhooksPath = x   \t\n", "x"},
	{"inner spaces", "[core]\nhooksPath = x \t y\n", "x   y"}, // a space for each
	{"deprecated subsection", "[core]\n[core.sub]\nhooksPath = no\n[core]\nhooksPath = x\n", "x"},
	{"CRLF", "[core]\r\nhooksPath = x\r\n", "x"},
	{"BOM", "\xef\xbb\xbf[core]\nhooksPath = x\n", "x"},
	{"last wins", "[core]\nhooksPath = a\n[core]\nhooksPath = x\n", "x"},
	{"header comment", "[core] ; c\n# c\nhooksPath = x\n", "x"},
	{"two headers", "[alias] [core] hooksPath = x", "x"},
	{"NUL in subsection", "[core \"hookspath\x00\"]\nx = y\n[core]\nhooksPath = x\n", "x"},
}

func TestSpellings(t *testing.T) {
	for _, s := range spellings {
		entries, _, ok := parse([]byte(s.text))
		if got := Last(entries, "core.hookspath"); !ok || got != s.want {
			t.Errorf("%s: %q reads as %q (ok %v), want %q", s.name, s.text, got, ok, s.want)
		}
	}
}

// Files git refuses: the same are errors here. (A variable before any
// section is not one: git lists it with no section.)
var refused = []string{
	"[core]\nhooksPath = \"x\n",   // unterminated quote
	"[core]\nhooksPath = \\x\n",   // unknown escape
	"[core]\nhooksPath # c\n",     // a name then neither = nor the end
	"[core\nhooksPath = x\n",      // unterminated header
	"[core \"x]\nhooksPath = x\n", // unterminated subsection
	"[core x]\n",                  // subsection without quotes
	"[]\n",                        // empty section
	"[co_re]\n",                   // not a key character
	"[core]\n1x = y\n",            // a name starts with a letter
	"\xef\xbbx\n",                 // part of a byte order mark
	"[core]\nhooks\rPath = x\n",   // a carriage return inside a name
	"[core \"a\" ]\n",             // space before ]
}

// edges are inputs whose reading is easy to get wrong; TestAgainstGit
// holds parse to git's on each.
var edges = []string{
	"[core]\nx = a\x00b\n",         // C code sees the value up to the NUL
	"[ \"sub\"]\nx = y\n",          // an empty section before a subsection
	"[a.B \"C\"]\nx\n",             // deprecated and new syntax at once
	"[a \"b\\\"c\\d\"]\nx = y\n",   // escapes in a subsection
	"[core]\nx = \"a\nb\"\n",       // a newline inside quotes
	"[core]\nx = a\\\r\nb\n",       // a continuation before CRLF
	"\xef\xbb\xbf",                 // a byte order mark alone
	"[core]\nx=\\",                 // a backslash at the end
	"[core]\n\tx\t=\t\"\"\t\n",     // an empty quoted value
	"[core]\nx = a\x80\xff\n",      // bytes above ASCII
	"[core]\n\xc3\xa9 = y\n",       // a non-ASCII name
	"[core \"\"]\nhooksPath = x\n", // an empty subsection: core..hookspath, not core.hookspath
}

func TestRefused(t *testing.T) {
	for _, text := range refused {
		if _, _, ok := parse([]byte(text)); ok {
			t.Errorf("%q parsed", text)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	if e, err := Read(filepath.Join(dir, "missing")); err != nil || e != nil {
		t.Errorf("missing file: %v, %v", e, err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("[core]\n\n hooksPath = \"x\n"), 0o644)
	if _, err := Read(bad); err == nil || err.Error() != "bad config line 3 in file "+bad {
		t.Errorf("bad file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(fifo); err == nil {
		t.Error("a FIFO was read")
	}
}

func TestIncludes(t *testing.T) {
	entries, _, _ := parse([]byte("[include]\npath = a\n[includeIf \"gitdir:~/x/\"]\npath = b\n[includeif]\npath = no\n[include]\npath\n"))
	if got := Includes(entries); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Includes = %q", got)
	}
}

// gitList runs the real git on text: whether it accepts the file, and the
// entries it lists. ok is false when git is missing.
func gitList(t testing.TB, text []byte) (entries []Entry, line int, accepted, ok bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, 0, false, false
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(git, "config", "--file", file, "--no-includes", "--list", "-z")
	cmd.Dir = dir
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES=" + dir, "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		exit, exited := err.(*exec.ExitError)
		if !exited {
			t.Fatal(err)
		}
		if m := badLine.FindSubmatch(exit.Stderr); m != nil {
			line, _ = strconv.Atoi(string(m[1]))
		}
		return nil, line, false, true
	}
	for _, rec := range bytes.SplitAfter(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		k, v, hasValue := strings.Cut(strings.TrimSuffix(string(rec), "\x00"), "\n")
		entries = append(entries, Entry{Key: k, Value: v, NoValue: !hasValue})
	}
	return entries, 0, true, true
}

var badLine = regexp.MustCompile(`bad config line (\d+) in file`)

// compare requires parse to decide as git does and list what git lists.
func compare(t testing.TB, text []byte) {
	want, wantLine, accepted, ok := gitList(t, text)
	if !ok {
		t.Skip("git is not installed")
	}
	got, line, parsed := parse(text)
	if parsed != accepted {
		t.Fatalf("%q: git accepts it: %v, parse: %v", text, accepted, parsed)
	}
	if !parsed && line != wantLine {
		t.Fatalf("%q: git refuses line %d, parse line %d", text, wantLine, line)
	}
	if parsed && !slices.Equal(got, want) {
		t.Fatalf("%q:\n git lists %+v\nparse lists %+v", text, want, got)
	}
}

func TestAgainstGit(t *testing.T) {
	for _, s := range spellings {
		compare(t, []byte(s.text))
	}
	for _, text := range append(refused, edges...) {
		compare(t, []byte(text))
	}
}

func FuzzGitConfig(f *testing.F) {
	for _, s := range spellings {
		f.Add([]byte(s.text))
	}
	for _, text := range append(refused, edges...) {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		compare(t, text)
	})
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README and docs/ name tests as the proof of what they say; these
// tests keep that true to the tree: the links lead somewhere, the tests
// named exist, and CI runs the command the pages give.

var docPages = []string{"README.md", "docs/guide.md", "docs/security.md", "docs/design.md", "docs/performance.md", "docs/development.md"}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// anchor is GitHub's id for a heading: lower case, letters, digits, '-'
// and '_' kept, spaces turned into '-', everything else dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the ids of a page's headings, outside code blocks.
func anchors(page string) map[string]bool {
	ids := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if !inCode && strings.HasPrefix(line, "#") {
			ids[anchor(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	return ids
}

// Every relative link and #anchor in the pages leads to a file and a
// heading that exist.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range docPages {
		text := readDoc(t, page)
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://") {
				continue
			}
			file, id, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s: %v", page, target, err)
				continue
			}
			if id != "" && !anchors(readDoc(t, dest))[id] {
				t.Errorf("%s links to %s: %s has no heading with that id", page, target, dest)
			}
		}
	}
}

// Every test, fuzz target, benchmark, script and test file the pages name
// as proof exists.
func TestDocsNameRealTests(t *testing.T) {
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	var defined []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, "_test.go") {
			if err == nil && d.IsDir() && (d.Name() == "vendor" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range funcs.FindAllStringSubmatch(string(b), -1) {
			defined = append(defined, m[1])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(prefix string, exact bool) bool {
		for _, name := range defined {
			if name == prefix || !exact && strings.HasPrefix(name, prefix) {
				return true
			}
		}
		return false
	}
	named := regexp.MustCompile(`\b((?:Test|Fuzz)[A-Z]\w*)(\*?)`)
	bench := regexp.MustCompile("-bench ([A-Za-z]+)")
	script := regexp.MustCompile("`(\\w+\\.txtar)`")
	testFile := regexp.MustCompile("`([\\w/]+_test\\.go)`")
	for _, page := range docPages {
		text := readDoc(t, page)
		for _, m := range named.FindAllStringSubmatch(text, -1) {
			if !exists(m[1], m[2] == "") {
				t.Errorf("%s names %s%s, which no test file defines", page, m[1], m[2])
			}
		}
		for _, m := range bench.FindAllStringSubmatch(text, -1) {
			found := false
			for _, name := range defined {
				found = found || strings.HasPrefix(name, "Benchmark") && strings.Contains(name, m[1])
			}
			if !found {
				t.Errorf("%s names -bench %s, which matches no benchmark", page, m[1])
			}
		}
		for _, m := range script.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join("testdata", "script", m[1])); err != nil {
				t.Errorf("%s names the script %s: %v", page, m[1], err)
			}
		}
		for _, m := range testFile.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(m[1]); err != nil {
				t.Errorf("%s names %s: %v", page, m[1], err)
			}
		}
	}
}

// Every `go test` command the pages give names a package that holds what
// it runs: a command still naming a package its tests moved out of would
// run nothing and say ok.
func TestDocsCommandsNameTheirPackage(t *testing.T) {
	command := regexp.MustCompile("`go test ([^`]*)`")
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	kinds := map[string]string{"-run": "Test", "-bench": "Benchmark", "-fuzz": "Fuzz"}
	for _, page := range docPages {
		for _, m := range command.FindAllStringSubmatch(readDoc(t, page), -1) {
			args := strings.Fields(m[1])
			pkg := "."
			for _, a := range args {
				if strings.HasPrefix(a, "./") {
					pkg = a
				}
			}
			if strings.HasSuffix(pkg, "/...") {
				continue
			}
			files, _ := filepath.Glob(filepath.Join(pkg, "*_test.go"))
			var defined []string
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range funcs.FindAllStringSubmatch(string(b), -1) {
					defined = append(defined, d[1])
				}
			}
			if len(defined) == 0 {
				t.Errorf("%s gives `go test %s`, but %s holds no tests", page, m[1], pkg)
				continue
			}
			for i, a := range args[:len(args)-1] {
				prefix, ok := kinds[a]
				pattern := strings.Trim(args[i+1], "'")
				if !ok || pattern == "^$" {
					continue
				}
				re, err := regexp.Compile(strings.Split(pattern, "/")[0])
				if err != nil {
					t.Errorf("%s gives `go test %s`: %v", page, m[1], err)
					continue
				}
				found := false
				for _, name := range defined {
					found = found || strings.HasPrefix(name, prefix) && re.MatchString(name)
				}
				if !found {
					t.Errorf("%s gives `go test %s`, but %s defines no %s matching %s", page, m[1], pkg, prefix, pattern)
				}
			}
		}
	}
}

// The README's test command is the one CI runs: `bash .ci/run`, which ends
// with the command docs/development.md gives.
func TestDocsTestCommand(t *testing.T) {
	if !strings.Contains(readDoc(t, "README.md"), "```sh\nbash .ci/run\n```") {
		t.Error("the README does not give `bash .ci/run` as the test command")
	}
	const command = "go test ./..."
	if !strings.Contains(readDoc(t, "docs/development.md"), "```sh\n"+command+"\n```") {
		t.Errorf("docs/development.md does not give %q as the test command", command)
	}
	lines := strings.Split(strings.TrimSpace(readDoc(t, ".ci/run")), "\n")
	if last := lines[len(lines)-1]; last != command {
		t.Errorf(".ci/run ends with %q, not the test command %q", last, command)
	}
}

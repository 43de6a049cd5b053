package probe

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/claudebox/claudebox/paths"
)

// importDepth is how many imports deep Claude Code follows a CLAUDE.md's
// (2.1.330: 5).
const importDepth = 5

var (
	// importPattern and importStart are Claude Code's own (2.1.330): an @
	// at a word's start, the path up to a space not escaped ("\ "), which
	// starts ./, ~/ or / or with a letter, digit, '.', '_' or '-'.
	importPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`) })
	importStart   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9._-]`) })
	// codeSpan and htmlComment are the text outside a fenced block Claude
	// Code does not look for imports in.
	codeSpan    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]*`") })
	htmlComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<!--.*?-->`) })
)

// claudeMDImports are the files the user's own CLAUDE.md (~/.claude's)
// and rules (~/.claude/rules' Markdown files) import, and what they import
// in turn, as Claude Code follows them, named for the setup to show. A file where the sandbox can write is not
// read: what it imports is its writer's choice, not the user's.
func claudeMDImports(claudeDir string, writable []string, read func(string) []byte, expand func(string) string) []namedPath {
	home := filepath.Dir(claudeDir)
	var named []namedPath
	seen := map[string]bool{}
	var follow func(file string, text []byte, depth int)
	follow = func(file string, text []byte, depth int) {
		for _, p := range importPaths(text) {
			if p = expand(p); !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(file), p)
			}
			p = filepath.Clean(p)
			if seen[p] {
				continue
			}
			seen[p] = true
			named = append(named, namedPath{path: p, what: "an import of " + tildePath(file, home)})
			if depth+1 >= importDepth {
				continue
			}
			if real, err := filepath.EvalSymlinks(p); err == nil && !paths.UnderAny(real, writable) {
				follow(p, read(p), depth+1)
			}
		}
	}
	for _, file := range append([]string{filepath.Join(claudeDir, "CLAUDE.md")}, rulesFiles(filepath.Join(claudeDir, "rules"))...) {
		follow(file, read(file), 0)
	}
	return named
}

// rulesMax bounds how many of the user's rules files are read for their
// imports.
const rulesMax = 1000

// rulesFiles are the Markdown files in the user's rules directory and
// below it, as Claude Code loads them, a linked directory not entered.
func rulesFiles(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case len(files) == rulesMax:
			return filepath.SkipAll
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".md"):
			files = append(files, path)
		}
		return nil
	})
	return files
}

// importPaths are the paths a CLAUDE.md's text imports, as written, but
// for a fragment (#…) and a space's escape: none in a fenced code block,
// a code span or an HTML comment.
func importPaths(text []byte) []string {
	var out []string
	var fence string
	var prose bytes.Buffer
	for line := range bytes.Lines(text) {
		trimmed := strings.TrimLeft(string(line), " ")
		if len(string(line))-len(trimmed) < 4 {
			for _, f := range []string{"```", "~~~"} {
				if strings.HasPrefix(trimmed, f) && (fence == "" || fence == f) {
					if fence == "" {
						fence = f
					} else {
						fence = ""
					}
					line = nil
					break
				}
			}
		}
		if fence == "" {
			prose.Write(line)
		}
	}
	plain := htmlComment().ReplaceAll(codeSpan().ReplaceAll(prose.Bytes(), nil), nil)
	for _, m := range importPattern().FindAllSubmatch(plain, -1) {
		p, _, _ := strings.Cut(string(m[1]), "#")
		p = strings.ReplaceAll(p, `\ `, " ")
		switch {
		case p == "" || p == "/":
		case strings.HasPrefix(p, "./"), strings.HasPrefix(p, "~/"), strings.HasPrefix(p, "/"), importStart().MatchString(p):
			out = append(out, p)
		}
	}
	return out
}

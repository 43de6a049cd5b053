package probe

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
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
	return memoryImports(append([]string{filepath.Join(claudeDir, "CLAUDE.md")}, rulesFiles(filepath.Join(claudeDir, "rules"))...), filepath.Dir(claudeDir), writable, read, expand)
}

// memoryImports are the files the memory files import, and what they
// import in turn, as Claude Code follows them.
func memoryImports(files []string, home string, writable []string, read func(string) []byte, expand func(string) string) []namedPath {
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
	for _, file := range files {
		follow(file, read(file), 0)
	}
	return named
}

// aboveProject are the memory files Claude Code reads in each folder
// above the checkout, up to the root (2.1.330: CLAUDE.md, CLAUDE.local.md,
// .claude/CLAUDE.md and .claude/rules' Markdown files; the home's .claude
// is the user's own, read as such), named for the setup to show: the
// user's, as ~/.claude's are (~/code/CLAUDE.md, for every project there).
// None at or below a folder a sandbox writes: the project's root (a
// worktree's checkout inside it), another project's (a folder with an
// instance, where a repository nests in another), any other git working
// tree (a linked worktree has no instance of its own, yet its project's
// sandboxes write it), a writable bind; what those import would be a
// sandbox's choice.
func aboveProject(project instance.Project, home, stateDir string, writable []string) []namedPath {
	var dirs []string
	for dir := filepath.Dir(project.Checkout); dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if paths.Within(dirs[i], project.Root) || paths.UnderAny(dirs[i], writable) || paths.Exists(instance.Dir(stateDir, dirs[i])) || gitWorkingTree(dirs[i]) {
			dirs = dirs[i+1:]
			break
		}
	}
	var named []namedPath
	for _, dir := range dirs {
		files := []string{filepath.Join(dir, "CLAUDE.md"), filepath.Join(dir, "CLAUDE.local.md")}
		if dir != home {
			files = append(files, filepath.Join(dir, ".claude", "CLAUDE.md"))
			files = append(files, rulesFiles(filepath.Join(dir, ".claude", "rules"))...)
		}
		for _, f := range files {
			named = append(named, namedPath{path: f, what: "Claude Code's memory above the project"})
		}
	}
	return named
}

// gitWorkingTree says whether dir holds a .git entry of any kind (a
// repository's, a linked worktree's or a submodule's file, a link).
func gitWorkingTree(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// projectImportsRead bounds what the project's memory files and their
// imports inside it cost a launch to read: the sandbox writes them.
const (
	projectImportsRead  = 50
	projectImportsLimit = 1 << 20
	projectImportsNamed = 10
)

// projectImports are the files outside the checkout that the project's
// memory (its CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md) imports,
// directly or through its own files, as Claude Code follows them, at
// most projectImportsNamed. The sandbox writes these files, so what they
// import is never shown for them (it would read any file it names); the
// launch names them, so that a user whose claude on the host reads
// ~/notes.md for the project is told why Claude inside does not. Read
// beneath the checkout, no link followed; nothing outside it is looked at.
func projectImports(checkout string, expand func(string) string) []string {
	var outside []string
	seen := map[string]bool{}
	read := 0
	var follow func(rel string, depth int)
	follow = func(rel string, depth int) {
		if read == projectImportsRead || len(outside) == projectImportsNamed {
			return
		}
		read++
		text, err := untrusted.ReadFile(checkout, rel, projectImportsLimit)
		if err != nil {
			return
		}
		for _, p := range importPaths(text) {
			if p = expand(p); !filepath.IsAbs(p) {
				p = filepath.Join(checkout, filepath.Dir(rel), p)
			}
			p = filepath.Clean(p)
			if seen[p] || len(outside) == projectImportsNamed {
				continue
			}
			seen[p] = true
			switch inside, err := filepath.Rel(checkout, p); {
			case err != nil || !filepath.IsLocal(inside):
				outside = append(outside, p)
			case depth+1 < importDepth:
				follow(inside, depth+1)
			}
		}
	}
	for _, f := range []string{"CLAUDE.md", "CLAUDE.local.md", filepath.Join(".claude", "CLAUDE.md")} {
		follow(f, 0)
	}
	return outside
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

package audit

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// A makefile includes what it names (include, -include, sinclude) and
// make runs what the included file says, at every make: often a file git
// ignores, by any name (git's own -include config.mak, the kernel's
// include/config/auto.conf), which no extension tells. So what each of
// the project's makefiles includes, by a name or a $(wildcard) pattern
// the audit can read, is judged as a makefile's part: one the session
// made or changed that git does not track is a finding.

// maxMakefiles bounds the makefiles whose includes are read in one audit
// (included ones among them).
const maxMakefiles = 1000

// makeReads says whether name is a makefile make reads by its name, or
// one a makefile commonly includes (*.mk): those whose includes are
// read.
func makeReads(name string) bool {
	return name == "GNUmakefile" || name == "makefile" || name == "Makefile" || strings.HasSuffix(name, ".mk")
}

// makeIncluded judges what the makefiles at rels (relative to the root)
// include, and what those include in turn.
func (w *walker) makeIncluded(rels []string) {
	read := map[string]bool{}
	for i := 0; i < len(rels) && len(read) < maxMakefiles; i++ {
		rel := rels[i]
		if read[rel] {
			continue
		}
		read[rel] = true
		b, err := untrusted.ReadFile(w.root, rel, 1<<20)
		if err != nil {
			continue
		}
		for _, pattern := range includePatterns(string(b)) {
			// make resolves them from where it runs: the makefile's
			// directory, most often.
			for _, inc := range w.globLocal(filepath.Join(filepath.Dir(rel), pattern)) {
				fi, err := untrusted.Lstat(w.root, inc)
				if err != nil || fi.IsDir() {
					continue
				}
				if !w.older(fi) && !w.tracked(inc) {
					w.found(inc)
				}
				if len(rels) < maxMakefiles {
					rels = append(rels, inc)
				}
			}
		}
	}
}

// includePatterns are the paths and patterns a makefile's include lines
// name: a word with a variable is taken for what follows the variable
// ($(objtree)/include/config/auto.conf, the tree's top most often);
// $(wildcard …)'s words are patterns.
func includePatterns(makefile string) []string {
	var out []string
	for line := range strings.Lines(makefile) {
		if strings.HasPrefix(line, "\t") {
			continue // a recipe's
		}
		line, _, _ = strings.Cut(strings.TrimSpace(line), "#")
		directive, rest, ok := strings.Cut(line, " ")
		if !ok {
			directive, rest, ok = strings.Cut(line, "\t")
		}
		if !ok || directive != "include" && directive != "-include" && directive != "sinclude" {
			continue
		}
		rest = strings.ReplaceAll(rest, "$(wildcard ", "")
		rest = strings.ReplaceAll(rest, "${wildcard ", "")
		for _, word := range strings.Fields(rest) {
			if !strings.Contains(word, "$") {
				word = strings.TrimRight(word, ")}") // $(wildcard …)'s end
			} else if i := strings.LastIndexAny(word, ")}"); i >= 0 {
				word = strings.TrimPrefix(word[i+1:], "/")
			}
			if word != "" && !strings.Contains(word, "$") {
				out = append(out, word)
			}
		}
	}
	return out
}

// globLocal are the paths below the root (relative to it) that pattern,
// relative to the root, matches, each part matched as make's wildcard
// does; none out of the root, none through a symlink.
func (w *walker) globLocal(pattern string) []string {
	if !filepath.IsLocal(pattern) || len(pattern) > MaxPathLen {
		return nil
	}
	matches := []string{"."}
	for _, part := range strings.Split(pattern, "/") {
		var next []string
		for _, dir := range matches {
			if !strings.ContainsAny(part, "*?[") {
				next = append(next, filepath.Join(dir, part))
				continue
			}
			entries, err := untrusted.ReadDir(w.root, dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if globMatch(part, e.Name()) {
					next = append(next, filepath.Join(dir, e.Name()))
				}
			}
		}
		matches = next
		if len(matches) > maxMakefiles {
			matches = matches[:maxMakefiles]
		}
	}
	return matches
}

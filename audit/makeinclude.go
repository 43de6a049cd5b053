package audit

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"slices"
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

// maxMakefileSize bounds a makefile read: a generated one (automake's)
// may pass a megabyte.
const maxMakefileSize = 8 << 20

// makeWork bounds the words of include lines and the directory entries
// their patterns are matched against that one audit reads, and
// maxIncludes the files they name that it judges: a makefile of 1 MiB
// names 87,000 words (include d/* on each line, beside 5,000 files in d,
// held the audit for hours). Past either bound the makefile is said not
// examined. A kernel tree's includes cost a few thousand of each.
const (
	makeWork    = 1_000_000
	maxIncludes = 10_000
)

// makeReads says whether name is a makefile make reads by its name, or
// one a makefile commonly includes (*.mk): those whose includes are
// read.
func makeReads(name string) bool {
	return name == "GNUmakefile" || name == "makefile" || name == "Makefile" || strings.HasSuffix(name, ".mk")
}

// makefile is one whose includes are read: where it is, the directory
// make runs in when it reads it (the including makefile's, through every
// include), and the variables set before it.
type makefile struct {
	rel, dir string
	vars     map[string]string
}

// makeIncluded judges what the makefiles at rels (relative to the root)
// include, and what those include in turn, each file judged once.
func (w *walker) makeIncluded(rels []string) {
	queue := make([]makefile, 0, len(rels))
	for _, rel := range rels {
		queue = append(queue, makefile{rel: rel, dir: filepath.Dir(rel)})
	}
	read := map[[2]string]bool{}
	// isFile, of each file judged: whether it is one (not a directory).
	isFile := map[string]bool{}
	left, expanded := makeWork, makeExpanded
	spent := func(rel string) {
		w.notExamined(w.abs(rel), fmt.Sprintf("all it includes: the audit reads %d words and directory entries of the makefiles' includes, and judges %d files they include, at most", makeWork, maxIncludes))
	}
	for i := 0; i < len(queue) && len(read) < maxMakefiles; i++ {
		m := queue[i]
		if read[[2]string{m.rel, m.dir}] {
			continue
		}
		read[[2]string{m.rel, m.dir}] = true
		b, err := untrusted.ReadFile(w.root, m.rel, maxMakefileSize)
		if errors.Is(err, untrusted.ErrTooLarge) {
			w.notExamined(w.abs(m.rel), fmt.Sprintf("all it includes: the audit reads makefiles of %d MiB at most", maxMakefileSize>>20))
		}
		if err != nil {
			continue
		}
		patterns, vars, whole, unspelled := includePatterns(string(b), maps.Clone(m.vars), &expanded)
		if unspelled {
			w.includesUnspelled(m.rel)
		}
		if !whole {
			w.notExamined(w.abs(m.rel), fmt.Sprintf("all it includes: the audit expands %d variables of %d KiB and %d MiB in all at most", maxVars, maxValue>>10, makeExpanded>>20))
			if expanded < 0 {
				return
			}
		}
		cut := false
		for _, pattern := range patterns {
			// make resolves them from where it runs: the top makefile's
			// directory; the included file's own, where it is run with
			// -C there.
			dirs := []string{m.dir}
			if d := filepath.Dir(m.rel); d != m.dir {
				dirs = append(dirs, d)
			}
			for _, dir := range dirs {
				left--
				incs, whole := w.globLocal(filepath.Join(dir, pattern), &left)
				if left -= len(incs); left < 0 {
					spent(m.rel)
					return
				}
				cut = cut || !whole
				for _, inc := range incs {
					file, judged := isFile[inc]
					if !judged {
						if len(isFile) == maxIncludes {
							spent(m.rel)
							return
						}
						fi, err := untrusted.Lstat(w.root, inc)
						file = err == nil && !fi.IsDir()
						isFile[inc] = file
						if file && !w.older(fi) && !w.tracked(inc) {
							w.found(inc)
						}
					}
					if file && len(queue) < 4*maxMakefiles {
						queue = append(queue, makefile{rel: inc, dir: m.dir, vars: vars})
					}
				}
			}
		}
		if cut {
			w.notExamined(w.abs(m.rel), fmt.Sprintf("all it includes: a pattern of its include lines matches more than %d files", maxMakefiles))
		}
	}
}

// maxExpansions bounds the rounds in which a word's variables are
// replaced by their values.
const maxExpansions = 8

// maxValue bounds a variable's value and an include line, expanded;
// maxVars the variables known at once; makeExpanded the bytes one audit
// expands: 16 lines of A += $(A) $(A) tripled A at each, and held the
// audit 47 s at 4.8 GiB, and a makefile's thousands of variables, each
// replaced in every line in turn, cost the square of their number. Past
// any, the makefile is not read whole.
const (
	maxValue     = 64 << 10
	maxVars      = 2000
	makeExpanded = 64 << 20
)

// includePatterns are the paths and patterns a makefile's include lines
// name, with vars (nil for none) and the variables the makefile sets
// (NAME = value, :=, ?=, +=) replaced by their values; a word still with
// a variable is taken for what follows it ($(objtree)/include/config/auto.conf,
// the tree's top most often); $(wildcard …)'s words are patterns. It
// returns the variables as set at the makefile's end, whether it read
// the makefile whole, within maxValue, maxVars, makeWork words and the
// bytes left to expand (taken from left), and whether an include word
// kept a reference it could not expand (a function's, a substitution's,
// the environment's, $(shell …)'s), whose file it cannot spell, or a
// line gave make directories to include from (makeIncludeDirs).
func includePatterns(makefile string, vars map[string]string, left *int) (patterns []string, _ map[string]string, whole, unspelled bool) {
	if vars == nil {
		vars = map[string]string{}
	}
	whole = true
	// expand replaces each $(NAME) and ${NAME} of vars in s, false where
	// that passes maxValue or what is left.
	expand := func(s string) (string, bool) {
		for range maxExpansions {
			if !strings.Contains(s, "$") {
				break
			}
			var b strings.Builder
			changed := false
			for rest := s; rest != ""; {
				if b.Len() > maxValue {
					return "", false
				}
				i := strings.IndexByte(rest, '$')
				if i < 0 {
					b.WriteString(rest)
					break
				}
				b.WriteString(rest[:i])
				rest = rest[i:]
				end := -1
				switch {
				case strings.HasPrefix(rest, "$("):
					end = strings.IndexByte(rest, ')')
				case strings.HasPrefix(rest, "${"):
					end = strings.IndexByte(rest, '}')
				}
				value, ok := "", false
				if end > 0 {
					value, ok = vars[rest[2:end]]
				}
				if !ok {
					b.WriteByte('$')
					rest = rest[1:]
					continue
				}
				b.WriteString(value)
				rest = rest[end+1:]
				changed = true
			}
			if *left -= b.Len(); b.Len() > maxValue || *left < 0 {
				return "", false
			}
			s = b.String()
			if !changed {
				break
			}
		}
		return s, true
	}
	set := func(name, value string) {
		if _, known := vars[name]; len(value) > maxValue || !known && len(vars) >= maxVars {
			delete(vars, name)
			whole = false
			return
		}
		vars[name] = value
	}
	for line := range logicalLines(makefile) {
		unspelled = unspelled || makeIncludeDirs(line)
		if strings.HasPrefix(line, "\t") {
			continue // a recipe's
		}
		line, _, _ = strings.Cut(strings.TrimSpace(line), "#")
		if name, op, value, ok := makeAssignment(line); ok {
			value, ok := expand(value)
			_, known := vars[name]
			switch {
			case !ok:
				delete(vars, name)
				whole = false
			case strings.Contains(value, "$"):
				delete(vars, name)
			case op == "?=":
				if !known {
					set(name, value)
				}
			case op == "+=" && vars[name] != "":
				set(name, vars[name]+" "+value)
			default:
				set(name, value)
			}
			continue
		}
		directive, rest, ok := strings.Cut(line, " ")
		if !ok {
			directive, rest, ok = strings.Cut(line, "\t")
		}
		if !ok || directive != "include" && directive != "-include" && directive != "sinclude" {
			continue
		}
		rest = strings.ReplaceAll(rest, "$(wildcard ", "")
		rest = strings.ReplaceAll(rest, "${wildcard ", "")
		rest, ok = expand(rest)
		if !ok {
			whole = false
			continue
		}
		for _, word := range strings.Fields(rest) {
			unspelled = unspelled || strings.Contains(word, "$")
			if !strings.Contains(word, "$") {
				word = strings.TrimRight(word, ")}") // $(wildcard …)'s end
			} else if i := strings.LastIndexAny(word, ")}"); i >= 0 {
				word = strings.TrimPrefix(word[i+1:], "/")
			}
			if word == "" || strings.Contains(word, "$") {
				continue
			}
			if len(patterns) == makeWork {
				return patterns, vars, false, unspelled
			}
			patterns = append(patterns, word)
		}
	}
	return patterns, vars, whole, unspelled
}

// makeIncludeDirs says whether line gives make directories to look for
// what a makefile includes in (-I, --include-dir) where it sets MAKEFLAGS
// or runs make: the sub-makes include from there what they do not find
// where they run (MAKEFLAGS += -Iconf, then -include config.local reads
// conf/config.local), by a path the audit cannot spell. A compiler's -I
// is not make's.
func makeIncludeDirs(line string) bool {
	fields := strings.Fields(line)
	runsMake := strings.Contains(line, "MAKEFLAGS") || strings.Contains(line, "$(MAKE)") || strings.Contains(line, "${MAKE}") ||
		slices.ContainsFunc(fields, func(f string) bool { return f == "make" || strings.HasSuffix(f, "/make") })
	if !runsMake {
		return false
	}
	for _, f := range fields {
		if _, flag, ok := strings.Cut(f, "="); ok && strings.HasPrefix(f, "MAKEFLAGS") {
			f = flag // MAKEFLAGS+=-Iconf
		}
		if strings.HasPrefix(f, "-I") || strings.HasPrefix(f, "--include-dir") {
			return true
		}
	}
	return false
}

// makeAssignment reads line as a variable's assignment (override and
// export before it): its name, its operator (=, ?= or +=, the forms of
// := as =) and its value; not a shell assignment (!=).
func makeAssignment(line string) (name, op, value string, ok bool) {
	line = strings.TrimPrefix(strings.TrimPrefix(line, "override "), "export ")
	before, value, ok := strings.Cut(line, "=")
	if !ok {
		return "", "", "", false
	}
	name, op = strings.TrimRight(before, "?+:!"), "="
	switch strings.TrimSpace(before[len(name):]) {
	case "", ":", "::", ":::":
	case "?":
		op = "?="
	case "+":
		op = "+="
	default:
		return "", "", "", false
	}
	name = strings.TrimSpace(name)
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
		return "", "", "", false
	}
	return name, op, strings.TrimSpace(value), true
}

// globLocal are the paths below the root (relative to it) that pattern,
// relative to the root, matches, each part matched as make's wildcard
// does; none out of the root, none through a symlink. whole is false
// where a part matched more than maxMakefiles. It takes from left one for
// each directory entry it reads, and stops where left is spent, leaving
// it below zero.
func (w *walker) globLocal(pattern string, left *int) (matches []string, whole bool) {
	if !filepath.IsLocal(pattern) || len(pattern) > MaxPathLen {
		return nil, true
	}
	matches, whole = []string{"."}, true
	for _, part := range strings.Split(pattern, "/") {
		var next []string
		for _, dir := range matches {
			if len(next) > maxMakefiles {
				break
			}
			if !strings.ContainsAny(part, "*?[") {
				next = append(next, filepath.Join(dir, part))
				continue
			}
			d, err := untrusted.OpenDir(w.root, dir)
			if err != nil {
				continue
			}
			for len(next) <= maxMakefiles {
				if *left <= 0 {
					d.Close()
					*left = -1
					return nil, false
				}
				entries, err := d.ReadDir(64)
				*left -= len(entries)
				for _, e := range entries {
					if globMatch(part, e.Name()) {
						next = append(next, filepath.Join(dir, e.Name()))
					}
				}
				if err != nil {
					break
				}
			}
			d.Close()
		}
		matches = next
		if len(matches) > maxMakefiles {
			matches, whole = matches[:maxMakefiles], false
		}
	}
	return matches, whole
}

// logicalLines are makefile's lines as make reads them: one ending in a
// backslash goes on with the next (-include a.mk \, then evil.mk on a
// line of its own), a comment's and a recipe's too.
func logicalLines(makefile string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var joined strings.Builder
		for line := range strings.Lines(makefile) {
			line = strings.TrimRight(line, "\r\n")
			if body, ok := strings.CutSuffix(line, "\\"); ok && continued(line) {
				joined.WriteString(body)
				joined.WriteByte(' ')
				continue
			}
			joined.WriteString(line)
			if !yield(joined.String()) {
				return
			}
			joined.Reset()
		}
		if joined.Len() > 0 {
			yield(joined.String())
		}
	}
}

// continued says whether line ends in an odd number of backslashes: an
// even number ends in an escaped backslash.
func continued(line string) bool {
	n := len(line) - len(strings.TrimRight(line, "\\"))
	return n%2 == 1
}

package audit

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/claudebox/claudebox/untrusted"
)

// Bundler evaluates the Gemfile (gems.rb) as Ruby at every bundle exec,
// check and install, and many a Gemfile evaluates a developer's own
// beside it, which git ignores, by any name (rubocop's: local =
// File.expand_path("Gemfile.local", __dir__); eval_gemfile local if
// File.exist?(local)). So what each Gemfile names by a string literal,
// from its directory, is judged as what an .envrc names: one the session
// made or changed that git does not track is a finding.

// gemfiles are the names Bundler reads a Gemfile by.
var gemfiles = map[string]bool{"Gemfile": true, "gems.rb": true}

// rubyGemfile says name is a Gemfile's by its name, which a Gemfile may
// evaluate by a pattern, from where git ignores it (Redmine's evaluates
// each plugin's, plugins/*/{Gemfile,PluginGemfile}; Appraisal's
// gemfiles/*.gemfile; a Gemfile.local), not its lock.
func rubyGemfile(name string) bool {
	return gemfiles[name] || strings.Contains(name, "Gemfile") && !strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".gemfile")
}

// gemfileNamed judges what the Gemfiles at the root, and those the walk
// found below it, name.
func (w *walker) gemfileNamed() {
	for _, rel := range w.atMost(append([]string{"Gemfile", "gems.rb"}, w.gemfiles...), maxEnvrcs+2, "what it names: the audit reads %d Gemfiles at most") {
		b, err := untrusted.ReadFile(w.root, rel, maxMakefileSize)
		if err != nil {
			continue
		}
		names, whole := rubyStrings(string(b))
		if evalsUnspelled(string(b)) {
			w.includesUnspelled(rel)
		}
		if !whole {
			w.notExamined(w.abs(rel), fmt.Sprintf("all it names: the audit looks up %d of its strings at most", maxEnvrcNames))
		}
		w.judgeNamed(filepath.Dir(rel), names)
	}
}

// rubyStrings are the string literals of Ruby source that may name a
// file, each once, within maxEnvrcNames: an interpolated one by what
// follows its last interpolation ("#{__dir__}/Gemfile.local"); whether
// every one was taken.
func rubyStrings(src string) (names []string, whole bool) {
	seen := map[string]bool{}
	for line := range strings.Lines(src) {
		for i := 0; i < len(line); i++ {
			q := line[i]
			if q == '#' {
				break // a comment
			}
			if q != '\'' && q != '"' {
				continue
			}
			end := strings.IndexByte(line[i+1:], q)
			if end < 0 {
				break
			}
			s := line[i+1 : i+1+end]
			i += end + 1
			if k := strings.LastIndexByte(s, '}'); q == '"' && k >= 0 && strings.Contains(s, "#{") {
				s = strings.TrimLeft(s[k+1:], "/")
			}
			if s == "" || strings.ContainsAny(s, "\\#*?[\n") {
				continue
			}
			name := filepath.Clean(s)
			if seen[name] {
				continue
			}
			if len(names) == maxEnvrcNames {
				return names, false
			}
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, true
}

// rubyEvals are what a Gemfile evaluates or loads a file by.
var rubyEvals = []string{"eval_gemfile", "instance_eval", "eval", "load", "require_relative"}

// evalsUnspelled says whether a Gemfile evaluates or loads a file by an
// expression that is not one string literal (which rubyStrings judges):
// a path it joins (File.join(__dir__, "plugins", "*", "deps")), a
// pattern's matches, a block's parameter. A variable assigned one
// literal (local = File.expand_path("Gemfile.local", __dir__)) is one.
func evalsUnspelled(src string) bool {
	assigned := map[string]string{}
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if name, expr, ok := strings.Cut(line, "="); ok && rubyIdentifier(strings.TrimSpace(name)) && !strings.HasPrefix(expr, "=") && !strings.HasPrefix(expr, "~") {
			assigned[strings.TrimSpace(name)] = expr
			continue
		}
		for _, call := range rubyEvals {
			for rest := line; ; {
				i := strings.Index(rest, call)
				if i < 0 {
					break
				}
				before, after := rest[:i], rest[i+len(call):]
				rest = after
				if before != "" && rubyIdentifierRune(rune(before[len(before)-1])) || after != "" && rubyIdentifierRune(rune(after[0])) {
					continue // part of another name
				}
				arg := strings.TrimLeft(after, " (")
				for _, modifier := range []string{" if ", " unless ", " do", " {", ";"} {
					if end := strings.Index(arg, modifier); end >= 0 {
						arg = arg[:end]
					}
				}
				if expr, ok := assigned[strings.TrimRight(strings.TrimSpace(arg), ")")]; ok {
					arg = expr
				}
				if !oneLiteral(arg) {
					return true
				}
			}
		}
	}
	return false
}

// oneLiteral says whether a Ruby expression names a file by one string
// literal, with no pattern, no interpolation but the file's directory, and
// nothing joined to it.
func oneLiteral(expr string) bool {
	expr = strings.TrimSpace(expr)
	for _, dir := range []string{"#{__dir__}", "#{File.dirname(__FILE__)}", "#{__FILE__}/.."} {
		expr = strings.ReplaceAll(expr, dir, "")
	}
	literals := 0
	for i := 0; i < len(expr); i++ {
		q := expr[i]
		if q != '"' && q != '\'' {
			continue
		}
		end := strings.IndexByte(expr[i+1:], q)
		if end < 0 {
			return false
		}
		if strings.ContainsAny(expr[i+1:i+1+end], "*?[{#") {
			return false
		}
		literals++
		i += end + 1
	}
	return literals == 1 && !strings.Contains(expr, "+") && !strings.Contains(expr, "join") && !strings.Contains(expr, "glob") && !strings.Contains(expr, "Dir[") && !strings.Contains(expr, "ENV")
}

// rubyIdentifier says whether s is a local variable's name.
func rubyIdentifier(s string) bool {
	return s != "" && !unicode.IsDigit(rune(s[0])) && strings.IndexFunc(s, func(r rune) bool { return !rubyIdentifierRune(r) }) < 0
}

func rubyIdentifierRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

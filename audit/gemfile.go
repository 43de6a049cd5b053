package audit

import (
	"fmt"
	"path/filepath"
	"strings"

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
	files := append([]string{"Gemfile", "gems.rb"}, w.gemfiles...)
	if len(files) > maxEnvrcs+2 {
		for _, rel := range files[maxEnvrcs+2:] {
			w.notExamined(w.abs(rel), fmt.Sprintf("what it names: the audit reads %d Gemfiles at most", maxEnvrcs+2))
		}
		files = files[:maxEnvrcs+2]
	}
	for _, rel := range files {
		b, err := untrusted.ReadFile(w.root, rel, maxMakefileSize)
		if err != nil {
			continue
		}
		names, whole := rubyStrings(string(b))
		if !whole {
			w.notExamined(w.abs(rel), fmt.Sprintf("all it names: the audit looks up %d of its strings at most", maxEnvrcNames))
		}
		w.judgeNamed(rel, names)
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

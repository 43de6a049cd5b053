package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// direnv runs the nearest .envrc above the shell's directory once it is
// allowed (the top's, or a package's in a monorepo), and asks again when
// the .envrc changes, never for what it sources or loads
// (source_env_if_exists config/local, dotenv secrets.env, from the
// .envrc's directory), often a file git ignores, by any name. So what
// each .envrc names there is judged as what a makefile includes: one the
// session made or changed that git does not track is a finding; a name
// the audit cannot spell ($PWD/…, a pattern, a loop's) makes the .envrc
// one whose includes are unspelled (see Report.IncludesUnspelled).

// maxEnvrcs bounds the .envrc files below the top read in one audit.
const maxEnvrcs = 1000

// envrcSources are direnv's commands that run or load the file they name,
// the shells run on a file, which they read as source does, and eval,
// which runs what its words make ("$(cat config/local)", unspelled).
var envrcSources = map[string]bool{
	"source_env": true, "source_env_if_exists": true, "dotenv": true, "dotenv_if_exists": true,
	"source": true, ".": true, "load_prefix": true,
	"sh": true, "bash": true, "dash": true, "zsh": true, "eval": true,
}

// envrcSourced judges what the .envrc at the root, and those the walk
// found below it, source.
func (w *walker) envrcSourced() {
	envrcs := append([]string{".envrc"}, w.envrcs...)
	if len(envrcs) > maxEnvrcs+1 {
		for _, rel := range envrcs[maxEnvrcs+1:] {
			w.notExamined(w.abs(rel), fmt.Sprintf("what it sources: the audit reads %d .envrc files at most", maxEnvrcs+1))
		}
		envrcs = envrcs[:maxEnvrcs+1]
	}
	for _, rel := range envrcs {
		b, err := untrusted.ReadFile(w.root, rel, maxMakefileSize)
		if err != nil {
			continue
		}
		names, unspelled := envrcNames(string(b))
		if unspelled {
			w.report.IncludesUnspelled = append(w.report.IncludesUnspelled, w.abs(rel))
		}
		for _, name := range names {
			name = filepath.Join(filepath.Dir(rel), name)
			if !filepath.IsLocal(name) {
				continue
			}
			if fi, err := untrusted.Lstat(w.root, name); err == nil && !fi.IsDir() && !w.older(fi) && !w.tracked(name) {
				w.found(name)
			}
		}
	}
}

// envrcNames are the files an .envrc's lines source by a name it spells,
// and whether one names a file by a word it cannot spell (an expansion,
// a pattern, a command's output).
func envrcNames(envrc string) (names []string, unspelled bool) {
	for line := range strings.Lines(envrc) {
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')'
		})
		for i, word := range words {
			if strings.HasPrefix(word, "#") {
				break
			}
			if !envrcSources[word] {
				continue
			}
			if i+1 == len(words) || strings.HasPrefix(words[i+1], "#") {
				if strings.HasPrefix(word, "dotenv") {
					names = append(names, ".env")
				}
				continue
			}
			quoted := words[i+1]
			name := strings.Trim(quoted, `"'`)
			if len(quoted) < 2 || quoted[0] != quoted[len(quoted)-1] && (quoted[0] == '"' || quoted[0] == '\'') ||
				strings.ContainsAny(name, "$`*?[~\\\"'") {
				unspelled = true
				continue
			}
			names = append(names, filepath.Clean(name))
		}
	}
	return names, unspelled
}

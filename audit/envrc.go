package audit

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/paths"
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
		names, unspelled, whole := envrcNames(string(b))
		if unspelled {
			w.report.IncludesUnspelled = append(w.report.IncludesUnspelled, w.abs(rel))
		}
		if !whole {
			w.notExamined(w.abs(rel), fmt.Sprintf("all it names: the audit looks up %d of its words at most", maxEnvrcNames))
		}
		w.judgeNamed(rel, names)
		w.judgeRun(rel, envrcRuns(string(b)))
		dirs, unspelled := envrcPathDirs(string(b), w.root)
		if unspelled {
			if !slices.Contains(w.report.IncludesUnspelled, w.abs(rel)) {
				w.report.IncludesUnspelled = append(w.report.IncludesUnspelled, w.abs(rel))
			}
			w.judgeExecutables(filepath.Dir(rel))
		}
		w.judgePathDirs(rel, dirs)
		// What it sources sets PATH as well (PATH_add bin in an
		// .envrc.local, PATH= in a dotenv's file), from the directory
		// of either: source_env's is the file's, source's the .envrc's.
		for _, name := range envrcRuns(string(b)) {
			sourced := filepath.Join(filepath.Dir(rel), name)
			if !filepath.IsLocal(sourced) {
				continue
			}
			b, err := untrusted.ReadFile(w.root, sourced, maxMakefileSize)
			if err != nil {
				continue
			}
			dirs, unspelled := envrcPathDirs(string(b), w.root)
			if unspelled {
				w.judgeExecutables(filepath.Dir(rel))
			}
			w.judgePathDirs(rel, dirs)
			w.judgePathDirs(sourced, dirs)
		}
	}
}

// judgeRun judges the files names, from the directory of the .envrc at
// rel, which it runs: each the session made or changed is a finding,
// whether git tracks it or not. direnv runs them at every cd into the
// project, and at the next prompt where one it watches changed
// (source_env's, nix-direnv's flake.nix), before any command typed there,
// git status first, shows the change.
func (w *walker) judgeRun(rel string, names []string) {
	for _, name := range names {
		name = filepath.Join(filepath.Dir(rel), name)
		if !filepath.IsLocal(name) {
			continue
		}
		if fi, err := untrusted.Lstat(w.root, name); err == nil && !fi.IsDir() && !w.older(fi) {
			w.found(name)
		}
	}
}

// envrcUses are the files direnv's use (nix-direnv's, devenv's) has
// evaluated into the shell, a dev shell's shellHook run in it: flake.nix
// and its lock for use flake, shell.nix or default.nix for use nix,
// devenv's for use devenv.
var envrcUses = map[string][]string{
	"flake":  {"flake.nix", "flake.lock"},
	"nix":    {"shell.nix", "default.nix"},
	"devenv": {"devenv.nix", "devenv.yaml", "devenv.lock"},
}

// envrcRuns are the files an .envrc runs or loads by a name it spells:
// the word after a command that sources one (source_env scripts/env.sh,
// dotenv, with .env for none) and what its use lines evaluate (use flake
// ./nix#dev: nix/flake.nix), within maxEnvrcNames.
func envrcRuns(envrc string) []string {
	var names []string
	add := func(name string) {
		if len(names) < maxEnvrcNames && spelled(name) && !strings.HasPrefix(name, "-") {
			names = append(names, filepath.Clean(strings.Trim(name, `"'`)))
		}
	}
	for line := range strings.Lines(envrc) {
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')'
		})
		for i, word := range words {
			if strings.HasPrefix(word, "#") {
				break
			}
			next := ""
			if i+1 < len(words) && !strings.HasPrefix(words[i+1], "#") {
				next = words[i+1]
			}
			switch {
			case word == "use" && envrcUses[next] != nil:
				dir := "."
				if i+2 < len(words) && !strings.HasPrefix(words[i+2], "#") && !strings.HasPrefix(words[i+2], "-") {
					arg, _, _ := strings.Cut(strings.Trim(words[i+2], `"'`), "#")
					if next == "nix" {
						add(arg) // use nix shell.nix: the file
						continue
					}
					dir = arg
				}
				for _, name := range envrcUses[next] {
					add(filepath.Join(dir, name))
				}
			case !envrcSources[word] || word == "eval" || word == "load_prefix":
			case next != "":
				add(next)
			case strings.HasPrefix(word, "dotenv"):
				add(".env")
			}
		}
	}
	return names
}

// judgePathDirs judges the directories dirs an .envrc at rel puts on a
// search path (from its directory): each file or link there the session
// made or changed is a finding, whether git tracks it or not, as is the
// directory itself where it is a link the session made. The host's shell
// runs them by a command's name before anything shows them: git status
// runs a bin/git.
func (w *walker) judgePathDirs(rel string, dirs []string) {
	for _, dir := range dirs {
		dir = filepath.Join(filepath.Dir(rel), dir)
		if !filepath.IsLocal(dir) && dir != "." {
			continue
		}
		fi, err := untrusted.Lstat(w.root, dir)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if !w.older(fi) {
				w.found(dir)
			}
			continue
		}
		entries, err := untrusted.ReadDir(w.root, dir)
		if err != nil {
			continue
		}
		if len(entries) > maxEnvrcNames {
			w.notExamined(w.abs(dir), fmt.Sprintf("the programs an .envrc puts on PATH there: the audit looks at %d at most", maxEnvrcNames))
			entries = entries[:maxEnvrcNames]
		}
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			if fi, err := untrusted.Lstat(w.root, name); err == nil && !fi.IsDir() && !w.older(fi) && !w.depsUnit(name) {
				w.found(name)
			}
		}
	}
}

// judgeExecutables judges every program below dir, the directory of an
// .envrc that puts a directory it cannot spell on PATH, which may be any
// of them: each file the session made or changed there with a mode that
// lets the shell run it, and each link it made, is a finding, whether git
// tracks it or not. A file nobody can execute runs by no command's name.
func (w *walker) judgeExecutables(dir string) {
	dirs, looked := []string{dir}, 0
	for len(dirs) > 0 {
		dir, dirs = dirs[0], dirs[1:]
		entries, err := untrusted.ReadDir(w.root, dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if looked++; looked > maxEnvrcPrograms {
				w.notExamined(w.abs(dir), fmt.Sprintf("the programs an .envrc may put on PATH by a directory the audit cannot spell: the audit looks at %d at most", maxEnvrcPrograms))
				return
			}
			name := filepath.Join(dir, e.Name())
			fi, err := untrusted.Lstat(w.root, name)
			switch {
			case err != nil:
			case fi.IsDir():
				if e.Name() != ".git" {
					dirs = append(dirs, name)
				}
			case !w.older(fi) && (fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&0o111 != 0):
				w.found(name)
			}
		}
	}
}

// maxEnvrcPrograms bounds the entries judgeExecutables looks at.
const maxEnvrcPrograms = 200000

// depsUnit says whether the file at rel is in a unit of installed
// dependencies the audit sets aside already (node_modules/.bin/git).
func (w *walker) depsUnit(rel string) bool {
	for _, d := range w.report.Deps {
		if slices.ContainsFunc(d.Units, func(u string) bool { return paths.Within(w.abs(rel), u) }) {
			return true
		}
	}
	return false
}

// envrcLayouts are the directories direnv's layouts put on PATH, as its
// stdlib spells them, from the .envrc's directory (.direnv, the layout
// directory, is judged whole as well). A layout not here puts one the
// audit cannot spell: python's where the .envrc sets VIRTUAL_ENV,
// pipenv's, anaconda's, a user's own.
var envrcLayouts = map[string][]string{
	"node": {"node_modules/.bin"},
	"php":  {"vendor/bin"},
	"go":   {".direnv/go/bin"},
	"perl": {".direnv/perl5/bin"},
	"ruby": {".direnv/bin", ".direnv/ruby/bin"},
	// .direnv/python-<version>, unless VIRTUAL_ENV is set before.
	"python": {}, "python2": {}, "python3": {},
}

// envrcPathDirs are the directories an .envrc puts on a search path:
// PATH_add's, path_add's (PATH's, PYTHONPATH's, any) and those of a PATH
// it sets (export PATH="$PWD/bin:$PATH"), $PWD/ taken off and, of an
// absolute one in the tree at root, root; and whether one is by a path it
// cannot spell (an expansion, a command's output).
func envrcPathDirs(envrc, root string) (dirs []string, unspelled bool) {
	add := func(word string) {
		word = strings.Trim(word, `"'`)
		for _, pwd := range []string{"$PWD/", "${PWD}/", "`pwd`/"} {
			word = strings.TrimPrefix(word, pwd)
		}
		if rel, err := filepath.Rel(root, word); err == nil && filepath.IsAbs(word) && filepath.IsLocal(rel) {
			word = rel
		}
		switch {
		case word == "" || word == "$PATH" || word == "${PATH}" || filepath.IsAbs(word):
		case !spelled(word):
			unspelled = true
		case len(dirs) < maxEnvrcNames:
			dirs = append(dirs, filepath.Clean(word))
		}
	}
	for line := range strings.Lines(envrc) {
		// $(pwd) is the .envrc's directory, as $PWD is: split at its
		// parentheses, export PATH="$(pwd)/bin:$PATH" named no directory.
		line = strings.ReplaceAll(line, "$(pwd)", "$PWD")
		// ${PATH:+:$PATH} is :$PATH where PATH is set: split at its colon,
		// it gave "+" and a word unspelled.
		line = pathIfSet.Replace(line)
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')'
		})
		for i := 0; i < len(words); i++ {
			word := words[i]
			if strings.HasPrefix(word, "#") {
				break
			}
			// PATH+=:bin appends, which runs bin's programs by a name
			// nothing before it has.
			if value, ok := cutAny(word, "PATH=", "PATH+="); ok {
				for _, part := range strings.Split(strings.Trim(value, `"'`), ":") {
					add(part)
				}
				continue
			}
			if word == "layout" {
				if i+1 < len(words) && envrcLayouts[words[i+1]] != nil && !(strings.HasPrefix(words[i+1], "python") && strings.Contains(envrc, "VIRTUAL_ENV")) {
					dirs = append(dirs, envrcLayouts[words[i+1]]...)
				} else {
					unspelled = true
				}
				continue
			}
			if word != "PATH_add" && word != "path_add" {
				continue
			}
			j := i + 1
			if word == "path_add" {
				j++ // the variable's name
			}
			for ; j < len(words) && !strings.HasPrefix(words[j], "#"); j++ {
				add(words[j])
			}
			i = j - 1
		}
	}
	return dirs, unspelled
}

// pathIfSet spells PATH's expansions only where it is set as what they
// are where it is, as it is in every shell direnv runs.
var pathIfSet = strings.NewReplacer(
	"${PATH:+:$PATH}", ":$PATH", "${PATH:+:${PATH}}", ":$PATH",
	"${PATH:+$PATH:}", "$PATH:", "${PATH:+${PATH}:}", "$PATH:",
	"${PATH+:$PATH}", ":$PATH", "${PATH+:${PATH}}", ":$PATH",
	"${PATH+$PATH:}", "$PATH:", "${PATH+${PATH}:}", "$PATH:",
)

// cutAny is s after the first of prefixes it begins with.
func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if after, ok := strings.CutPrefix(s, p); ok {
			return after, true
		}
	}
	return s, false
}

// judgeNamed judges the files names, from the directory of the file at
// rel that names them: each the session made or changed that git does
// not track is a finding.
func (w *walker) judgeNamed(rel string, names []string) {
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

// maxEnvrcNames bounds the words of one .envrc looked up as files.
const maxEnvrcNames = 10000

// envrcNames are the words of an .envrc that may name a file: what it
// sources or loads, and what a program it runs reads (python3 cfg, awk
// -f cfg, exec ./run), an .envrc being shell, whose commands no list
// covers; whether a command that sources names a file by a word it
// cannot spell (an expansion, a pattern, a command's output); and
// whether every word was taken, within maxEnvrcNames.
func envrcNames(envrc string) (names []string, unspelled, whole bool) {
	seen := map[string]bool{}
	for line := range strings.Lines(envrc) {
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')' || r == '=' || r == '<' || r == '>'
		})
		for i, word := range words {
			if strings.HasPrefix(word, "#") {
				break
			}
			if envrcSources[word] {
				switch {
				case i+1 == len(words) || strings.HasPrefix(words[i+1], "#"):
					if strings.HasPrefix(word, "dotenv") && !seen[".env"] {
						seen[".env"] = true
						names = append(names, ".env")
					}
				case !spelled(words[i+1]):
					unspelled = true
				}
			}
			if !spelled(word) {
				continue
			}
			name := filepath.Clean(strings.Trim(word, `"'`))
			if seen[name] {
				continue
			}
			if len(names) == maxEnvrcNames {
				return names, unspelled, false
			}
			seen[name] = true
			names = append(names, name)
		}
	}
	return names, unspelled, true
}

// spelled says whether an .envrc's word, quoted or not, is a name as it
// stands: no expansion, pattern or quote left open.
func spelled(word string) bool {
	name := strings.Trim(word, `"'`)
	return name != "" && (word[0] != '"' && word[0] != '\'' || len(word) >= 2 && word[0] == word[len(word)-1]) &&
		!strings.ContainsAny(name, "$`*?[~\\\"'")
}

package audit

import (
	"fmt"
	"io"
	"io/fs"
	"os"
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
	envrcs := w.atMost(append([]string{".envrc"}, w.envrcs...), maxEnvrcs+1, "what it sources: the audit reads %d .envrc files at most")
	var user *direnvrc
	for _, rel := range envrcs {
		if _, err := untrusted.Lstat(w.root, rel); err != nil {
			continue
		}
		if user == nil {
			user = readDirenvrc()
		}
		w.sourcesJudged(rel, filepath.Dir(rel), nil, user)
	}
}

// maxEnvrcSourced bounds the files one .envrc sources, at any depth, that
// the audit reads, maxEnvrcBases the directories a name in them is looked
// up from, and maxEnvrcLookups the names looked up for one .envrc: past
// them, what it sources may put anything on PATH.
const (
	maxEnvrcSourced = 100
	maxEnvrcBases   = 8
	maxEnvrcLookups = 200000
)

// sourcesJudged judges the .envrc at rel and what it sources, runs or
// evaluates, at any depth (source_env scripts/env.sh, whose source_env
// path.sh holds PATH_add ../bin; a flake.nix's import ./nix/shell.nix):
// what each names, each file among them the session made or changed
// (direnv runs it at every cd into the project, and at the next prompt
// where one it watches changed, before any command typed there, git
// status first, shows the change), and what each puts on a search path.
// A name is taken from each directory it may be read from: the .envrc's,
// and that of each file on the way, where source_env runs what it
// sources (source keeps the directory it is in). A name the audit cannot
// spell, or a PATH it cannot, makes every program below the .envrc one
// (judgeExecutables). base is the directory rel is read from; parse,
// where not nil, reads rel in place of a shell (a mise configuration);
// user, where not nil, is the user's direnvrc, whose top level direnv
// runs before rel.
func (w *walker) sourcesJudged(rel, base string, parse func(rel, text string) reads, user *direnvrc) {
	userDefined := map[string]bool{}
	if user != nil {
		userDefined = user.defines
	}
	type sourced struct {
		rel   string
		bases []string
	}
	queue := []sourced{{rel, []string{base}}}
	seen := map[string]bool{rel: true}
	everyProgram, lookups := false, 0
	// Whether direnv may source a file below rel the audit cannot name.
	sourcesUnspelled := false
	enqueue := func(name string, bases []string) bool {
		if seen[name] {
			return true
		}
		if len(seen) > maxEnvrcSourced || len(bases) > maxEnvrcBases {
			return false
		}
		seen[name] = true
		queue = append(queue, sourced{name, bases})
		return true
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f.rel != rel {
			if w.foundLinkOnTheWay(f.rel) {
				continue
			}
			fi, err := untrusted.Lstat(w.root, f.rel)
			if err != nil || fi.IsDir() {
				continue
			}
			if !w.older(fi) {
				w.found(f.rel)
			}
		}
		b, err := untrusted.ReadFile(w.root, f.rel, maxMakefileSize)
		if err != nil {
			continue
		}
		text := string(b)
		if f.rel == rel && user != nil {
			text = user.top + "\n" + text
		}
		var names, dirs, runs []string
		var unspelled, pathUnspelled bool
		if f.rel == rel && parse != nil {
			r := parse(rel, text)
			names, dirs, runs, unspelled = r.names, r.dirs, r.runs, r.unspelled
			runs = append(runs, w.unspelledSources(strings.Join(r.templated, "\n"), f.bases)...)
		} else {
			var whole bool
			names, unspelled, whole = envrcNames(text)
			if !whole {
				w.notExamined(w.abs(f.rel), fmt.Sprintf("all it names: the audit looks up %d of its words at most", maxEnvrcNames))
			}
			dirs, pathUnspelled = envrcPathDirs(text, w.root)
			runs = envrcRuns(text)
		}
		switch {
		case f.rel == rel && parse != nil:
		case strings.HasSuffix(f.rel, ".nix"):
			// Nix is no shell: its words run nothing by
			// themselves (pkgs.bash ${…}); its paths are read.
			unspelled = false
			runs = append(runs, nixPaths(text)...)
		case strings.HasSuffix(f.rel, ".scm"):
			// Nor is guix's Scheme, found for what it is.
			names, unspelled, pathUnspelled, dirs, runs = nil, false, false, nil, nil
		case envrcUsesUnspelled(text, userDefined):
			pathUnspelled = true
		}
		if unspelled && (f.rel != rel || parse == nil) && !strings.HasSuffix(f.rel, ".nix") {
			runs = append(runs, w.unspelledSources(text, f.bases)...)
		}
		everyProgram = everyProgram || unspelled || pathUnspelled
		sourcesUnspelled = sourcesUnspelled || unspelled
		if lookups += (len(names) + len(dirs) + len(runs)) * len(f.bases); lookups > maxEnvrcLookups {
			w.notExamined(w.abs(rel), fmt.Sprintf("what it sources: the audit looks up %d names at most", maxEnvrcLookups))
			everyProgram, sourcesUnspelled = true, true
			break
		}
		for _, base := range f.bases {
			w.judgeNamed(base, names)
			w.judgePathDirs(base, dirs)
			for _, name := range runs {
				name, local := w.local(base, name)
				if !local {
					continue
				}
				bases := f.bases
				if !slices.Contains(bases, filepath.Dir(name)) {
					bases = append(slices.Clip(bases), filepath.Dir(name))
				}
				ok := enqueue(name, bases)
				// A directory: source_env's .envrc in it, nix's
				// default.nix and the modules beside it.
				if fi, err := untrusted.Lstat(w.root, name); ok && err == nil && fi.IsDir() {
					for _, in := range w.nixModules(name) {
						ok = ok && enqueue(in, append(slices.Clip(bases), name))
					}
				}
				if !ok && !everyProgram {
					w.notExamined(w.abs(rel), fmt.Sprintf("what it sources: the audit reads %d files it sources at most, from %d directories", maxEnvrcSourced, maxEnvrcBases))
					everyProgram, sourcesUnspelled = true, true
				}
			}
		}
	}
	if everyProgram {
		w.includesUnspelled(rel)
		w.judgeExecutables(base)
	}
	if sourcesUnspelled && (filepath.Base(rel) == ".envrc" || parse != nil) {
		w.report.SourcesUnspelled = append(w.report.SourcesUnspelled, w.abs(rel))
	}
}

// unspelledSources are the files below the root, as absolute paths, a
// shell script may source by a word the audit cannot spell, where its
// literal part says: what follows an expansion ("$(git rev-parse
// --show-toplevel)/scripts/env.sh", "${ROOT}/env.sh"), looked up from
// each directory the script is read from and those above it up to the
// root, and what a pattern in it matches (source_env env.d/*.sh, for f
// in env.d/*.sh), within maxEnvrcNames. direnv runs them at the next cd,
// tracked or not, before git status shows a change; a name with no
// literal part (eval "$(cat x)") leaves the ignored files and programs
// the caller takes (judgeExecutables, Report.IncludesUnspelled).
func (w *walker) unspelledSources(script string, bases []string) []string {
	var found []string
	seen := map[string]bool{}
	lookup := func(dir, name string) {
		p := filepath.Join(dir, name)
		if !filepath.IsLocal(p) && p != "." {
			return
		}
		if !strings.ContainsAny(name, "*?[") {
			if !seen[p] && len(found) < maxEnvrcNames {
				seen[p] = true
				found = append(found, w.abs(p))
			}
			return
		}
		entries, err := untrusted.ReadDir(w.root, filepath.Dir(p))
		if err != nil || strings.ContainsAny(filepath.Dir(name), "*?[") {
			return
		}
		for _, e := range entries {
			m := filepath.Join(filepath.Dir(p), e.Name())
			if ok, _ := filepath.Match(filepath.Base(p), e.Name()); ok && !seen[m] && len(found) < maxEnvrcNames {
				seen[m] = true
				found = append(found, w.abs(m))
			}
		}
	}
	for line := range strings.Lines(script) {
		words := envrcWords(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '&' || r == '|' || r == '<' || r == '>'
		})
		for _, word := range words {
			if strings.HasPrefix(word, "#") {
				break
			}
			// Quotes join a word's parts: "${CONF}"/local.conf.
			name := strings.NewReplacer(`"`, "", "'", "").Replace(word)
			if !strings.ContainsAny(name, "$`)}*?[") {
				continue
			}
			literal := name[strings.LastIndexAny(name, "})`")+1:]
			if strings.HasPrefix(name, "$") && !strings.ContainsAny(name, "{(") {
				_, literal, _ = strings.Cut(name, "/")
				literal = "/" + literal
			}
			switch {
			case strings.ContainsAny(literal, "$`\\~") || len(literal) < 2:
			case strings.HasPrefix(literal, "/"):
				for _, base := range bases {
					for dir := base; ; dir = filepath.Dir(dir) {
						lookup(dir, literal[1:])
						if dir == "." {
							break
						}
					}
				}
			case literal == name:
				// A pattern and no expansion: env.d/*.sh.
				for _, base := range bases {
					lookup(base, name)
				}
			}
		}
	}
	return found
}

// nixModules are the files in the directory dir that direnv or nix read
// for it: its .envrc, its default.nix, and the .nix files beside them,
// which a module system imports by the directory (import-tree,
// readDir), within maxEnvrcNames.
func (w *walker) nixModules(dir string) []string {
	in := []string{filepath.Join(dir, ".envrc"), filepath.Join(dir, "default.nix")}
	entries, err := untrusted.ReadDir(w.root, dir)
	if err != nil {
		return in
	}
	for _, e := range entries {
		if len(in) < maxEnvrcNames && strings.HasSuffix(e.Name(), ".nix") && e.Name() != "default.nix" {
			in = append(in, filepath.Join(dir, e.Name()))
		}
	}
	return in
}

// nixPaths are the paths a .nix file spells that nix evaluates or reads
// as code, from the file's directory, within maxEnvrcNames: a .nix file
// or a directory (import ./nix, ../common.nix), and what import,
// callPackage, readFile, importTOML, builtins.path and lib.fileset take
// (a shellHook's readFile ./scripts/hook.sh, devshell's TOML commands,
// the hook.sh builtins.path { path = ./hook.sh; } copies, each of
// unions [ ./a.sh ./b.sh ]); a path joined from the directory and a
// string (./. + "/nix/shell.nix", self + "/hook.nix", "${self}/x.nix",
// ./nix + "/x.nix": self and ./. are the file's directory, as they are
// for a flake.nix). Not a file it takes as data (cargoLock.lockFile =
// ./Cargo.lock), nor ./. , the directory itself.
func nixPaths(src string) []string {
	var paths []string
	words := strings.FieldsFunc(nixSeparators.Replace(src), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+/[];", r))
	})
	reading := false // after a word that reads what follows, to ; or ]
	for i, word := range words {
		switch {
		case !strings.HasPrefix(word, ".") && !strings.HasPrefix(word, "/") && nixReads[lastAttr(word)]:
			reading = true
			continue
		case word == ";" || word == "]":
			reading = false
			continue
		}
		if strings.HasPrefix(word, "/") && i > 0 {
			// A string joined to the directory or a path: ./. + "/x",
			// self + "/x" or "${self}/x".
			prev := strings.TrimSuffix(words[i-1], "+")
			if prev == "" && i > 1 {
				prev = words[i-2]
			}
			switch {
			case prev == "self" || prev == "./." || prev == ".":
				word = "." + word
			case strings.HasPrefix(prev, "./") || strings.HasPrefix(prev, "../"):
				word = prev + word
			}
		}
		if !strings.HasPrefix(word, "./") && !strings.HasPrefix(word, "../") {
			continue
		}
		word = filepath.Clean(word)
		code := reading || strings.HasSuffix(word, ".nix") || filepath.Ext(word) == ""
		if code && word != "." && word != ".." && len(paths) < maxEnvrcNames {
			paths = append(paths, word)
		}
	}
	return paths
}

// nixSeparators set a list's brackets and a binding's end apart as words
// of their own.
var nixSeparators = strings.NewReplacer("[", " [ ", "]", " ] ", ";", " ; ")

// nixReads are the names of the functions, and of builtins.path's
// attribute, that take a path nix reads as code or copies whole for a
// dev shell to run: import ./x, callPackage ./x, readFile ./hook.sh,
// builtins.path { path = ./hook.sh; }, lib.fileset.toSource's and
// unions' files.
var nixReads = map[string]bool{
	"import": true, "callPackage": true, "readFile": true, "importTOML": true, "fromTOML": true,
	"path": true, "toSource": true, "unions": true, "union": true, "maybeMissing": true,
	"fileFilter": true, "difference": true, "intersection": true, "fileset": true,
}

// lastAttr is the last name of an attribute path (builtins.readFile's
// readFile).
func lastAttr(word string) string {
	return word[strings.LastIndexByte(word, '.')+1:]
}

// stdlibUses are the use commands of direnv's stdlib and devenv's that
// put nothing of the project on PATH but what the files they evaluate
// say (judged as sourced: envrcUses) or a file envrcPathDirs names (use
// vim's): node, nodenv, rbenv and julia put their installs', guix the
// profile of what its files say.
var stdlibUses = map[string]bool{
	"flake": true, "nix": true, "devenv": true, "guix": true, "julia": true,
	"node": true, "nodenv": true, "rbenv": true, "vim": true,
}

// dotDirenvLayouts are the layouts whose directories are in .direnv, as
// direnv_layout_dir says by default.
var dotDirenvLayouts = map[string]bool{"go": true, "perl": true, "ruby": true, "python": true, "python2": true, "python3": true}

// envrcUsesUnspelled says whether an .envrc, or what it sources, puts
// on PATH a directory no word of it spells, by a use or a layout whose
// function the user's direnvrc defines (use_tools, a layout_go of their
// own: direnv runs it in place of the stdlib's), one not known to put
// nothing there (use asdf, use mise, a library's source_url brought), or
// a layout in .direnv where direnv_layout_dir is not direnv's.
func envrcUsesUnspelled(src string, userDefined map[string]bool) bool {
	movedLayouts := userDefined["direnv_layout_dir"] || strings.Contains(src, "direnv_layout_dir")
	for line := range strings.Lines(src) {
		line, _, _ = strings.Cut(line, "#")
		words := strings.Fields(commandSeparators.Replace(line))
		for i := 0; i+1 < len(words); i++ {
			if i > 0 && !commandStarts[words[i-1]] {
				continue
			}
			switch kind := words[i+1]; words[i] {
			case "use":
				if !stdlibUses[kind] || userDefined["use_"+kind] {
					return true
				}
			case "layout":
				if userDefined["layout_"+kind] || movedLayouts && dotDirenvLayouts[kind] {
					return true
				}
			}
		}
	}
	return false
}

// commandSeparators set a shell's separators apart as words of their own.
var commandSeparators = strings.NewReplacer(";", " ; ", "&", " & ", "|", " | ", "(", " ( ", ")", " ) ", "{", " { ", "}", " } ")

// commandStarts are the words after which a shell's word is a command's
// name.
var commandStarts = map[string]bool{";": true, "&": true, "|": true, "(": true, "{": true, "then": true, "else": true, "do": true, "!": true}

// maxDirenvrcLib bounds the files of the user's direnv lib read.
const maxDirenvrcLib = 1000

// direnvrc is what the user's own direnvrc and the scripts of direnv's
// lib directory (of DIRENV_CONFIG, or XDG_CONFIG_HOME's direnv, and
// ~/.direnvrc) say, which direnv loads before each .envrc: the layout_
// and use_ functions, and direnv_layout_dir, they define (defines: they
// are the host's, out of the sandbox's reach, and what they put on PATH
// is theirs to say), and what they run at their top level, outside any
// function (top: source_env_if_exists config/direnv.local, PATH_add
// tools), which direnv runs for each .envrc from its directory, as the
// .envrc's own first lines.
type direnvrc struct {
	defines map[string]bool
	top     string
}

// readDirenvrc reads the user's direnvrc and direnv's lib.
func readDirenvrc() *direnvrc {
	defined := map[string]bool{}
	var top strings.Builder
	dir := os.Getenv("DIRENV_CONFIG")
	home, _ := os.UserHomeDir()
	if dir == "" {
		config := os.Getenv("XDG_CONFIG_HOME")
		if config == "" && home != "" {
			config = filepath.Join(home, ".config")
		}
		if config != "" {
			dir = filepath.Join(config, "direnv")
		}
	}
	var files []string
	if dir != "" {
		files = append(files, filepath.Join(dir, "direnvrc"))
		lib, _ := filepath.Glob(filepath.Join(dir, "lib", "*.sh"))
		files = append(files, lib[:min(len(lib), maxDirenvrcLib)]...)
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".direnvrc"))
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, maxMakefileSize))
		f.Close()
		top.WriteString(shellTopLevel(string(b)))
		top.WriteString("\n")
		words := strings.Fields(strings.NewReplacer("(", " (", "{", " { ").Replace(string(b)))
		for i, word := range words {
			name := word
			if word == "function" && i+1 < len(words) {
				name = words[i+1]
			} else if i+1 >= len(words) || words[i+1] != "()" && !strings.HasPrefix(words[i+1], "()") {
				continue
			}
			if strings.HasPrefix(name, "layout_") || strings.HasPrefix(name, "use_") || name == "direnv_layout_dir" {
				defined[name] = true
			}
		}
	}
	return &direnvrc{defines: defined, top: top.String()}
}

// envrcUses are the files direnv's use (nix-direnv's, devenv's) has
// evaluated into the shell, a dev shell's shellHook run in it: flake.nix
// and its lock for use flake, shell.nix or default.nix for use nix,
// devenv's for use devenv, and for use guix (guix shell, direnv 2.33 and
// later) the guix.scm or manifest.scm it loads where no package is named,
// Scheme evaluated on the host, and the channels.scm whose Guix a later
// direnv's runs it with (guix time-machine). Every use of stdlibUses that
// evaluates a file of the project has its files here: one that has none
// is judged for none.
var envrcUses = map[string][]string{
	"flake":  {"flake.nix", "flake.lock"},
	"nix":    {"shell.nix", "default.nix"},
	"devenv": {"devenv.nix", "devenv.yaml", "devenv.lock"},
	"guix":   {"guix.scm", "manifest.scm", "channels.scm"},
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
		words := envrcWords(line, func(r rune) bool {
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
			case word == "use" && next == "guix":
				// Its arguments are guix shell's: packages, and the
				// files its options load (-m tools.scm,
				// --file=env.scm), each taken for a name.
				for _, name := range envrcUses[next] {
					add(name)
				}
				for _, arg := range words[i+2:] {
					if strings.HasPrefix(arg, "#") {
						break
					}
					if opt, value, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(opt, "-") {
						arg = value
					}
					add(arg)
				}
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

// judgePathDirs judges the directories dirs an .envrc puts on a search
// path, from the directory base: each file or link there the session
// made or changed is a finding, whether git tracks it or not, as is the
// directory itself where it is a link the session made. The host's shell
// runs them by a command's name before anything shows them: git status
// runs a bin/git.
func (w *walker) judgePathDirs(base string, dirs []string) {
	for _, dir := range dirs {
		dir = filepath.Join(base, dir)
		if !filepath.IsLocal(dir) && dir != "." {
			continue
		}
		if w.foundLinkOnTheWay(dir) {
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
		if home := homeSpelled(word); home != "" {
			word = home
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
			// load_prefix puts its prefix's bin on PATH, its lib on
			// LD_LIBRARY_PATH, whose libraries every program loads, and
			// its include on CPATH.
			if word == "load_prefix" && i+1 < len(words) && !strings.HasPrefix(words[i+1], "#") {
				for _, sub := range []string{"bin", "sbin", "lib", "include"} {
					add(strings.TrimSuffix(strings.Trim(words[i+1], `"'`), "/") + "/" + sub)
				}
				continue
			}
			// use vim names the file the user's vimrc sources
			// (DIRENV_EXTRA_VIMRC), by default .vimrc.local.
			if word == "use" && i+1 < len(words) && words[i+1] == "vim" {
				if i+2 < len(words) && !strings.HasPrefix(words[i+2], "#") {
					add(words[i+2])
				} else {
					add(".vimrc.local")
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

// judgeNamed judges the files names, from the directory base of the
// file that names them: each the session made or changed that git does
// not track is a finding.
func (w *walker) judgeNamed(base string, names []string) {
	for _, name := range names {
		name, ok := w.local(base, name)
		if !ok {
			continue
		}
		if w.foundLinkOnTheWay(name) {
			continue
		}
		if fi, err := untrusted.Lstat(w.root, name); err == nil && !fi.IsDir() && !w.older(fi) && !w.tracked(name) {
			w.found(name)
		}
	}
}

// linkOnTheWay is the first directory on rel's way down from the root
// that is a link, and its status: hg, direnv and mise open what they
// include or source through it, where the audit's reads, which follow
// none, find nothing.
func (w *walker) linkOnTheWay(rel string) (string, fs.FileInfo, bool) {
	dir := ""
	for part := range strings.SplitSeq(filepath.Dir(rel), "/") {
		dir = filepath.Join(dir, part)
		fi, err := untrusted.Lstat(w.root, dir)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return dir, fi, err == nil
		}
	}
	return "", nil, false
}

// foundLinkOnTheWay finds the link on rel's way the session made, which
// moved aside takes what is behind it with it, and says whether there is
// one on its way.
func (w *walker) foundLinkOnTheWay(rel string) bool {
	link, fi, ok := w.linkOnTheWay(rel)
	if ok && !w.older(fi) {
		w.found(link)
	}
	return ok
}

// local is the path below the root of the file name, read from the
// directory base: an absolute name is the path below the root where it
// lies there (source_env /home/me/proj/scripts/env.sh), and none
// outside it.
func (w *walker) local(base, name string) (string, bool) {
	if filepath.IsAbs(name) {
		rel, err := filepath.Rel(w.root, name)
		return rel, err == nil && filepath.IsLocal(rel)
	}
	name = filepath.Join(base, name)
	return name, filepath.IsLocal(name)
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
		words := envrcWords(line, func(r rune) bool {
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

// envrcWords are the words of an .envrc's line, split where sep says,
// each that begins with the .envrc's directory by $PWD, ${PWD} or $(pwd),
// quoted or not, spelled from it: source_env_if_exists
// "$PWD/.envrc.local" sources .envrc.local (in what source_env runs,
// $PWD is that file's directory, which the caller looks from as well).
func envrcWords(line string, sep func(rune) bool) []string {
	words := strings.FieldsFunc(strings.ReplaceAll(line, "$(pwd)", "$PWD"), sep)
	for i, word := range words {
		unquoted := word
		if len(word) >= 2 && word[0] == '"' && word[len(word)-1] == '"' {
			unquoted = word[1 : len(word)-1]
		}
		for _, pwd := range []string{"$PWD/", "${PWD}/", "`pwd`/"} {
			if rest, ok := strings.CutPrefix(unquoted, pwd); ok && rest != "" {
				words[i] = rest
			}
		}
		if home := homeSpelled(unquoted); home != "" {
			words[i] = home
		}
	}
	return words
}

// homeSpelled is a word that begins with the user's home ($HOME/,
// ${HOME}/, ~/) with the home spelled out: what direnv, run as the user,
// reads there (source_env_if_exists "$HOME/proj/scripts/env.sh", a path
// into the project, or one of the user's own outside it); "" for another
// word.
func homeSpelled(word string) string {
	for _, prefix := range []string{"$HOME/", "${HOME}/", "~/"} {
		if rest, ok := strings.CutPrefix(word, prefix); ok && rest != "" {
			if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
				return filepath.Join(home, rest)
			}
		}
	}
	return ""
}

// spelled says whether an .envrc's word, quoted or not, is a name as it
// stands: no expansion, pattern or quote left open.
func spelled(word string) bool {
	name := strings.Trim(word, `"'`)
	return name != "" && (word[0] != '"' && word[0] != '\'' || len(word) >= 2 && word[0] == word[len(word)-1]) &&
		!strings.ContainsAny(name, "$`*?[~\\\"'")
}

// shellTopLevel is what of a shell script runs as it is sourced: its
// text outside the bodies of the functions it defines (and outside any
// other { } group, which is taken for one), braces of a parameter's
// expansion (${X}) and quoted ones aside.
func shellTopLevel(src string) string {
	var top strings.Builder
	depth, params := 0, 0
	quote := byte(0)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(src) {
				if depth == 0 {
					top.WriteByte(c)
				}
				i++
				c = src[i]
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n;", src[i-1]) >= 0):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			c = '\n'
		case c == '$' && i+1 < len(src) && src[i+1] == '{':
			params++
		case c == '{' && params == 0:
			depth++
			continue
		case c == '}' && params > 0:
			params--
		case c == '}' && depth > 0:
			depth--
			continue
		}
		if depth == 0 || c == '\n' {
			top.WriteByte(c)
		}
	}
	return top.String()
}

package audit

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// mise (its activate's hook, at every prompt, and mise exec) loads the
// environment of each configuration file from the shell's directory up
// to the root, once the file is trusted (by its path, not its content),
// and asdf's shims the .tool-versions there: what they source
// (_.source, bash scripts run at every prompt), load (_.file, a dotenv),
// put on PATH (_.path, a virtualenv's bin, a tool's path: version) is
// the project's, which the configuration names, often a file git tracks
// that git status has not shown yet. So each is judged as what an .envrc
// sources (envrc.go): the configuration files themselves are guarded, or
// named where the session made them (the registry's mise entries).

// miseConfig says whether name is a configuration file mise reads in
// the directory it configures (mise.toml, .mise.local.toml,
// mise.<env>.toml, .tool-versions), or a directory of them (mise,
// .mise).
func miseConfig(name string) bool {
	return name == ".tool-versions" || name == "mise" || name == ".mise" ||
		(strings.HasPrefix(name, "mise.") || strings.HasPrefix(name, ".mise.")) && strings.HasSuffix(name, ".toml")
}

// miseFiles are the configuration files of the directory dir (relative,
// "." for the top) and, below it, of the entries miseConfig names there
// (names, nil to read the directory), with the directory each configures.
func (w *walker) miseFiles(dir string, names []string) (files, roots []string) {
	if names == nil {
		entries, err := untrusted.ReadDir(w.root, dir)
		if err != nil {
			return nil, nil
		}
		for _, e := range entries {
			if miseConfig(e.Name()) {
				names = append(names, e.Name())
			}
		}
		names = append(names, ".config")
	}
	for _, name := range names {
		rel := filepath.Join(dir, name)
		fi, err := untrusted.Lstat(w.root, rel)
		switch {
		case err != nil:
		case !fi.IsDir():
			files, roots = append(files, rel), append(roots, dir)
		case name == ".config":
			if fi, err := untrusted.Lstat(w.root, filepath.Join(rel, "mise.toml")); err == nil && !fi.IsDir() {
				files, roots = append(files, filepath.Join(rel, "mise.toml")), append(roots, dir)
			}
			more, moreRoots := w.miseFiles(dir, []string{".config/mise"})
			files, roots = append(files, more...), append(roots, moreRoots...)
		default:
			in := []string{filepath.Join(rel, "config.toml")}
			if entries, err := untrusted.ReadDir(w.root, filepath.Join(rel, "conf.d")); err == nil {
				for _, e := range entries {
					if strings.HasSuffix(e.Name(), ".toml") && len(in) < maxEnvrcNames {
						in = append(in, filepath.Join(rel, "conf.d", e.Name()))
					}
				}
			}
			for _, f := range in {
				if fi, err := untrusted.Lstat(w.root, f); err == nil && !fi.IsDir() {
					files, roots = append(files, f), append(roots, dir)
				}
			}
		}
	}
	return files, roots
}

// miseSourced judges what the project's mise configurations, at the top
// and those the walk found below it, source, load and put on PATH.
func (w *walker) miseSourced() {
	files, roots := w.miseFiles(".", nil)
	for _, rel := range w.miseConfigs {
		dir, name := filepath.Dir(rel), filepath.Base(rel)
		if filepath.Base(dir) == ".config" {
			dir, name = filepath.Dir(dir), filepath.Join(".config", name)
		}
		if dir == "." {
			continue // the top's, read above
		}
		more, moreRoots := w.miseFiles(dir, []string{name})
		files, roots = append(files, more...), append(roots, moreRoots...)
	}
	for i, rel := range w.atMost(files, maxEnvrcs+1, "what it sources: the audit reads %d mise configurations at most") {
		w.sourcesJudged(rel, roots[i], miseReads, nil)
	}
}

// miseReads are what a mise configuration (TOML, or a .tool-versions)
// has mise read from its directory: the scripts _.source runs and the
// files _.file loads (runs), the directories _.path, a virtualenv
// (_.python.venv: its bin) and a tool's path: version put on PATH
// (dirs), and the words of every other value (names: an [env] value
// a program obeys, BASH_ENV = "./x.sh"); unspelled where one of the
// first two is by a template or a variable ({{env.HOME}}, $X, a
// pattern), or an _. directive the audit does not know (a plugin's).
// A hook's command ([hooks] enter, at every cd) is shell, read as an
// .envrc is.
func miseReads(rel, text string) reads {
	var r reads
	section, key, value := "", "", ""
	flush := func() {
		if key == "" {
			return
		}
		strs := tomlStrings(value)
		// TOML spells one key many ways, each mise's: env._.path at the
		// top is [env]'s _.path, as are ["env"] and _ . path.
		full := tomlKey(key)
		if section != "" {
			full = section + "." + full
		}
		// [vars]' directives are [env]'s: its _.source runs the script.
		table, k, _ := strings.Cut(full, ".")
		switch full {
		// The spellings before [env]'s, which mise still obeys, and the
		// setting that loads a dotenv file.
		case "env_path":
			table, k = "env", "_.path"
		case "env_file", "dotenv", "settings.env_file":
			table, k = "env", "_.file"
		}
		if table == "env" || table == "vars" {
			switch {
			// An inline table of directives (env = { _ = { path = … } },
			// _ = { source = … }) is not read here.
			case k == "_" || k == "" && holdsDirective(value):
				r.unspelled = true
			case k == "_.source" || k == "_.file":
				r.addRuns(strs)
			case k == "_.path":
				r.addDirs(strs, "")
			case k == "_.python.venv" || k == "_.python.venv.path":
				r.addDirs(strs, "bin")
			case strings.HasPrefix(k, "_."):
				if !strings.HasPrefix(k, "_.python.venv.") {
					r.unspelled = true
				}
			default:
				r.addNames(strs)
			}
		} else if full == "hooks" || strings.HasPrefix(full, "hooks.") {
			for _, s := range strs {
				r.shell(s)
			}
		} else {
			for _, s := range strs {
				if p, ok := strings.CutPrefix(s, "path:"); ok {
					r.addDirs([]string{p}, "bin")
				}
			}
			r.addNames(strs)
		}
		key, value = "", ""
	}
	toolVersions := filepath.Base(rel) == ".tool-versions"
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		if toolVersions {
			trimmed, _, _ = strings.Cut(trimmed, "#")
			for _, word := range strings.Fields(trimmed) {
				if p, ok := strings.CutPrefix(word, "path:"); ok {
					r.addDirs([]string{p}, "bin")
				}
			}
			continue
		}
		if key != "" && !tomlValueClosed(value) {
			value += "\n" + line
			continue
		}
		flush()
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "["):
			section = tomlKey(strings.Trim(strings.TrimSpace(strings.SplitN(trimmed, "#", 2)[0]), "[] "))
		default:
			k, v, ok := strings.Cut(trimmed, "=")
			if ok {
				key, value = strings.TrimSpace(k), v
			}
		}
	}
	flush()
	return r
}

// tomlKey is a TOML key (a table's name, or a key before its "=") as one
// name, its parts joined by dots: the spaces about each part and the
// quotes around it taken off ("env" . _.path is env._.path).
func tomlKey(key string) string {
	var parts []string
	part, quote := "", byte(0)
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			part += string(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts, part = append(parts, part), ""
		case c != ' ' && c != '\t':
			part += string(c)
		}
	}
	return strings.Join(append(parts, part), ".")
}

// holdsDirective says whether value, an inline table, holds mise's
// directives (a key _, quoted or not, alone or dotted).
func holdsDirective(value string) bool {
	for i := 0; i < len(value); i++ {
		if value[i] != '{' && value[i] != ',' {
			continue
		}
		key := strings.TrimLeft(value[i+1:], " \t\r\n\"'")
		if rest, ok := strings.CutPrefix(key, "_"); ok {
			if rest = strings.TrimLeft(rest, " \t\"'"); strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "=") {
				return true
			}
		}
	}
	return false
}

// tomlStrings are the strings a TOML value holds (a string, an array's,
// an inline table's), unquoted; {{config_root}}/ (the directory the
// configuration is for) taken off.
func tomlStrings(value string) []string {
	var strs []string
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c == '#' {
			for i < len(value) && value[i] != '\n' {
				i++
			}
			continue
		}
		if c != '"' && c != '\'' {
			continue
		}
		end := strings.IndexByte(value[i+1:], c)
		if end < 0 {
			break
		}
		s := value[i+1 : i+1+end]
		for _, root := range []string{"{{config_root}}", "{{ config_root }}"} {
			if rest, ok := strings.CutPrefix(s, root); ok {
				s = "." + rest
			}
		}
		strs = append(strs, s)
		i += end + 1
	}
	return strs
}

// tomlValueClosed says whether a value's brackets and braces close
// (an array may span lines).
func tomlValueClosed(value string) bool {
	depth, quote := 0, byte(0)
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			for i < len(value) && value[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth <= 0
}

// reads are what a file has the host read from the directories it is
// read from: files it sources or runs (runs), directories it puts on a
// search path (dirs), words that may name a file a program it runs
// reads (names), and whether a name or a directory is one the audit
// cannot spell.
type reads struct {
	names, dirs, runs []string
	unspelled         bool
	// templated are the files it sources or runs by a template, each as
	// a shell's word (templateWord), looked up as an .envrc's by a name
	// with an expansion are (unspelledSources).
	templated []string
}

func (r *reads) addRuns(strs []string) {
	for _, s := range strs {
		if !miseSpelled(s) {
			r.unspelled = true
			if len(r.templated) < maxEnvrcNames {
				r.templated = append(r.templated, templateWord(s))
			}
		} else if len(r.runs) < maxEnvrcNames {
			r.runs = append(r.runs, filepath.Clean(s))
		}
	}
}

func (r *reads) addDirs(strs []string, sub string) {
	for _, s := range strs {
		switch {
		case !miseSpelled(s):
			r.unspelled = true
		case len(r.dirs) < maxEnvrcNames:
			r.dirs = append(r.dirs, filepath.Join(s, sub))
		}
	}
}

// addNames takes the words of strs that may name a file.
func (r *reads) addNames(strs []string) {
	for _, s := range strs {
		for _, word := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '=' || r == ':' || r == ',' }) {
			if miseSpelled(word) && len(r.names) < maxEnvrcNames {
				r.names = append(r.names, filepath.Clean(word))
			}
		}
	}
}

// shell takes what a shell's command line reads, as an .envrc's.
func (r *reads) shell(line string) {
	names, unspelled, _ := envrcNames(line)
	dirs, pathUnspelled := envrcPathDirs(line, "")
	r.names = append(r.names, names...)
	r.dirs = append(r.dirs, dirs...)
	r.runs = append(r.runs, envrcRuns(line)...)
	if first := strings.Fields(line); len(first) > 0 && strings.Contains(first[0], "/") && spelled(first[0]) {
		r.runs = append(r.runs, filepath.Clean(first[0]))
	}
	r.unspelled = r.unspelled || unspelled || pathUnspelled
}

// templateWord is a templated path as a shell's word that names what it
// may render to: a template in the file's name a pattern there
// (./scripts/{{env.APP_ENV}}.sh, ./scripts/*.sh: each script of the
// directory), one in a directory above it an expansion
// ({{env.ROOT}}/env/common.sh, ${T}/env/common.sh: env/common.sh in the
// configuration's directory or one above it).
func templateWord(s string) string {
	dir, name := "", s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		dir, name = s[:i+1], s[i+1:]
	}
	return strings.ReplaceAll(replaceTemplates(dir, "${T}"), " ", "") + strings.ReplaceAll(replaceTemplates(name, "*"), " ", "")
}

// replaceTemplates is s with each {{…}} in it replaced by with.
func replaceTemplates(s, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return b.String() + s
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return b.String() + s[:i] + with
		}
		b.WriteString(s[:i] + with)
		s = s[i+j+2:]
	}
}

// miseSpelled says whether a value is a name as it stands: no template
// ({{env.HOME}}), expansion or pattern.
func miseSpelled(s string) bool {
	return spelled(s) && !strings.Contains(s, "{{")
}

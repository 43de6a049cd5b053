package audit

import (
	"path/filepath"
	"slices"
	"strings"
)

// just reads the files a justfile imports (import? 'local.justfile') and
// the modules it declares (mod deploy 'deploy/tasks'), and Task the
// Taskfiles its includes: name, often ignored, by any name, as its own
// recipes, which the host's just and task run, the top's or a package's
// in a monorepo (just looks upward from where it runs). So what each
// justfile and Taskfile names is judged as what an .envrc names: one the
// session made or changed that git does not track is a finding; a name
// the audit cannot spell (Task's {{.TASKFILE_DIR}}/local.yml) makes it
// one whose includes are unspelled (see Report.IncludesUnspelled).

// justfile says whether name is one just reads, whatever its case.
func justfile(name string) bool {
	return strings.EqualFold(name, "justfile") || strings.EqualFold(name, ".justfile")
}

// taskfile says whether name is one Task reads.
func taskfile(name string) bool {
	return taskFiles[name] && strings.HasPrefix(strings.ToLower(name), "taskfile")
}

// taskFileNamed judges what the justfiles and Taskfiles at the top and
// below it include, and what those include in turn (each from its own
// directory).
func (w *walker) taskFileNamed() {
	justs := []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}
	var tasks []string
	for name := range taskFiles {
		if taskfile(name) {
			tasks = append(tasks, name)
		}
	}
	slices.Sort(tasks)
	for _, rel := range w.importers {
		switch name := filepath.Base(rel); {
		case justfile(name):
			justs = append(justs, rel)
		case taskfile(name):
			tasks = append(tasks, rel)
		}
	}
	w.judgeChain(justs, func(rel, src string) ([]string, bool) {
		names, unspelled := justImports(src)
		return fromDir(rel, names), unspelled
	})
	w.judgeChain(tasks, func(rel, src string) ([]string, bool) {
		names, unspelled := taskfileIncludes(src)
		return fromDir(rel, names), unspelled
	})
}

// fromDir are names, each from the directory of the file at rel.
func fromDir(rel string, names []string) []string {
	for i, name := range names {
		names[i] = filepath.Join(filepath.Dir(rel), name)
	}
	return names
}

// justImports are the paths of a justfile's import, import?, mod and mod?
// lines (a recipe's lines, indented, are its commands), within
// maxEnvrcNames, and whether one names a path the audit cannot spell.
func justImports(src string) (names []string, unspelled bool) {
	for line := range strings.Lines(src) {
		fields := strings.Fields(line)
		if len(fields) < 2 || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		var path string
		switch fields[0] {
		case "import", "import?":
			path = fields[1]
		case "mod", "mod?":
			if len(fields) < 3 {
				continue
			}
			path = fields[2]
		default:
			continue
		}
		name, ok := unquoted(path)
		unspelled = unspelled || !ok
		if name != "" && len(names) < maxEnvrcNames {
			names = append(names, name)
		}
	}
	return names, unspelled
}

// taskfileIncludes are the paths a Taskfile's includes: name (name: path,
// or its taskfile: path), within maxEnvrcNames, and whether one names a
// path the audit cannot spell.
func taskfileIncludes(src string) (names []string, unspelled bool) {
	in := false
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			in = strings.HasPrefix(trimmed, "includes:")
			continue
		}
		if !in {
			continue
		}
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok || value == "" || key == "dir" || key == "optional" || key == "internal" || key == "flatten" || key == "aliases" || key == "excludes" || key == "vars" {
			continue
		}
		name, ok := unquoted(strings.TrimSpace(value))
		unspelled = unspelled || !ok
		if name != "" && len(names) < maxEnvrcNames {
			names = append(names, name)
		}
	}
	return names, unspelled
}

// unquoted is a path as written, its quotes off, cleaned; "" for none;
// not ok for one the audit cannot spell: a template's, a variable's, or
// an absolute path (the tree's own, by the host's path).
func unquoted(s string) (string, bool) {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if s == "" {
		return "", true
	}
	if filepath.IsAbs(s) || strings.ContainsAny(s, "{}$") {
		return "", false
	}
	return filepath.Clean(s), true
}

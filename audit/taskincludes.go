package audit

import (
	"path/filepath"
	"slices"
	"strings"
)

// just reads the files a justfile imports (import? 'local.justfile') and
// the modules it declares (mod deploy 'deploy/tasks'), and Task the
// Taskfiles its includes: name, often ignored, by any name, as its own
// recipes, which the host's just and task run. So what the top's
// justfile and Taskfile name is judged as what an .envrc names: one the
// session made or changed that git does not track is a finding.

// taskFileNamed judges what the top's justfiles and Taskfiles include,
// and what those include in turn (each from its own directory).
func (w *walker) taskFileNamed() {
	w.judgeChain([]string{"justfile", "Justfile", ".justfile", "JUSTFILE"}, func(rel, src string) []string {
		return fromDir(rel, justImports(src))
	})
	var taskfiles []string
	for name := range taskFiles {
		if strings.HasPrefix(strings.ToLower(name), "taskfile") {
			taskfiles = append(taskfiles, name)
		}
	}
	slices.Sort(taskfiles)
	w.judgeChain(taskfiles, func(rel, src string) []string {
		return fromDir(rel, taskfileIncludes(src))
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
// maxEnvrcNames.
func justImports(src string) []string {
	var names []string
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
		if name := unquoted(path); name != "" && len(names) < maxEnvrcNames {
			names = append(names, name)
		}
	}
	return names
}

// taskfileIncludes are the paths a Taskfile's includes: name (name: path,
// or its taskfile: path), within maxEnvrcNames.
func taskfileIncludes(src string) []string {
	var names []string
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
		if name := unquoted(strings.TrimSpace(value)); name != "" && len(names) < maxEnvrcNames {
			names = append(names, name)
		}
	}
	return names
}

// unquoted is a path as written, its quotes off, cleaned; "" for one
// outside the tree, a template's or none.
func unquoted(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if s == "" || filepath.IsAbs(s) || strings.ContainsAny(s, "{}$") {
		return ""
	}
	return filepath.Clean(s)
}

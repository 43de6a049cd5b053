package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTaskFileIncludesNamed(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "justfile"), []byte("import? 'local.justfile'\nimport \"shared/rules\"\nmod? deploy 'deploy/tasks'\n# import 'commented'\nbuild:\n\techo import 'recipe'\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "Taskfile.yml"), []byte("version: '3'\nincludes:\n  local: ./Taskfile.local.yml\n  docs:\n    taskfile: \"docs/tasks.yaml\"\n    optional: true\ntasks:\n  x:\n    cmds: [echo other.yml]\n"), 0o644))
	// One it imports, there at the start, imports another from its own directory.
	must(t, os.MkdirAll(filepath.Join(root, "shared"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "shared/base.just"), []byte("import? 'site'\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "justfile"), []byte("import 'shared/base.just'\nimport? 'local.justfile'\nimport \"shared/rules\"\nmod? deploy 'deploy/tasks'\n# import 'commented'\nbuild:\n\techo import 'recipe'\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"local.justfile", "shared/rules", "shared/site", "deploy/tasks", "commented", "recipe", "Taskfile.local.yml", "docs/tasks.yaml", "other.yml"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"Taskfile.local.yml", "deploy/tasks", "docs/tasks.yaml", "local.justfile", "shared/rules", "shared/site"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// TestNestedTaskFileIncludesNamed: just and task run from a package's
// directory in a monorepo read the justfile or Taskfile there (just looks
// upward from it), and Bazel a nested workspace's .bazelrc: what those
// import was judged only for the top's. And an include the audit cannot
// spell (Task's {{.TASKFILE_DIR}}/local.yml, a variable's) may be any
// file the session wrote that git ignores.
func TestNestedTaskFileIncludesNamed(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "pkg/api"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "web"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "examples/ws"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "tmpl"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "pkg/api/justfile"), []byte("import? 'justfile.local'\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "web/Taskfile.yml"), []byte("version: '3'\nincludes:\n  local:\n    taskfile: ./Taskfile.local.yml\n    optional: true\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "examples/ws/.bazelrc"), []byte("try-import %workspace%/.bazelrc.user\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "tmpl/Taskfile.yml"), []byte("version: '3'\nincludes:\n  local: '{{.TASKFILE_DIR}}/local.yml'\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{"pkg/api/justfile.local", "web/Taskfile.local.yml", "examples/ws/.bazelrc.user", "tmpl/local.yml"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"examples/ws/.bazelrc.user", "pkg/api/justfile.local", "web/Taskfile.local.yml"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	if want := []string{filepath.Join(root, "tmpl/Taskfile.yml")}; !slices.Equal(r.IncludesUnspelled, want) {
		t.Errorf("includes unspelled: %q, want %q", r.IncludesUnspelled, want)
	}
}

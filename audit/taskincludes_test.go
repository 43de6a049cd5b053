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

package probe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/bind"
)

// TestClaudeFlagFiles: a settings file claude's --settings names in the
// home is copied, and its hook's script named; one the project shows is
// left as it is, one in claudebox's state (which the sandbox can write)
// is neither copied nor read for what it names; inline JSON names what
// its kept part runs.
func TestClaudeFlagFiles(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".claudebox")
	proj := filepath.Join(home, "code", "app")
	settings := func(hook string) string {
		return `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"` + hook + `"}]}]}}`
	}
	for rel, content := range map[string]string{
		"conf/s.json":                  settings(filepath.Join(home, "bin", "hook.sh")),
		"code/app/s.json":              settings(filepath.Join(home, "bin", "project.sh")),
		".claudebox/projects/x/s.json": settings(filepath.Join(home, "bin", "planted.sh")),
		"bin/hook.sh":                  "#!/bin/sh\n",
		"bin/project.sh":               "#!/bin/sh\n",
		"bin/planted.sh":               "#!/bin/sh\n",
		"bin/inline.sh":                "#!/bin/sh\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(home, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []ClaudeArg{
		{Flag: "--settings", Path: filepath.Join(home, "conf", "s.json")},
		{Flag: "--settings", Path: filepath.Join(proj, "s.json")},
		{Flag: "--settings", Path: filepath.Join(state, "projects", "x", "s.json")},
		{Flag: "--settings", Path: settings(filepath.Join(home, "bin", "inline.sh"))},
	}
	copies, named, unshown := claudeFlagFiles(args, home, home, []string{proj}, []string{state}, bind.Secrets(home))
	if len(copies) != 1 || copies[0].Path != filepath.Join(home, "conf", "s.json") || copies[0].Flag != "--settings" {
		t.Errorf("copies = %+v, want the home's file alone", copies)
	}
	var names []string
	for _, n := range named {
		names = append(names, filepath.Base(n.path))
	}
	if len(names) != 2 || names[0] != "hook.sh" || names[1] != "inline.sh" {
		t.Errorf("named = %q, want hook.sh and inline.sh", names)
	}
	if len(unshown) != 1 || unshown[0].Path != filepath.Join(state, "projects", "x", "s.json") {
		t.Errorf("unshown = %+v, want the state's file", unshown)
	}
}

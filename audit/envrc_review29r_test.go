package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEnvrcSourceThroughLink: direnv sources a file, and the shell runs a
// program from a directory PATH_add names, through links, a directory's
// on the way too; the link the session made in place of the directory
// the .envrc names is found (moved aside, it takes what is behind it
// with it), for a file sourced, one it sources in turn, and a directory
// put on PATH.
func TestEnvrcSourceThroughLink(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DIRENV_CONFIG", t.TempDir())
	root := filepath.Join(home, "proj")
	for rel, content := range map[string]string{
		".envrc": "source_env conf/env.sh\nPATH_add tools/bin\nsource_env lib/env.sh\n", "conf/env.sh": "export A=1\n",
		"tools/bin/README": "x\n", "lib/env.sh": "source_env ../deep/more/env.sh\n", "deep/more/env.sh": "export B=1\n",
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for rel, content := range map[string]string{"team/env.sh": "touch /tmp/x\n", "team/bin/git": "#!/bin/sh\ntouch /tmp/x\n", "team/more/env.sh": "touch /tmp/x\n"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o755))
	}
	for _, dir := range []string{"conf", "tools", "deep"} {
		must(t, os.Rename(filepath.Join(root, dir), filepath.Join(root, dir+".old")))
		must(t, os.Symlink("team", filepath.Join(root, dir)))
	}
	r := Scan(root, since, nil, start, nil)
	for _, link := range []string{"conf", "tools", "deep"} {
		if !slices.Contains(foundBelow(t, root, r), link) {
			t.Errorf("the session's link %s is not found: %q", link, foundBelow(t, root, r))
		}
	}
}

package audit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/projectfiles"
)

// TestAuditReadsTheRegistry: every name of the registry of what the host
// obeys, made by a session at the project's top and in a subdirectory
// (a file of that name, or a file inside a directory of that name), is
// found; a name that is no entry's is not.
func TestAuditReadsTheRegistry(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for i, e := range projectfiles.Entries {
		name := e.Name
		if e.Prefix {
			name += "x.yml"
		}
		if e.Suffix {
			name = "app" + name
		}
		// Half as files, half as directories with a file inside.
		for _, dir := range []string{"", "sub"} {
			path := filepath.Join(root, dir, name)
			if i%2 == 1 {
				write(t, filepath.Join(path, "hooks.json"))
			} else {
				write(t, path)
			}
			want = append(want, path)
		}
	}
	write(t, filepath.Join(root, "sub", "AGENTS.md"))
	r := Scan(root, since, nil, start, nil)
	for _, p := range want {
		if !slices.ContainsFunc(r.Found, func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") }) {
			t.Errorf("the audit does not find %s", p)
		}
	}
	if slices.Contains(r.Found, filepath.Join(root, "sub", "AGENTS.md")) {
		t.Errorf("AGENTS.md, content, was found")
	}
}

// TestAuditFoldsCase: in a directory whose names fold case, .CURSOR is the
// .cursor the host's Cursor opens, .GIT the .git its git does: made by the
// session, each is found, in a subdirectory too.
func TestAuditFoldsCase(t *testing.T) {
	root := testfs.CasefoldDir(t)
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	want := []string{filepath.Join(root, ".CURSOR", "mcp.json"), filepath.Join(root, "sub", ".EnvRC"), filepath.Join(root, "sub", "LeftHook.yml")}
	for _, p := range want {
		write(t, p)
	}
	write(t, filepath.Join(root, "sub", "repo", ".GIT", "hooks", "pre-commit"))
	write(t, filepath.Join(root, "sub", "repo", ".GIT", "HEAD"))
	write(t, filepath.Join(root, "sub", "repo", ".GIT", "objects", "x"))
	r := Scan(root, since, nil, start, nil)
	for _, p := range append(want, filepath.Join(root, "sub", "repo", ".GIT")) {
		if !slices.ContainsFunc(r.Found, func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") || strings.HasPrefix(p, f+"/") }) {
			t.Errorf("the audit does not find %s in a directory that folds case: %q", p, r.Found)
		}
	}
}

package gc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// TestSessionProject: a conversation is found in the instance of the
// project that holds it, in any folder of it, never in the asking
// project's own, nor where the sandbox wrote the instance's project-root
// to name another project, nor by an id that is a path.
func TestSessionProject(t *testing.T) {
	state := t.TempDir()
	const id = "0f9e8d7c-1111-2222-3333-444455556666"
	first, second, third := "/code/first", "/code/second", "/code/third"
	dir := makeInstance(t, state, first)
	sub := filepath.Join(dir, ClaudeProjectDir(first+"/pkg"))
	must(t, os.MkdirAll(sub, 0o700))
	must(t, os.WriteFile(filepath.Join(sub, id+".jsonl"), nil, 0o600))
	makeInstance(t, state, second)
	if got := SessionProject(state, id, second); got != first {
		t.Errorf("from %s: %q, want %q", second, got, first)
	}
	if got := SessionProject(state, id, first); got != "" {
		t.Errorf("from its own project: %q", got)
	}
	must(t, os.WriteFile(filepath.Join(dir, instance.RootFile), []byte(third+"\n"), 0o600))
	if got := SessionProject(state, id, second); got != "" {
		t.Errorf("an instance whose project-root names another project: %q", got)
	}
	if got := SessionProject(state, "../"+id, second); got != "" {
		t.Errorf("an id that is a path: %q", got)
	}
}

package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanClaudeCodeStandIns: what Claude Code's /sandbox screen makes in
// the project's git directory for its own sandbox and leaves (an empty
// glab-cli folder at the top, an empty .claude-sandbox-noreplace in info
// and in objects/info) is no finding: the end of every session that opened the screen moved
// them aside and named them. The same names holding something, or
// links, are findings as any other made there.
func TestScanClaudeCodeStandIns(t *testing.T) {
	for _, c := range []struct {
		name  string
		make  func(root string)
		found []string
	}{
		{"empty", func(root string) {
			must(t, os.Mkdir(filepath.Join(root, ".git", "glab-cli"), 0o755))
			must(t, os.WriteFile(filepath.Join(root, ".git", "info", ".claude-sandbox-noreplace"), nil, 0o644))
			must(t, os.WriteFile(filepath.Join(root, ".git", "objects", "info", ".claude-sandbox-noreplace"), nil, 0o644))
		}, nil},
		{"holding", func(root string) {
			write(t, filepath.Join(root, ".git", "glab-cli", "config.yml"))
			write(t, filepath.Join(root, ".git", "info", ".claude-sandbox-noreplace"))
			write(t, filepath.Join(root, ".git", "objects", "info", ".claude-sandbox-noreplace"))
		}, []string{".git/glab-cli", ".git/info/.claude-sandbox-noreplace", ".git/objects/info/.claude-sandbox-noreplace"}},
		{"link", func(root string) {
			must(t, os.Symlink(root, filepath.Join(root, ".git", "glab-cli")))
			must(t, os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, ".git", "info", ".claude-sandbox-noreplace")))
			must(t, os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, ".git", "objects", "info", ".claude-sandbox-noreplace")))
		}, []string{".git/glab-cli", ".git/info/.claude-sandbox-noreplace", ".git/objects/info/.claude-sandbox-noreplace"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for _, p := range []string{".git/HEAD", ".git/config", ".git/info/exclude", ".git/objects/info/packs", "a.txt"} {
				write(t, filepath.Join(root, p))
			}
			since := mark(t, t.TempDir())
			start := Take(root, since, nil, nil)
			c.make(root)
			r := Scan(root, since, nil, start, nil)
			var got []string
			for _, f := range r.Found {
				rel, _ := filepath.Rel(root, f)
				got = append(got, rel)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.found) {
				t.Errorf("found %q, want %q", got, c.found)
			}
		})
	}
}

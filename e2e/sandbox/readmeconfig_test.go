package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// readmeConfigExample returns the README's example config.toml, as
// printed there.
func readmeConfigExample(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```toml\n# ~/.config/claudebox/config.toml")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README's example config.toml is not where it was")
	}
	return "# ~/.config/claudebox/config.toml" + example
}

// TestReadmeConfigExampleRuns: the README's example config.toml, as
// written, launches on a machine where none of the paths it binds exist
// yet: each such bind is skipped with a one-line note. Once they exist,
// they are bound.
func TestReadmeConfigExampleRuns(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), readmeConfigExample(t))
	h.Chown()
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "echo started")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil || stdout.String() != "started\n" {
		t.Fatalf("the README's example fails a launch: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	for _, want := range []string{"claudebox: skipped --ro-bind ~/.rustup (from ", "claudebox: skipped --bind ~/.cargo/git (from "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no note %q:\n%s", want, stderr.String())
		}
	}
	h.Write(filepath.Join(h.Home, ".cargo", "git", "marker"), "host\n")
	h.Chown()
	if out := h.Inside(proj, nil, "cat ~/.cargo/git/marker"); out != "host\n" {
		t.Errorf("~/.cargo/git, once it exists: %q", out)
	}
}

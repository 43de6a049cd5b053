package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/gitconfig"
)

// TestGitConfigCopies: a git configuration holding a credential is copied
// without it, the rest kept; one holding none is not copied.
func TestGitConfigCopies(t *testing.T) {
	home := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".config/git/config", "[alias]\n\tco = checkout\n")
	if copies, _ := gitConfigCopies(home); len(copies) != 0 {
		t.Errorf("copies of a configuration without a credential: %v", copies)
	}
	write(".gitconfig", `[user]
	name = Alice
[url "https://alice:TOKEN1@github.com/"]
	insteadOf = https://github.com/
[http]
	extraHeader = Authorization: Bearer TOKEN2
[sendemail]
	smtpPass = TOKEN3
[credential]
	helper = "!f() { echo password=TOKEN4; }; f"
[github]
	token = TOKEN5
[alias]
	co = checkout
`)
	copies, covered := gitConfigCopies(home)
	if len(copies) != 1 || !covered[filepath.Join(home, ".gitconfig")] {
		t.Fatalf("copies %v, covering %v", copies, covered)
	}
	if strings.Contains(copies[0].Content, "TOKEN") {
		t.Errorf("the copy holds a credential:\n%s", copies[0].Content)
	}
	entries, err := gitconfig.Parse([]byte(copies[0].Content))
	if err != nil || gitconfig.Last(entries, "user.name") != "Alice" || gitconfig.Last(entries, "alias.co") != "checkout" {
		t.Errorf("the copy lost what it should keep (%v):\n%s", err, copies[0].Content)
	}
}

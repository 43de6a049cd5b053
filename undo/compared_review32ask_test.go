package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// manyCompared commits 100 more files to p's checkout, under compared/:
// an index past comparedAskFrom, whose files the exit asks git how it
// compares.
func manyCompared(tb testing.TB, p instance.Project) {
	tb.Helper()
	dir := filepath.Join(p.Checkout, "compared")
	os.MkdirAll(dir, 0o755)
	for i := range 100 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%03d.go", i)), []byte("package compared\n"), 0o644)
	}
	gitIn(tb, p, "add", "compared")
	gitIn(tb, p, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "compared")
}

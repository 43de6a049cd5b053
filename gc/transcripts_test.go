package gc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneTranscriptReader: gc reads Claude Code's transcripts only
// through the transcript package (transcript.Count, ProjectDir), which
// holds their layout and their hostile-input bounds: none of gc's sources
// names a transcript's .jsonl (the prompt history is not one).
func TestOneTranscriptReader(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, ".jsonl") && lit.Value != `"history.jsonl"` {
				t.Errorf("%s names %s: transcripts are read through the transcript package", name, lit.Value)
			}
			return true
		})
	}
}

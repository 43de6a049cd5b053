package audit

import (
	"crypto/sha3"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanAnnexSHA3Objects: an object git-annex keeps under a SHA3 key
// (SHA3_256E, SHA3_512) that holds what its key says is git-annex's own:
// the host's git annex add under that backend during a session had it
// moved aside at the exit, the file's only copy. One that holds other
// content is a finding.
func TestScanAnnexSHA3Objects(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git/HEAD"))
	write(t, filepath.Join(root, ".git/objects/x"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	object := func(content, key string) string {
		rel := filepath.Join(".git/annex/objects/pX/3Q", key, key)
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, rel), []byte(content), 0o444))
		return rel
	}
	data := "the user's data\n"
	object(data, fmt.Sprintf("SHA3_256E-s%d--%x.bin", len(data), sha3.Sum256([]byte(data))))
	object(data, fmt.Sprintf("SHA3_512-s%d--%x", len(data), sha3.Sum512([]byte(data))))
	forged := object("the sandbox's!!\n", fmt.Sprintf("SHA3_256E-s%d--%x.sh", len(data), sha3.Sum256([]byte(data))))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	if want := []string{forged}; !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}

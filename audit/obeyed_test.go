package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanObeyedNames: a .env (the host's gemini loads it) written or
// changed at any depth is found; one unchanged since the start, and a
// directory of that name, are not; a snapshot taken without the name is
// not trusted for it.
func TestScanObeyedNames(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".env", "lib/.env", "web/.env", "conf/.env"} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	obeyed := []string{".env"}
	start := Take(root, since, obeyed, nil)
	unaware := Take(root, since, nil, nil)
	for _, p := range []string{"sub/deep/.env", "web/src/x.go"} {
		write(t, filepath.Join(root, p))
	}
	// Rewritten in place: conf's entries stay the start's.
	for _, p := range []string{"web/.env", "conf/.env"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte("BASH_ENV=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "venv/.env/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "conf/.env"), filepath.Join(root, "sub/deep/.env"), filepath.Join(root, "web/.env")}
	for name, s := range map[string]*Snapshot{"snapshot": start, "snapshot without the name": unaware, "no snapshot": nil} {
		if r := Scan(root, since, nil, s, obeyed); !slices.Equal(r.Found, want) {
			t.Errorf("%s: found %q, want %q", name, r.Found, want)
		}
	}
	if r := Scan(root, since, nil, start, nil); len(r.Found) != 0 {
		t.Errorf("without gemini on the host: found %q", r.Found)
	}
}

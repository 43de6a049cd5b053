package audit

import (
	"net"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanTopSocket: a socket the session made at the project's top is a
// finding (the next launch refuses a project whose top holds one); one
// that was there at the start, and one deeper, are not.
func TestScanTopSocket(t *testing.T) {
	root := t.TempDir()
	listen := func(rel string) {
		t.Helper()
		l, err := net.Listen("unix", filepath.Join(root, rel))
		if err != nil {
			t.Skip(err)
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close()
	}
	write(t, filepath.Join(root, "src", "main.go"))
	listen("old.sock")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	listen("app.sock")
	listen("src/dev.sock")
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	if want := []string{"app.sock"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

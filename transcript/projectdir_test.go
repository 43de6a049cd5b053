package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProjectDirHostile: --move reads a project directory's transcripts
// as the hostile files they are, through this package alone (gc holds no
// reader of its own): a FIFO is never opened blocking, a link is not
// followed, a record over maxLine is skipped and never held, and only a
// transcript's first records are looked through; each counts by its
// name, as --list counts them.
func TestProjectDirHostile(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "-p")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(elsewhere, []byte(`{"cwd":"/linked"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(project, "a.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(project, "b.jsonl")); err != nil {
		t.Fatal(err)
	}
	write("c.jsonl", `{"cwd":"/long","x":"`+strings.Repeat("x", maxLine)+`"}`+"\n")
	write("d.jsonl", strings.Repeat("{}\n", cwdRecords)+`{"cwd":"/late"}`+"\n")
	write("notes.txt", `{"cwd":"/not-a-transcript"}`+"\n")

	done := make(chan struct{})
	var count int
	var cwd string
	go func() {
		count, cwd = ProjectDir(dir, "-p")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("ProjectDir blocked on a FIFO")
	}
	if cwd != "" {
		t.Errorf("cwd %q: read through a link, a long record or past the first records", cwd)
	}
	// c and d: the FIFO and the link are no transcripts.
	if count != 2 || Count(dir) != 2 {
		t.Errorf("counted %d in the directory, %d in the instance; want 2", count, Count(dir))
	}
	write("e.jsonl", "not json\n"+`{"type":"user","cwd":"/p/sub"}`+"\n")
	if _, cwd := ProjectDir(dir, "-p"); cwd != "/p/sub" {
		t.Errorf("cwd %q, want /p/sub", cwd)
	}
}

// TestProjectDirLooksAtFew: --move read every transcript of a project
// directory until one recorded a working directory; the sandbox can leave
// 200,000 that record none, which held --move 95 s. Only the first
// maxCwdLooks, in the directory's order, are read: the cwd of the last
// is not found.
func TestProjectDirLooksAtFew(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "-p")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 4 * maxCwdLooks {
		if err := os.WriteFile(filepath.Join(project, strings.Repeat("a", i+1)+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d, err := os.Open(project)
	if err != nil {
		t.Fatal(err)
	}
	order, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, order[len(order)-1]), []byte(`{"cwd":"/p"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	count, cwd := ProjectDir(dir, "-p")
	if count != 4*maxCwdLooks {
		t.Errorf("counted %d, want %d", count, 4*maxCwdLooks)
	}
	if cwd != "" {
		t.Errorf("cwd %q: read the transcript listed last, past the first %d", cwd, maxCwdLooks)
	}
}

package evalrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPatchApplies: the patch of a run's changes (a file changed, one
// without a final newline, one created executable, one removed, a link
// made, a name with a newline and an escape) is one git apply takes, and
// applied to the project it gives what the run left.
func TestPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	project, ws := filepath.Join(base, "project"), filepath.Join(base, "ws")
	long := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	for path, content := range map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n", "sub/c.txt": "c\n", "long.txt": long, "end.txt": "a\nb"} {
		os.MkdirAll(filepath.Join(project, filepath.Dir(path)), 0o755)
		os.WriteFile(filepath.Join(project, path), []byte(content), 0o644)
	}
	os.Mkdir(ws, 0o700)
	staged := manifest{}
	if err := copyTree(project, ws, "", staged); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\nTWO"), 0o644)
	os.Remove(filepath.Join(ws, "gone.txt"))
	os.WriteFile(filepath.Join(ws, "long.txt"), []byte(strings.Replace(long, "5\n", "five\nFIVE\n", 1)), 0o644)
	os.WriteFile(filepath.Join(ws, "end.txt"), []byte("a\nb\nc\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(ws, "odd\n\x1b[2Jname"), []byte("odd\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "bidi\u202e\u009b\u00e9.txt"), []byte("bidi\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "crlf.txt"), []byte("a\r\nb\r\n"), 0o644)
	os.Symlink("sub/c.txt", filepath.Join(ws, "link"))
	after, skips := scan(ws)
	if len(skips) > 0 {
		t.Fatalf("skipped: %v", skips)
	}
	p := patch(ws, changes(staged, after))
	if strings.ContainsAny(string(p), "\x1b\u202e\u009b") {
		t.Errorf("the patch holds a raw control:\n%q", p)
	}
	if !strings.Contains(string(p), "+a\r\n+b\r\n") {
		t.Errorf("crlf.txt is not shown as text:\n%q", p)
	}
	if !strings.Contains(string(p), "@@ -2,7 +2,8 @@\n 2\n 3\n 4\n-5\n+five\n+FIVE\n 6\n 7\n 8\n") {
		t.Errorf("long.txt's hunk is not the changed line with 3 of context:\n%s", p)
	}
	os.WriteFile(filepath.Join(base, "changes.patch"), p, 0o644)
	cmd := exec.Command("git", "apply", "--unsafe-paths", filepath.Join(base, "changes.patch"))
	cmd.Dir = project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v: %s\n%s", err, out, p)
	}
	got, _ := scan(project)
	for name, f := range after {
		if g, ok := got[name]; !ok || g.sum != f.sum || g.link != f.link || g.target != f.target || !f.link && g.mode != f.mode {
			t.Errorf("%q after git apply: %+v, want %+v", name, g, f)
		}
	}
	if len(got) != len(after) {
		t.Errorf("after git apply: %d files, want %d", len(got), len(after))
	}
}

func TestReadStream(t *testing.T) {
	stream := `{"type":"system","subtype":"init","claude_code_version":"2.1.330","model":"m1","session_id":"s1"}
not json
{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","name":"Skill","input":{"skill":"evalskill"}}]}}
{"type":"assistant","message":{"content":"` + strings.Repeat("x", lineLimit) + `"}}
{"type":"result","subtype":"success","total_cost_usd":0.5,"usage":{"input_tokens":3},"num_turns":2,"duration_ms":7,"duration_api_ms":5,"is_error":false,"session_id":"s1"}
`
	var m metrics
	m.readStream(strings.NewReader(stream))
	if m.ClaudeCode != "2.1.330" || m.Model != "m1" || m.SessionID != "s1" || m.CostUSD == nil || *m.CostUSD != 0.5 ||
		m.NumTurns == nil || *m.NumTurns != 2 || m.DurationMS == nil || *m.DurationMS != 7 || string(m.Usage) != `{"input_tokens":3}` || m.Result != "success" ||
		len(m.SkillsInvoked) != 1 || m.SkillsInvoked[0] != "evalskill" {
		t.Errorf("metrics from the stream: %+v", m)
	}
	call := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"` + strings.Repeat("é", skillNameLimit) + `"}}]}}` + "\n"
	m = metrics{}
	m.readStream(strings.NewReader(strings.Repeat(call, skillsLimit+3)))
	if len(m.SkillsInvoked) != skillsLimit || m.SkillsNotListed != 3 || m.SkillsInvoked[0] != strings.Repeat("é", skillNameLimit/2)+"…" {
		t.Errorf("a flood of Skill calls: %d listed, %d not, the first %q", len(m.SkillsInvoked), m.SkillsNotListed, m.SkillsInvoked[0])
	}
}

// TestCopyKeepsHoles: a 256 MiB sparse file in the project is copied into
// the workspace as sparse, the same size and content.
func TestCopyKeepsHoles(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	f, _ := os.Create(src)
	f.WriteAt([]byte("head"), 0)
	f.WriteAt([]byte("tail"), 256<<20)
	f.Close()
	want, err := copyFile(dir, "src", dst)
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	unix.Stat(dst, &st)
	if st.Size != 256<<20+4 || st.Blocks*512 > 1<<20 {
		t.Errorf("the copy: %d bytes in %d blocks, want %d bytes, sparse", st.Size, st.Blocks, 256<<20+4)
	}
	got, _ := copyFile(dir, "dst", filepath.Join(dir, "again"))
	if got.sum != want.sum {
		t.Errorf("the copy's content differs")
	}
}

// TestCopyHugeSparse: a sparse file of a terabyte, which a sandbox can
// leave in the project in one call, is staged without reading its holes:
// read, a terabyte of zeros took the eval tens of minutes per run.
func TestCopyHugeSparse(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("head"), 0)
	if _, err := f.WriteAt([]byte("tail"), 1<<40); err != nil {
		t.Skipf("this filesystem holds no file of a terabyte: %v", err)
	}
	f.Close()
	done := make(chan error, 1)
	go func() {
		_, err := copyFile(dir, "src", dst)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the copy is still reading the holes after a minute")
	}
	g, _ := os.Open(dst)
	defer g.Close()
	head, tail := make([]byte, 4), make([]byte, 4)
	g.ReadAt(head, 0)
	g.ReadAt(tail, 1<<40)
	if string(head) != "head" || string(tail) != "tail" {
		t.Errorf("the copy holds %q … %q", head, tail)
	}
}

// TestCopyFileRefusesSwapped: what the walk listed as a regular file of
// the project and a sandbox (of a session running beside the eval)
// swapped for a symlink to a secret, or for a FIFO, is refused at once,
// and nothing of the secret is copied.
func TestCopyFileRefusesSwapped(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	os.Mkdir(project, 0o755)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("SECRET"), 0o600)
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(project, "link"))
	unix.Mkfifo(filepath.Join(project, "fifo"), 0o644)
	for _, name := range []string{"link", "fifo"} {
		done := make(chan error, 1)
		go func() {
			_, err := copyFile(project, name, filepath.Join(dir, "copy-"+name))
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s was copied", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("copying %s hangs", name)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "copy-"+name)); strings.Contains(string(b), "SECRET") {
			t.Errorf("the copy of %s holds the secret", name)
		}
	}
}

// A staged file's source that a session of its project turned into a
// FIFO after the run started is not read (it would block --eval for good):
// the patch shows it as not the same.
func TestStagedContentFIFO(t *testing.T) {
	src := filepath.Join(t.TempDir(), "fixture.txt")
	if err := unix.Mkfifo(src, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		_, ok := stagedContent(entry{src: src})
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO's content was staged")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stagedContent blocks on a FIFO")
	}
}

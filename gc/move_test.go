package gc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/unprivileged"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// addSession writes a transcript of Claude Code's for the working
// directory cwd into the instance dir.
func addSession(t *testing.T, dir, cwd, name string) string {
	t.Helper()
	p := filepath.Join(dir, ClaudeProjectDir(cwd), name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o700))
	must(t, os.WriteFile(p, []byte(`{"type":"summary"}`+"\n"+`{"cwd":"`+cwd+`","type":"user"}`+"\n"), 0o600))
	return p
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// TestMove: the instance is re-keyed to the new root and each of Claude
// Code's directories named after a working directory under the old root
// is renamed after the same directory under the new one, as its
// transcripts say; what the sandbox wrote in a transcript cannot make a
// rename leave the instance.
func TestMove(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/place/proj"
	oldDir := makeInstance(t, state, oldRoot)
	addSession(t, oldDir, oldRoot+"/sub/dir", "s2.jsonl")
	addSession(t, oldDir, "/elsewhere/worktree", "s3.jsonl") // outside the root: keeps its name
	// A transcript whose cwd climbs out: the new name is still one name.
	addSession(t, oldDir, oldRoot+"/../../etc", "s4.jsonl")
	// What the sandbox may leave: a FIFO and a link as transcripts, whose
	// cwd would say otherwise; a transcript with a 20 MB line.
	linked := filepath.Join(t.TempDir(), "t.jsonl")
	must(t, os.WriteFile(linked, []byte(`{"cwd":"/old/proj/linked"}`+"\n"), 0o600))
	odd := filepath.Join(oldDir, "-somewhere-else")
	must(t, os.Mkdir(odd, 0o700))
	must(t, unix.Mkfifo(filepath.Join(odd, "a.jsonl"), 0o600))
	must(t, os.Symlink(linked, filepath.Join(odd, "b.jsonl")))
	must(t, os.WriteFile(filepath.Join(odd, "c.jsonl"), []byte(`{"cwd":"/old/proj/long","x":"`+strings.Repeat("x", 20<<20)+`"}`), 0o600))
	must(t, os.WriteFile(filepath.Join(oldDir, "history.jsonl"), []byte("{}\n"), 0o600))
	// A placeholder a killed supervisor left, recorded under the old hash.
	standIn := filepath.Join(t.TempDir(), ".envrc")
	must(t, os.WriteFile(standIn, nil, 0))
	lock, err := instance.OpenLock(oldDir)
	must(t, err)
	lock.Close()
	must(t, instance.RecordPlaceholders(oldDir, []string{standIn}))

	oldCaches, newCaches := instance.CachesDir(state, oldRoot), instance.CachesDir(state, newRoot)
	must(t, instance.EnsureCaches(state, oldRoot, []string{"go-mod"}))
	must(t, os.WriteFile(filepath.Join(oldCaches, "go-mod", "m"), nil, 0o600))

	var res MoveResult
	withinTime(t, "Move", func() { res, err = Move(state, oldRoot, newRoot, false) })
	if err != nil {
		t.Fatal(err)
	}
	if !paths.Exists(filepath.Join(newCaches, "go-mod", "m")) || paths.Exists(oldCaches) {
		t.Error("the caches did not move with the instance")
	}
	newDir := instance.Dir(state, newRoot)
	if res.from != oldDir || res.To != newDir || res.Transcripts != 3 || res.conflicts != nil || res.Repairs != nil {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Lstat(oldDir); err == nil {
		t.Error("the old instance is still there")
	}
	if _, err := os.Lstat(standIn); err == nil {
		t.Error("the old instance's placeholder is still there")
	}
	if got := readString(t, filepath.Join(newDir, instance.RootFile)); got != newRoot+"\n" {
		t.Errorf("project-root %q", got)
	}
	want := []string{
		ClaudeProjectDir("/elsewhere/worktree"),
		ClaudeProjectDir(newRoot),
		ClaudeProjectDir(newRoot + "/../../etc"),
		ClaudeProjectDir(newRoot + "/sub/dir"),
		"-somewhere-else",
		"history.jsonl",
		instance.RootFile,
	}
	slices.Sort(want)
	if got := names(t, newDir); !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
}

// TestMoveNames: "-" stands for "/" and for itself in a directory's name,
// so a transcript's cwd decides; a directory without one is renamed only
// when it bears the old root's own name.
func TestMoveNames(t *testing.T) {
	oldRoot, newRoot := "/old/my-proj", "/new/proj"
	for _, tc := range []struct {
		name string
		cwd  string // of the transcript, if any
		want string
	}{
		{ClaudeProjectDir(oldRoot), oldRoot, ClaudeProjectDir(newRoot)},
		{ClaudeProjectDir(oldRoot), "/old/my/proj", ClaudeProjectDir(oldRoot)}, // another directory of the same name
		{ClaudeProjectDir(oldRoot), "", ClaudeProjectDir(newRoot)},
		{ClaudeProjectDir(oldRoot + "/sub"), "", ClaudeProjectDir(oldRoot + "/sub")},
	} {
		state := t.TempDir()
		dir := instance.Dir(state, oldRoot)
		must(t, os.MkdirAll(filepath.Join(dir, tc.name), 0o700))
		must(t, os.WriteFile(filepath.Join(dir, instance.RootFile), []byte(oldRoot+"\n"), 0o600))
		if tc.cwd != "" {
			must(t, os.WriteFile(filepath.Join(dir, tc.name, "s.jsonl"), []byte(`{"cwd":"`+tc.cwd+`"}`+"\n"), 0o600))
		}
		if _, err := Move(state, oldRoot, newRoot, false); err != nil {
			t.Fatal(err)
		}
		if got := names(t, instance.Dir(state, newRoot)); !slices.Equal(got, []string{tc.want, instance.RootFile}) {
			t.Errorf("%s with cwd %q: %q, want %s", tc.name, tc.cwd, got, tc.want)
		}
	}
}

func TestMoveRefusals(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir := makeInstance(t, state, oldRoot)
	if _, err := Move(state, oldRoot, oldRoot, false); err == nil {
		t.Error("a move onto itself: no error")
	}
	if _, err := Move(state, "/never/was", newRoot, false); err == nil || !strings.Contains(err.Error(), "no instance of /never/was") {
		t.Errorf("no instance: %v", err)
	}
	newDir := makeInstance(t, state, newRoot)
	before := snapshot(t, ProjectsDir(state))
	if _, err := Move(state, oldRoot, newRoot, false); !errors.Is(err, ErrExists) {
		t.Errorf("onto an instance without merge: %v", err)
	}
	for _, held := range []string{oldDir, newDir} {
		lock, err := instance.OpenLock(held)
		must(t, err)
		must(t, instance.LockShared(lock))
		if _, err := Move(state, oldRoot, newRoot, true); !errors.Is(err, ErrInUse) {
			t.Errorf("a session in %s: %v", held, err)
		}
		lock.Close()
	}
	if got := snapshot(t, ProjectsDir(state)); !slices.Equal(got, before) {
		t.Errorf("a refused move changed the state:\n%q\nwant\n%q", got, before)
	}
}

// TestMoveAgain: a move interrupted after the re-keying rename is finished
// by the next one.
func TestMoveAgain(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	makeInstance(t, state, oldRoot)
	must(t, os.Rename(instance.Dir(state, oldRoot), instance.Dir(state, newRoot)))
	if _, err := Move(state, oldRoot, newRoot, false); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(instance.Dir(state, newRoot), instance.RootFile)); got != newRoot+"\n" {
		t.Errorf("project-root %q", got)
	}
}

// TestMoveRepairs: an instance the sandbox made mode 000 is given its
// permissions back, and says so, also when claudebox does not run as root
// (which reads it all the same).
func TestMoveRepairs(t *testing.T) {
	state := t.TempDir()
	oldDir := makeInstance(t, state, "/old/proj")
	must(t, os.Chmod(oldDir, 0))
	var res MoveResult
	var err error
	unprivileged.Do(t, func() { res, err = Move(state, "/old/proj", "/new/proj", false) })
	if err != nil || len(res.Repairs) != 1 || !strings.Contains(res.Repairs[0], oldDir) {
		t.Fatalf("%+v, %v", res, err)
	}
}

// TestMoveMerge: the old sessions join the new root's instance; a file of
// the same name stays the new one's, and the old one is left and named;
// the old prompt history goes first.
func TestMoveMerge(t *testing.T) {
	for _, tc := range []struct {
		name               string
		oldHistory, newHis string
		want               string
	}{
		{"both", "{\"old\":1}", "{\"new\":1}\n", "{\"old\":1}\n{\"new\":1}\n"},
		{"old only", "{\"old\":1}\n", "", "{\"old\":1}\n"},
		{"new only", "", "{\"new\":1}\n", "{\"new\":1}\n"},
		{"old one a FIFO", "FIFO", "{\"new\":1}\n", "{\"new\":1}\n"}, // the sandbox's: no prompts, no hang
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			oldRoot, newRoot := "/old/proj", "/new/proj"
			oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
			must(t, os.Remove(filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")))
			addSession(t, oldDir, oldRoot, "s2.jsonl")
			addSession(t, oldDir, oldRoot+"/sub", "s3.jsonl")
			for dir, h := range map[string]string{oldDir: tc.oldHistory, newDir: tc.newHis} {
				switch h {
				case "":
				case "FIFO":
					must(t, unix.Mkfifo(filepath.Join(dir, historyFile), 0o600))
				default:
					must(t, os.WriteFile(filepath.Join(dir, historyFile), []byte(h), 0o600))
				}
			}
			var err error
			withinTime(t, "Move", func() { _, err = Move(state, oldRoot, newRoot, true) })
			if err != nil {
				t.Fatalf("%v", err)
			}
			if _, err := os.Lstat(oldDir); err == nil {
				t.Error("the old instance is still there")
			}
			if got := names(t, filepath.Join(newDir, ClaudeProjectDir(newRoot))); !slices.Equal(got, []string{"s1.jsonl", "s2.jsonl"}) {
				t.Errorf("sessions %q", got)
			}
			if got := names(t, filepath.Join(newDir, ClaudeProjectDir(newRoot+"/sub"))); !slices.Equal(got, []string{"s3.jsonl"}) {
				t.Errorf("sessions of sub %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(newDir, historyFile)); string(got) != tc.want {
				t.Errorf("history %q, want %q", got, tc.want)
			}
		})
	}
}

// TestMoveMergeConflicts: an old session whose name the new instance has,
// or whose directory the sandbox replaced in the new instance with a link
// out, is left in the old instance and named; nothing lands through the
// link, nothing is overwritten, the old instance stays.
func TestMoveMergeConflicts(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
	// s1.jsonl exists in both (makeInstance); the old one says "old".
	oldS1 := filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")
	must(t, os.WriteFile(oldS1, []byte(`{"cwd":"/old/proj","v":"old"}`+"\n"), 0o600))
	newS1 := filepath.Join(newDir, ClaudeProjectDir(newRoot), "s1.jsonl")
	newS1Content := readString(t, newS1)
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(newDir, ClaudeProjectDir(newRoot+"/sub"))))
	addSession(t, oldDir, oldRoot+"/sub", "s3.jsonl")
	must(t, unix.Mkfifo(filepath.Join(oldDir, historyFile), 0o600))

	var res MoveResult
	var err error
	withinTime(t, "Move", func() { res, err = Move(state, oldRoot, newRoot, true) })
	if err == nil || len(res.conflicts) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	joined := strings.Join(res.conflicts, "\n")
	if !strings.Contains(joined, "s1.jsonl: "+instance.Hash(newRoot)+" has one of that name") || !strings.Contains(joined, "s3.jsonl: ") {
		t.Errorf("conflicts %q", res.conflicts)
	}
	if got := readString(t, newS1); got != newS1Content {
		t.Errorf("the new session was overwritten: %q", got)
	}
	// Renamed after the new root in the old instance, where it is left.
	oldS1 = filepath.Join(oldDir, ClaudeProjectDir(newRoot), "s1.jsonl")
	if got := readString(t, oldS1); !strings.Contains(got, `"old"`) {
		t.Errorf("the old session is lost: %q", got)
	}
	if got := names(t, outside); len(got) != 0 {
		t.Errorf("written through the link: %q", got)
	}
	if _, err := os.Lstat(oldDir); err != nil {
		t.Errorf("the old instance, holding what was not moved, is gone: %v", err)
	}
}

// TestMoveMergeHugeHistory: a prompt history too large to read stops the
// merge before either history is rewritten or the old instance removed.
func TestMoveMergeHugeHistory(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
	must(t, os.Remove(filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")))
	must(t, os.WriteFile(filepath.Join(oldDir, historyFile), []byte("{\"old\":1}\n"), 0o600))
	f, err := os.Create(filepath.Join(newDir, historyFile))
	must(t, err)
	must(t, f.Truncate(1<<40))
	f.Close()
	if _, err := Move(state, oldRoot, newRoot, true); !errors.Is(err, untrusted.ErrTooLarge) {
		t.Fatalf("a 1 TiB history: %v", err)
	}
	if got := readString(t, filepath.Join(oldDir, historyFile)); got != "{\"old\":1}\n" {
		t.Errorf("old history %q", got)
	}
	if fi, err := os.Stat(filepath.Join(newDir, historyFile)); err != nil || fi.Size() != 1<<40 {
		t.Errorf("new history rewritten: %v", err)
	}
}

// TestMoveCachesMerge: merged into an instance that has caches of its own,
// the old instance's caches go; a project's caches are never mixed.
func TestMoveCachesMerge(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir := makeInstance(t, state, oldRoot)
	makeInstance(t, state, newRoot)
	must(t, os.Remove(filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")))
	for _, root := range []string{oldRoot, newRoot} {
		must(t, instance.EnsureCaches(state, root, []string{"npm"}))
		must(t, os.WriteFile(filepath.Join(instance.CachesDir(state, root), "npm", root[1:4]), nil, 0o600))
	}
	if _, err := Move(state, oldRoot, newRoot, true); err != nil {
		t.Fatal(err)
	}
	if got := names(t, filepath.Join(instance.CachesDir(state, newRoot), "npm")); !slices.Equal(got, []string{"new"}) || paths.Exists(instance.CachesDir(state, oldRoot)) {
		t.Errorf("caches after the merge: %q", got)
	}
}

// TestMoveMergeAgents: the other agents' state joins the new instance
// where the new one's is empty (every launch makes it); where both hold
// sessions of one agent, the old one's is left and named; a link the
// sandbox left in the new instance is not written through.
func TestMoveMergeAgents(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
	must(t, os.Remove(filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")))
	agents := func(dir string, parts ...string) string {
		return filepath.Join(append([]string{dir, instance.AgentsDir}, parts...)...)
	}
	for _, dir := range []string{oldDir, newDir} {
		for _, d := range []string{"codex/sessions", "codex/sqlite", "gemini/tmp", "gemini/history"} {
			must(t, os.MkdirAll(agents(dir, d), 0o700))
		}
		must(t, os.WriteFile(agents(dir, "codex", "history.jsonl"), nil, 0o600))
	}
	must(t, os.MkdirAll(agents(oldDir, "codex", "sessions", "2026"), 0o700))
	must(t, os.WriteFile(agents(oldDir, "codex", "history.jsonl"), []byte("old prompt\n"), 0o600))
	must(t, os.WriteFile(agents(oldDir, "gemini", "tmp", "old-chat"), []byte("old\n"), 0o600))
	must(t, os.WriteFile(agents(newDir, "gemini", "tmp", "new-chat"), []byte("new\n"), 0o600))
	outside := t.TempDir()
	must(t, os.Remove(agents(newDir, "gemini", "history")))
	must(t, os.Symlink(outside, agents(newDir, "gemini", "history")))
	must(t, os.WriteFile(agents(oldDir, "gemini", "history", "h"), []byte("old\n"), 0o600))

	var res MoveResult
	var err error
	withinTime(t, "Move", func() { res, err = Move(state, oldRoot, newRoot, true) })
	if err == nil || len(res.conflicts) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	joined := strings.Join(res.conflicts, "\n")
	if !strings.Contains(joined, filepath.Join("gemini", "tmp")+": ") || !strings.Contains(joined, filepath.Join("gemini", "history")+": ") {
		t.Errorf("conflicts %q", res.conflicts)
	}
	if got := names(t, agents(newDir, "codex", "sessions")); !slices.Equal(got, []string{"2026"}) {
		t.Errorf("codex sessions %q", got)
	}
	if got := readString(t, agents(newDir, "codex", "history.jsonl")); got != "old prompt\n" {
		t.Errorf("codex history %q", got)
	}
	if got := names(t, agents(newDir, "gemini", "tmp")); !slices.Equal(got, []string{"new-chat"}) {
		t.Errorf("gemini tmp %q", got)
	}
	if got := names(t, outside); len(got) != 0 {
		t.Errorf("written through the link: %q", got)
	}
	if got := readString(t, agents(oldDir, "gemini", "tmp", "old-chat")); got != "old\n" {
		t.Errorf("the old chat is lost: %q", got)
	}
}

// TestMoveMergeUnreadableHistory: a prompt history the sandbox left with a
// hole (truncate -s 1T), or one over what a merge reads, made --move
// --merge stop after it had moved the old sessions into the new instance,
// leaving both half merged; one with a small hole was merged, its zeros
// written out as data. Proof: the merge refuses before it changes
// anything, naming the file.
func TestMoveMergeUnreadableHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
	}{{"huge", 1 << 40}, {"small with a hole", 1 << 20}} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			oldRoot, newRoot := "/old/proj", "/new/proj"
			oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
			must(t, os.Remove(filepath.Join(oldDir, ClaudeProjectDir(oldRoot), "s1.jsonl")))
			addSession(t, oldDir, oldRoot, "s2.jsonl")
			history := filepath.Join(oldDir, historyFile)
			must(t, os.WriteFile(history, []byte("{\"old\":1}\n"), 0o600))
			must(t, os.Truncate(history, tc.size))
			var err error
			withinTime(t, "Move", func() { _, err = Move(state, oldRoot, newRoot, true) })
			if err == nil || !strings.Contains(err.Error(), history) {
				t.Errorf("Move = %v, want a refusal naming %s", err, history)
			}
			if got := names(t, filepath.Join(oldDir, ClaudeProjectDir(oldRoot))); !slices.Equal(got, []string{"s2.jsonl"}) {
				t.Errorf("the old instance's sessions are %q: the refused merge moved them", got)
			}
			if got := names(t, filepath.Join(newDir, ClaudeProjectDir(newRoot))); !slices.Equal(got, []string{"s1.jsonl"}) {
				t.Errorf("the new instance's sessions are %q: the refused merge moved some", got)
			}
		})
	}
}

// TestMoveMergeNamesFewLeft: a merge that leaves many entries behind (the
// sandbox can make millions clash) names the first of them and counts
// the rest, in an error of bounded length.
func TestMoveMergeNamesFewLeft(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir, newDir := makeInstance(t, state, oldRoot), makeInstance(t, state, newRoot)
	for _, dir := range []string{oldDir, newDir} {
		must(t, os.Mkdir(filepath.Join(dir, "-flood"), 0o700))
		for i := range 500 {
			must(t, os.WriteFile(filepath.Join(dir, "-flood", fmt.Sprint(i)), nil, 0o600))
		}
	}
	res, err := Move(state, oldRoot, newRoot, true)
	if err == nil || len(res.conflicts) != leftNamed {
		t.Fatalf("%d named, %v", len(res.conflicts), err)
	}
	if msg := err.Error(); !strings.Contains(msg, "501 entries of") || !strings.Contains(msg, "and 481 more") || len(msg) > 4096 {
		t.Errorf("error of %d bytes: %.600s", len(msg), msg)
	}
}

// TestMoveRenamesEachOnce: --move reads the instance a part at a time
// (the sandbox can leave millions of entries there), so a directory it
// renamed must not be met again in the listing: 500 renamed are 500
// carried, and an interrupted run's renamed directories are put back.
func TestMoveRenamesEachOnce(t *testing.T) {
	state := t.TempDir()
	oldRoot, newRoot := "/old/proj", "/new/proj"
	oldDir := makeInstance(t, state, oldRoot)
	for i := range 500 {
		addSession(t, oldDir, fmt.Sprint(oldRoot, "/sub", i), "s.jsonl")
	}
	// An interrupted run's.
	addSession(t, filepath.Join(oldDir, movingDir), newRoot+"/done", "s.jsonl")
	res, err := Move(state, oldRoot, newRoot, false)
	if err != nil || res.Transcripts != 501 {
		t.Fatalf("%d transcripts carried, want 501: %v", res.Transcripts, err)
	}
	got := names(t, res.To)
	if len(got) != 503 || !slices.Contains(got, ClaudeProjectDir(newRoot+"/sub499")) || !slices.Contains(got, ClaudeProjectDir(newRoot+"/done")) {
		t.Errorf("%d entries: %.300q", len(got), got)
	}
}

// TestMovePlantedMovingName: a file or a symlink the sandbox left under
// the name --move parks directories in does not stop --move (it stopped
// it, naming the path, until the user removed it), and the symlink's
// target, outside the instance, is not touched.
func TestMovePlantedMovingName(t *testing.T) {
	for _, plant := range []string{"file", "symlink"} {
		t.Run(plant, func(t *testing.T) {
			state := t.TempDir()
			oldRoot, newRoot := "/old/proj", "/new/proj"
			oldDir := makeInstance(t, state, oldRoot)
			outside := filepath.Join(t.TempDir(), "kept")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			planted := filepath.Join(oldDir, movingDir)
			if plant == "file" {
				err := os.WriteFile(planted, []byte("x"), 0o644)
				if err != nil {
					t.Fatal(err)
				}
			} else if err := os.Symlink(outside, planted); err != nil {
				t.Fatal(err)
			}
			res, err := Move(state, oldRoot, newRoot, false)
			if err != nil || res.Transcripts != 1 {
				t.Fatalf("%d transcripts carried, want 1: %v", res.Transcripts, err)
			}
			if _, err := os.Lstat(filepath.Join(res.To, movingDir)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the planted %s is still there: %v", plant, err)
			}
			if _, err := os.Stat(outside); err != nil {
				t.Errorf("the symlink's target: %v", err)
			}
		})
	}
}

package session

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
)

// TestSayUnsaidMovesCopiedWhole: a supervisor killed while it removed
// from the project a directory it had copied whole to another filesystem
// left part of it in the project and the whole aside, which the next
// command did not name (only what was gone from the project was). Now it
// names where the whole is, and removes the copy a kill cut short.
func TestSayUnsaidMovesCopiedWhole(t *testing.T) {
	state, proj := t.TempDir(), t.TempDir()
	hash := instance.Hash(proj)
	mustDo(t, os.MkdirAll(filepath.Join(state, "live"), 0o700))
	mustDo(t, os.WriteFile(filepath.Join(state, "live", hash+".lock"), nil, 0o600))
	dest := filepath.Join(state, "moved-aside", hash, "20261130T000000.000Z")
	from, to := filepath.Join(proj, "pkg"), filepath.Join(dest, "pkg")
	mustDo(t, os.MkdirAll(from, 0o700))
	mustDo(t, os.WriteFile(filepath.Join(from, "b.js"), nil, 0o600))
	mustDo(t, os.MkdirAll(to, 0o700))
	mustDo(t, os.MkdirAll(filepath.Join(dest+audit.CopyingSuffix, "cut-short"), 0o700))
	b, err := json.Marshal([]audit.Moved{{From: from, To: to}})
	mustDo(t, err)
	mustDo(t, os.WriteFile(dest+unsaidSuffix, b, 0o600))
	r, w, err := os.Pipe()
	mustDo(t, err)
	stderr := os.Stderr
	os.Stderr = w
	SayUnsaidMoves(state)
	os.Stderr = stderr
	w.Close()
	said, _ := io.ReadAll(r)
	if !strings.Contains(string(said), from) || !strings.Contains(string(said), "is at "+to) {
		t.Errorf("not named where the whole is:\n%s", said)
	}
	if _, err := os.Lstat(dest + audit.CopyingSuffix); err == nil {
		t.Error("the copy cut short stays")
	}
}

// TestSayUnsaidMovesUnheard: words a closed terminal did not take (a
// write that fails) leave the record, for the next command to say.
func TestSayUnsaidMovesUnheard(t *testing.T) {
	state, proj := t.TempDir(), t.TempDir()
	mustDo(t, os.MkdirAll(filepath.Join(state, "live"), 0o700))
	mustDo(t, os.WriteFile(filepath.Join(state, "live", instance.Hash(proj)+".lock"), nil, 0o600))
	dest := filepath.Join(state, "moved-aside", instance.Hash(proj), "20261202T000000.000Z")
	from, to := filepath.Join(proj, ".envrc"), filepath.Join(dest, ".envrc")
	mustDo(t, os.MkdirAll(dest, 0o700))
	mustDo(t, os.WriteFile(to, nil, 0o600))
	RecordMoves(dest, []audit.Moved{{From: from, To: to}}, nil)
	closed, err := os.Open(os.DevNull)
	mustDo(t, err)
	defer closed.Close()
	stderr := os.Stderr
	defer func() { os.Stderr = stderr }()
	os.Stderr = closed
	SayUnsaidMoves(state)
	if _, err := os.Lstat(dest + unsaidSuffix); err != nil {
		t.Fatalf("the record of moves no one heard was forgotten: %v", err)
	}
	r, w, err := os.Pipe()
	mustDo(t, err)
	os.Stderr = w
	SayUnsaidMoves(state)
	w.Close()
	said, _ := io.ReadAll(r)
	if !strings.Contains(string(said), "to put it back: mv -n "+to+" "+from) {
		t.Errorf("the next command did not say the move:\n%s", said)
	}
	if _, err := os.Lstat(dest + unsaidSuffix); err == nil {
		t.Error("the record stays once said")
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadUnsaidBothFormats: a record keeps a name's bytes that are not
// UTF-8, and which moves are of what stood in another's way; one an older
// claudebox wrote is still read.
func TestReadUnsaidBothFormats(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "20261130T000000.000Z")
	moved := []audit.Moved{{From: "/p/sub\xff/.envrc", To: dest + "/sub\xff/.envrc"}}
	way := []audit.Moved{{From: "/p/sub\xff", To: dest + "/sub\xff"}}
	RecordMoves(dest, moved, way)
	b, err := os.ReadFile(dest + unsaidSuffix)
	mustDo(t, err)
	if got, inTheWay, err := readUnsaid(b); err != nil || !slices.Equal(got, moved) || !slices.Equal(inTheWay, way) {
		t.Errorf("read back %q, in the way %q, %v", got, inTheWay, err)
	}
	old, _ := json.Marshal([]audit.Moved{{From: "/p/abcd", To: "/q/abcd"}})
	if got, _, err := readUnsaid(old); err != nil || len(got) != 1 || got[0].From != "/p/abcd" {
		t.Errorf("an older record read as %q, %v", got, err)
	}
}

// TestExitVoiceKeepsUnheard: what the exit said to a terminal that took
// none of it is kept and said by the next command, once; what a terminal
// took is not kept.
func TestExitVoiceKeepsUnheard(t *testing.T) {
	state, proj := t.TempDir(), t.TempDir()
	dir := filepath.Join(state, instance.Hash(proj))
	mustDo(t, os.MkdirAll(filepath.Join(state, "live"), 0o700))
	mustDo(t, os.WriteFile(filepath.Join(state, "live", instance.Hash(proj)+".lock"), nil, 0o600))
	kept := func() []string {
		records, _ := filepath.Glob(filepath.Join(state, "moved-aside", "*", "*"+unheardSuffix))
		return records
	}
	stderr := os.Stderr
	defer func() { os.Stderr = stderr }()
	r, w, err := os.Pipe()
	mustDo(t, err)
	os.Stderr = w
	heardOne := newExitVoice()
	printable.Say(heardOne, "claudebox: heard")
	heardOne.keepUnheard(state, dir)
	if len(kept()) != 0 {
		t.Fatalf("what the terminal took was kept: %q", kept())
	}
	closed, err := os.Open(os.DevNull)
	mustDo(t, err)
	defer closed.Close()
	os.Stderr = closed
	unheard := newExitVoice()
	printable.Say(unheard, "claudebox: git holds for %s other content", "/p/.envrc\x1b[2J")
	printable.Say(unheard, "hint: read git diff")
	unheard.keepUnheard(state, dir)
	if len(kept()) != 1 {
		t.Fatalf("what no terminal took was not kept: %q", kept())
	}
	os.Stderr = w
	SayUnsaidMoves(state)
	SayUnsaidMoves(state)
	w.Close()
	said, _ := io.ReadAll(r)
	if got := strings.Count(string(said), `claudebox: git holds for /p/.envrc\x1b[2J other content`+"\nhint: read git diff\n"); got != 1 {
		t.Errorf("the next commands said the unheard lines %d times, want once, escaped:\n%s", got, said)
	}
	if got := strings.Count(string(said), "claudebox: heard\n"); got != 1 {
		t.Errorf("what the terminal took was said %d times, want once:\n%s", got, said)
	}
}

// TestUnsaidWaitsForRunningSession: the records of a project a session
// runs in (its exit may still say them, and writes them while it audits)
// are neither said nor forgotten by another command; once no session
// runs there, they are said.
func TestUnsaidWaitsForRunningSession(t *testing.T) {
	state, proj := t.TempDir(), t.TempDir()
	hash := instance.Hash(proj)
	mustDo(t, os.MkdirAll(filepath.Join(state, "live"), 0o700))
	lock, err := os.OpenFile(filepath.Join(state, "live", hash+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	mustDo(t, err)
	defer lock.Close()
	dest := filepath.Join(state, "moved-aside", hash, "20261202T000000.000Z")
	from, to := filepath.Join(proj, ".envrc"), filepath.Join(dest, ".envrc")
	mustDo(t, os.MkdirAll(dest, 0o700))
	mustDo(t, os.WriteFile(to, nil, 0o600))
	RecordMoves(dest, []audit.Moved{{From: from, To: to}}, nil)
	unheard := filepath.Join(state, "moved-aside", hash, "20261202T000000.000000000Z"+unheardSuffix)
	mustDo(t, os.WriteFile(unheard, []byte("claudebox: refs were moved\n"), 0o600))
	// What a writer killed mid-way left (atomicfile's temporary files).
	partial := []string{
		filepath.Join(filepath.Dir(unheard), "."+filepath.Base(unheard)+".claudebox-123"),
		filepath.Join(filepath.Dir(unheard), "."+filepath.Base(dest)+unsaidSuffix+".claudebox-456"),
	}
	for _, p := range partial {
		mustDo(t, os.WriteFile(p, []byte("claudebox: half"), 0o600))
	}
	say := func() string {
		r, w, err := os.Pipe()
		mustDo(t, err)
		stderr := os.Stderr
		os.Stderr = w
		SayUnsaidMoves(state)
		os.Stderr = stderr
		w.Close()
		said, _ := io.ReadAll(r)
		return string(said)
	}
	mustDo(t, instance.LockShared(lock))
	if said := say(); said != "" {
		t.Errorf("said while a session runs in the project:\n%s", said)
	}
	for _, record := range append([]string{dest + unsaidSuffix, unheard}, partial...) {
		if _, err := os.Lstat(record); err != nil {
			t.Errorf("%s forgotten while a session runs: %v", filepath.Base(record), err)
		}
	}
	mustDo(t, lock.Close())
	if said := say(); !strings.Contains(said, "refs were moved") || !strings.Contains(said, "to put it back: mv -n "+to+" "+from) || strings.Contains(said, "half") {
		t.Errorf("not said once no session runs, or a half-written record said:\n%s", said)
	}
	for _, p := range partial {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a half-written record stayed once no session runs: %s", filepath.Base(p))
		}
	}
}

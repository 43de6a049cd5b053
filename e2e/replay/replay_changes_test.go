package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayChanges: a session creates, changes and removes tracked,
// untracked and ignored files; git status shows the ignored ones not at
// all. Proof: the exit says how many files it changed in the ignored
// build/ that it did not name (its object files are moved aside and
// named; build/gone.o, removed, is counted), and claudebox --changes and --changes --json list exactly those
// ten, each with what happened to it, from the record the supervisor
// wrote: a tracked file touched but not changed is not one; an ignored
// one is (the start lists ignored files by name, not content). (The session waits for its start's snapshot, which the host sees
// written, so that nothing it writes is unknown.)
func TestReplayChanges(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "build/\n*.log\n")
	for _, f := range []string{"tracked.txt", "gone.txt", "same.txt", "notes.txt", "stale.txt", "build/old.o", "build/gone.o", "build/same.o", "old.log"} {
		h.Write(filepath.Join(proj, f), "start\n")
	}
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "tracked.txt", "gone.txt", "same.txt", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files")

	session := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		i=0
		until [ -e .git/snapshot-taken ]; do
			i=$((i + 1)); [ $i -lt 6000 ] || exit 9
			sleep 0.01
		done
		echo changed >tracked.txt; rm gone.txt stale.txt build/gone.o
		echo new >new.txt; echo changed >notes.txt
		echo changed >build/old.o; echo new >build/new.o; echo changed >old.log
		touch same.txt build/same.o`)
	var stderr bytes.Buffer
	session.Stderr = &stderr
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	undoDir := filepath.Join(h.Home, ".claudebox", "undo")
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if m, _ := filepath.Glob(filepath.Join(undoDir, "*", "*.snapshot")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the start's snapshot was not written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(proj, ".git", "snapshot-taken"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := session.Wait(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "claudebox: build/: 1 file changed, which git ignores\n") {
		t.Errorf("the exit does not say what changed in build/:\n%s", stderr.String())
	}

	want := []string{
		"build/gone.o removed ignored", "build/new.o created ignored", "build/old.o changed ignored", "build/same.o changed ignored",
		"gone.txt removed", "new.txt created", "notes.txt changed", "old.log changed ignored",
		"stale.txt removed", "tracked.txt changed",
	}
	out := h.Run(proj, nil, "claudebox", "--changes")
	// Each change's line, and where the exit moved aside what it made or
	// changed in build/ (object files), on the line after it.
	var lines, movedAside []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "moved" && len(lines) > 0:
			movedAside = append(movedAside, strings.Fields(lines[len(lines)-1])[0])
		case len(f) >= 2 && strings.HasPrefix(line, "  "):
			s := f[1] + " " + f[0]
			if len(f) == 3 && f[2] == "(ignored)" {
				s += " ignored"
			}
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	if !slices.Equal(lines, want) || !slices.Equal(movedAside, []string{"build/new.o", "build/old.o", "build/same.o"}) {
		t.Errorf("claudebox --changes:\n%s\nwant the lines of %q, and build/new.o, old.o and same.o moved aside", out, want)
	}

	var rec struct {
		Checkout string `json:"checkout"`
		Changes  []struct {
			Path    string `json:"path"`
			Change  string `json:"change"`
			Ignored bool   `json:"ignored"`
		} `json:"changes"`
		Incomplete []string `json:"incomplete"`
	}
	out = h.Run(proj, nil, "claudebox", "--changes", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("--changes --json: %v\n%s", err, out)
	}
	var got []string
	for _, c := range rec.Changes {
		s := c.Path + " " + c.Change
		if c.Ignored {
			s += " ignored"
		}
		got = append(got, s)
	}
	if !slices.Equal(got, want) || rec.Checkout != proj || len(rec.Incomplete) != 0 {
		t.Errorf("claudebox --changes --json:\n%s\nwant the changes %q", out, want)
	}
}

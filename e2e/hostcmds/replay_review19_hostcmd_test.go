package hostcmds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview19ManyTranscripts: --list-sessions, --export and
// --export-all read every transcript of the instance, whole, to list them
// or to find the latest; the sandbox writes the instance's history and
// can leave transcripts by the hundred thousand (200,000 of one line held
// --list-sessions 61 s at 178 MiB and printed every one; --export of one
// of them 66 s at 229 MiB). The attack,
// from inside: leave 1,500 transcripts beside an older real session.
// Proof: --list-sessions reads and lists the 1,000 written last, saying
// how many it left; the older session is still exported by its id.
func TestReplayReview19ManyTranscripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"PROMPT"}}`
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		echo '`+strings.ReplaceAll(turn, "PROMPT", "the real plan")+`' > $d/aaaaaaaa-0000-4000-8000-000000000001.jsonl
		touch -d 2026-01-01 $d/aaaaaaaa-0000-4000-8000-000000000001.jsonl
		for i in $(seq 10000 11499); do echo '`+turn+`' > $d/$i-0000-4000-8000-000000000001.jsonl; done
	`)
	out, err := h.Bounded(proj, "--list-sessions")
	if err != nil {
		t.Fatalf("--list-sessions: %v\n%s", err, out)
	}
	if rows := strings.Count(out, "-0000-4000-8000-"); rows > 1000 {
		t.Errorf("--list-sessions listed %d sessions, want at most the 1,000 written last", rows)
	}
	if !strings.Contains(out, "501 sessions not listed") {
		t.Errorf("--list-sessions does not say how many sessions it left:\n%s", out[max(0, len(out)-2000):])
	}
	if out := h.Run(proj, nil, "claudebox", "--export", "aaaaaaaa"); !strings.Contains(out, "the real plan") {
		t.Errorf("--export of the older session by its id:\n%s", out)
	}
}

// TestReplayReview19UnreadableLinkedFile: before the sandbox starts, a
// launch copies each file of node_modules, a virtualenv, a conda
// environment or git's objects that has a second name outside them. The
// attack, from inside: take the permissions away (chmod 000) of a conda
// environment's data file that has a second name elsewhere in the
// project, made while the session runs (by the host: the sandbox can no
// longer link, seccomp answers EXDEV): the copy could not read it, and
// every later launch refused, telling the user to make its directory
// writable. The exit now moves the changed file aside (every file of an
// environment but its site-packages is what the host runs), or, where it
// was born before the sessions, gives it its owner's read back and says
// so (whichever the file's birth time against the start's tells); one the host
// made unreadable itself, after the session, is copied by the next
// launch with read permission lent for the open.
// Proof: the next launch starts, the sandbox's file moved aside (or readable again) and the
// host's a file of its own, its mode kept; the other names are as left.
func TestReplayReview19UnreadableLinkedFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "env", "lib", "zoneinfo.dat"), "data\n")
	h.Write(filepath.Join(proj, "env", "lib", "tzdata.bin"), "data\n")
	harness.Must(t, os.MkdirAll(filepath.Join(proj, "env", "conda-meta"), 0o755))
	h.Chown()
	_, session, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e go; do sleep 0.01; done; chmod 000 kept`)
	harness.Must(t, os.Link(filepath.Join(proj, "env", "lib", "zoneinfo.dat"), filepath.Join(proj, "kept")))
	h.Write(filepath.Join(proj, "go"), "")
	if err := <-exited; err != nil {
		t.Fatalf("session: %v\n%s", err, session)
	}
	// kept and zoneinfo.dat are one file: the exit's walk, reading
	// directories side by side, names whichever it reaches first.
	gaveBack := strings.Contains(session.String(), "zoneinfo.dat its owner's read permission back") ||
		strings.Contains(session.String(), "/kept its owner's read permission back")
	if !strings.Contains(session.String(), "moved aside") && !gaveBack {
		t.Errorf("the exit does not move aside the environment's file the sandbox made unreadable:\n%s", session)
	}
	hosts := filepath.Join(proj, "hosts")
	harness.Must(t, os.Link(filepath.Join(proj, "env", "lib", "tzdata.bin"), hosts))
	harness.Must(t, os.Chmod(hosts, 0))
	var before []os.FileInfo
	for _, name := range []string{filepath.Join(proj, "kept"), hosts} {
		fi, err := os.Stat(name)
		harness.Must(t, err)
		before = append(before, fi)
	}
	out, err := h.Bounded(proj, "--shell", "-c", "stat -c '%h %a' env/lib/tzdata.bin; test -e env/lib/zoneinfo.dat || echo zoneinfo gone")
	if err != nil {
		t.Fatalf("the launch after a linked file was made unreadable: %v\n%s", err, out)
	}
	if !strings.Contains(out, "env/lib/tzdata.bin could not be read") {
		t.Errorf("the launch does not name the file it could not read:\n%s", out)
	}
	if !strings.Contains(out, "1 0\n") || !gaveBack && !strings.Contains(out, "zoneinfo gone") {
		t.Errorf("inside, want the host's data file a file of its own (one name), mode 000, and the sandbox's moved aside or readable again:\n%s", out)
	}
	for i, name := range []string{filepath.Join(proj, "kept"), hosts} {
		after, err := os.Stat(name)
		harness.Must(t, err)
		if after.Mode() != before[i].Mode() || after.Size() != before[i].Size() {
			t.Errorf("%s changed: %v %d, was %v %d", name, after.Mode(), after.Size(), before[i].Mode(), before[i].Size())
		}
	}
}

package hostcmds

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview20TranscriptsReadBounded: --list-sessions, --export and
// the export at a session's end read the transcripts the sandbox writes.
// The attack, from inside: a transcript of 300,000 short records (a
// million held --list-sessions 35 s at 900 MiB) under 31 names (hard
// links, which cost no disk), and a Gemini chat whose messages' order
// alternates between two lines that each hold an array of them (each
// message's line was read and decoded again: 7.6 s for 127 KB, growing
// with the square of the chat). Proof: the listing ends, reads the
// transcript once and the other names not at all, and lists the chat
// with all its prompts.
func TestReplayReview20TranscriptsReadBounded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		awk 'BEGIN { for (i = 0; i < 300000; i++) printf "{\"type\":\"assistant\",\"uuid\":\"%036d\",\"parentUuid\":\"%036d\",\"message\":{\"id\":\"%036d\"}}\n", i, i - 1, i }' > $d/aaaaaaaa-0000-4000-8000-000000000001.jsonl
	`)
	// Hard links the sandbox can no longer make (seccomp answers link
	// with EXDEV), as one before that rule left them.
	planted := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "-planted")
	for i := 10; i <= 39; i++ {
		harness.Must(t, os.Link(filepath.Join(planted, "aaaaaaaa-0000-4000-8000-000000000001.jsonl"), filepath.Join(planted, fmt.Sprintf("bbbbbbbb-0000-4000-8000-0000000000%d.jsonl", i))))
	}
	// The agent, taken over, in a Gemini session: a gemini of its own
	// making, run as gemini is.
	gemini := filepath.Join(h.Bin, "gemini")
	h.Write(gemini, `#!/bin/sh
c=~/.gemini/tmp/p/chats
mkdir -p $c
awk 'BEGIN {
	for (pass = 0; pass < 2; pass++) {
		printf "{\"sessionId\":\"s\",\"messages\":["
		sep = ""
		for (i = 0; i < 8000; i += 1 + pass) { printf "%s{\"id\":\"%d\",\"type\":\"user\",\"content\":\"prompt %d\"}", sep, i, i; sep = "," }
		printf "]}\n"
	}
}' > $c/session-alternating.jsonl
`)
	harness.Must(t, os.Chmod(gemini, 0o755))
	h.Run(proj, []string{"GEMINI_API_KEY=AIza-fake"}, "claudebox", "--agent", "gemini", "--skip-trust")
	out, err := h.Bounded(proj, "--list-sessions")
	if err != nil {
		t.Fatalf("--list-sessions: %v\n%s", err, out)
	}
	if n := strings.Count(out, "another name of -planted/"); n != 30 {
		t.Errorf("--list-sessions noted %d names as another's, want the 30 links:\n%s", n, out)
	}
	if !regexp.MustCompile(`gemini-alternating .* 8000  gemini: prompt 0`).MatchString(out) {
		t.Errorf("--list-sessions does not list the chat with its 8,000 prompts:\n%s", out)
	}
}

// TestReplayReview20ListHoldsNoListing: --list, --gc and --check size
// every instance, walking what the sandbox wrote there; each directory
// was read whole, and a million entries held --list at 214 MiB. The
// attack, from inside: 60,000 long names in one directory of the
// instance (they held --list 28 MiB over its peak before). Proof: --list's
// peak memory stays within 12 MiB of its peak before (the least of two
// runs each: a loaded machine's collector adds to one now and then).
func TestReplayReview20ListHoldsNoListing(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	list := func() int64 {
		least := int64(-1)
		for range 2 {
			c := h.Command(proj, nil, "claudebox", "--list")
			out, err := c.CombinedOutput()
			if err != nil || !strings.Contains(string(out), proj) {
				t.Fatalf("--list: %v\n%s", err, out)
			}
			if peak := c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; least < 0 || peak < least {
				least = peak
			}
		}
		return least
	}
	h.Inside(proj, nil, "true")
	before := list()
	linkInInstance(h, proj, `
import os
os.chdir(os.path.expanduser("~/.claude/projects"))
os.mkdir("flood")
open("flood/f", "w").close()
for i in range(60000):
    os.link("flood/f", "flood/%06d-%s" % (i, "n" * 240))
`)
	after := list()
	t.Logf("--list peak %d KiB before, %d after", before, after)
	if after-before > 12<<10 {
		t.Errorf("--list after 60,000 names in the instance: %d KiB at its peak, %d before", after, before)
	}
}

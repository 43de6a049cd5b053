package hostruns

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30ExitLeavesTrackedUnread: the exit no longer reads the
// status of a tracked file in a directory whose status is the start's
// (the host's git status shows its change), where the user's git compares
// status change times and the index is the start's. What the session can
// do against that shortcut, in a committed repository's unchanged
// tools/: rewrite in place an untracked script beside tracked files; write
// through a tracked name to a script it shares its file with (a hard link
// made before the session, the other name untracked); and mark a tracked
// script assume-unchanged (writing the index) before rewriting it with
// its size and time kept (each a session of its own). Host-side proof: ./tools/run.sh and
// ./tools/dev.sh run nothing planted, and build.sh's rewrite is in git
// status or named by the exit.
func TestReplayReview30ExitLeavesTrackedUnread(t *testing.T) {
	// The index the start's, then one the session wrote.
	for _, marks := range []bool{false, true} {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "proj")
		plant := "touch " + h.Marker()
		tools := filepath.Join(proj, "tools")
		// Enough tracked files for the exit to ask git how it compares
		// them (fewer, it reads each one's status).
		for i := range 100 {
			h.Write(filepath.Join(tools, fmt.Sprintf("lib%03d.go", i)), "package tools\n")
		}
		h.Write(filepath.Join(tools, "build.sh"), "#!/bin/sh\necho "+strings.Repeat("b", len(plant)-5)+"\n")
		h.Write(filepath.Join(tools, "shared.sh"), "#!/bin/sh\necho shared\n")
		for _, f := range []string{"build.sh", "shared.sh"} {
			harness.Must(t, os.Chmod(filepath.Join(tools, f), 0o755))
		}
		h.Chown()
		h.GitRepo(proj)
		h.Run(proj, nil, "git", "add", "tools")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "tools")
		// Untracked: run.sh, and dev.sh, the same file as the tracked
		// shared.sh.
		h.Write(filepath.Join(tools, "run.sh"), "#!/bin/sh\necho ok\n")
		harness.Must(t, os.Chmod(filepath.Join(tools, "run.sh"), 0o755))
		harness.Must(t, os.Link(filepath.Join(tools, "shared.sh"), filepath.Join(tools, "dev.sh")))
		h.Chown()
		script := `set -e
			echo '` + plant + `' >> tools/run.sh
			echo '` + plant + `' >> tools/shared.sh`
		if marks {
			script = `set -e
				git update-index --assume-unchanged tools/build.sh
				t=$(stat -c %y tools/build.sh); printf '#!/bin/sh\n` + plant + `\n' > tools/build.sh; touch -d "$t" tools/build.sh`
		}
		out, err := harness.ShellAfterSnapshot(t, h, proj, script)
		if err != nil {
			t.Fatalf("the session: %v\n%s", err, out)
		}
		for _, script := range []string{"./tools/run.sh", "./tools/dev.sh"} {
			h.Command(proj, nil, "sh", "-c", script).Run()
			if _, err := os.Stat(h.Marker()); err == nil {
				t.Fatalf("the host's %s ran what the session planted:\n%s", script, out)
			}
		}
		status := h.Run(proj, nil, "git", "status", "--porcelain")
		if b, _ := os.ReadFile(filepath.Join(tools, "build.sh")); strings.Contains(string(b), plant) && !strings.Contains(status, "build.sh") && !strings.Contains(out, "build.sh") {
			t.Errorf("the session's rewrite of build.sh is in place, git status shows nothing (%q), the exit names nothing:\n%s", status, out)
		}
	}
}

// TestReplayReview30EnvrcSourcedTrackedUnread: as
// TestReplayReview28EnvrcSourcedByVariable, the .envrc sourcing a name
// the audit cannot spell, but the session's append to the tracked
// config/dev.env comes after the start's snapshot was written: the record
// then compares with it, and its exit left that tracked file unread (its
// directory unchanged), so the record did not list it and the .envrc
// stayed allowed. Host-side proof: the host's direnv runs nothing the
// session wrote until the user allows it again.
func TestReplayReview30EnvrcSourcedTrackedUnread(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env \"${ENV_FILE:-config/dev.env}\"\n")
	h.Write(filepath.Join(proj, "config", "dev.env"), "export APP_ENV=dev\n")
	// Enough tracked files for the exit to ask git how it compares them.
	for i := range 100 {
		h.Write(filepath.Join(proj, "lib", fmt.Sprintf("lib%03d.go", i)), "package lib\n")
	}
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	out, err := harness.ShellAfterSnapshot(t, h, proj, `printf 'touch `+h.Marker()+`\n' >> config/dev.env`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", "git status")
}

package hostrunslate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview31ExitDirRecord: each exit keeps the names of the
// directories it read that had not changed, and the next exit takes those
// of a directory whose inode and status change time are still the
// record's instead of reading it. What a session can do against that
// shortcut, in a committed repository's tools/ recorded by a first
// session: rewrite in place an untracked script the record names (the
// directory's status stays; the file's changes); and rewrite in place an
// untracked script the host made between the two sessions (the record
// does not name it; the directory's status is from before the start, but
// not the record's). A third case writes through a hard link whose other
// name lies in another unchanged directory. Host-side proof: the host's
// ./tools/run.sh runs nothing planted.
func TestReplayReview31ExitDirRecord(t *testing.T) {
	for _, c := range []string{"recorded", "made between", "hard link"} {
		t.Run(c, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			plant := "touch " + h.Marker()
			tools := filepath.Join(proj, "tools")
			for i := range 50 {
				h.Write(filepath.Join(tools, fmt.Sprintf("lib%02d.go", i)), "package tools\n")
			}
			h.Write(filepath.Join(proj, "vendor", "keep.txt"), "kept\n")
			h.GitRepo(proj)
			harness.CommitAll(h, proj, "tools")
			run := filepath.Join(tools, "run.sh")
			writeRun := func() {
				h.Write(run, "#!/bin/sh\necho "+fmt.Sprintf("%*s", len(plant)-5, "ok")+"\n")
				harness.Must(t, os.Chmod(run, 0o755))
			}
			if c != "made between" {
				writeRun()
			}
			if c == "hard link" {
				harness.Must(t, os.Link(run, filepath.Join(proj, "vendor", "run.sh")))
			}
			h.Chown()
			if out, err := harness.ShellAfterSnapshot(t, h, proj, "true"); err != nil {
				t.Fatalf("the first session: %v\n%s", err, out)
			}
			record, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(proj), "*.dirs"))
			if len(record) != 1 {
				t.Fatalf("the first exit kept no record of the directories: %q", record)
			}
			if c == "made between" {
				writeRun()
				h.Chown()
			}
			target := "tools/run.sh"
			if c == "hard link" {
				target = "vendor/run.sh"
			}
			// In place, at the same size: no directory's status changes.
			script := `set -e
				printf '#!/bin/sh\n` + plant + `\n' | dd of=` + target + ` conv=notrunc status=none`
			out, err := harness.ShellAfterSnapshot(t, h, proj, script)
			if err != nil {
				t.Fatalf("the session: %v\n%s", err, out)
			}
			h.Command(proj, nil, "sh", "-c", "./tools/run.sh").Run()
			if _, err := os.Stat(h.Marker()); err == nil {
				t.Fatalf("the host's ./tools/run.sh ran what the session planted:\n%s", out)
			}
		})
	}
}

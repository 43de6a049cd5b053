package hostgit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview23ExitMissesNothing: what an exit that reads only part
// of a large tree (the directories whose status or events say they
// changed) must still find, as the walk of every file finds it. In each
// project, git ignores build/, whose run.sh the host runs (an ignored
// executable, which git status never shows); each session changes it by
// a route that leaves no trace where a partial reading looks first: a
// write through a hard link made inside (then removed), through one the
// host made before the session, a write in a directory renamed away and
// back, in a directory of thousands of files, behind a flood of events
// (past inotify's queue), through a directory made and removed, behind a
// chmod 000, and a symlink swapped in. Host-side proof: each file the
// host runs is, after the exit, what it was, or moved aside and named,
// as the walk of every file names it; and no hard link is made inside.
func TestReplayReview23ExitMissesNothing(t *testing.T) {
	h := harness.NewHost(t)
	const script = "#!/bin/sh\necho ok\n"
	type attack struct {
		name string
		// setup lays out more of the project, on the host.
		setup func(proj string)
		// session is what the sandbox runs; runs are the files (relative)
		// the host runs that it aims at; dirs, the directories it may
		// leave the host unable to read, which the exit must name; named,
		// where the attack surely lands, all that the exit moves aside,
		// as the walk of every file names it.
		session string
		runs    []string
		dirs    []string
		named   []string
		// said must be in the session's output.
		said []string
	}
	attacks := []attack{{
		name: "link made inside",
		// Refused as between two mounts; git's clone of a local path,
		// which links the objects where it can, copies them.
		session: `mkdir docs; if ln build/run.sh docs/x; then echo 'touch "$HOME/PLANTED"' >> docs/x; rm docs/x; echo LINKED; fi; git clone -q . docs/clone && git -C docs/clone log -1 --format=CLONED-%s`,
		runs:    []string{"build/run.sh"},
		said:    []string{"Invalid cross-device link", "CLONED-ignore"},
	}, {
		name: "link made on the host",
		setup: func(proj string) {
			harness.Must(t, os.Mkdir(filepath.Join(proj, "docs"), 0o755))
			harness.Must(t, os.Link(filepath.Join(proj, "build", "run.sh"), filepath.Join(proj, "docs", "notes.txt")))
		},
		session: `echo 'touch "$HOME/PLANTED"' >> docs/notes.txt`,
		runs:    []string{"build/run.sh"},
		named:   []string{"build/run.sh", "docs/notes.txt"},
	}, {
		name:    "directory renamed and back",
		session: `set -e; mv build b2; echo 'touch "$HOME/PLANTED"' >> b2/run.sh; mv b2 build`,
		runs:    []string{"build/run.sh"},
		named:   []string{"build/run.sh"},
	}, {
		name: "thousands of siblings",
		setup: func(proj string) {
			dir := filepath.Join(proj, "build", "many")
			harness.Must(t, os.MkdirAll(dir, 0o755))
			for i := range 3000 {
				harness.Must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.sh", i)), []byte(script), 0o755))
			}
		},
		session: `echo 'touch "$HOME/PLANTED"' >> build/many/f1500.sh`,
		runs:    []string{"build/many/f1500.sh", "build/run.sh"},
		named:   []string{"build/many/f1500.sh"},
	}, {
		name: "flood of events",
		// Files made by the tens of thousands while the script is
		// written: more events than inotify's queue holds (16,384).
		session: `set -e; mkdir flood; (cd flood && seq 60000 | xargs touch) & sleep 0.1; echo 'touch "$HOME/PLANTED"' >> build/run.sh; wait`,
		runs:    []string{"build/run.sh"},
		named:   []string{"build/run.sh"},
	}, {
		name:    "directory made and removed",
		session: `set -e; mkdir build/tmp; printf '#!/bin/sh\ntouch "$HOME/PLANTED"\n' > build/tmp/run.sh; chmod +x build/tmp/run.sh; mv build/tmp/run.sh build/run.sh; rmdir build/tmp`,
		runs:    []string{"build/run.sh"},
		named:   []string{"build/run.sh"},
	}, {
		name:    "chmod 000",
		session: `set -e; echo 'touch "$HOME/PLANTED"' >> build/run.sh; chmod 000 build`,
		runs:    []string{"build/run.sh"},
		dirs:    []string{"build"},
		// The user's build/, closed by the session, is opened again and
		// looked into: what the session changed there goes, not all of it.
		named: []string{"build/run.sh"},
	}, {
		name:    "symlink swapped in",
		session: `set -e; mkdir docs; printf '#!/bin/sh\ntouch "$HOME/PLANTED"\n' > docs/evil.txt; chmod +x docs/evil.txt; ln -sf ../docs/evil.txt build/run.sh`,
		runs:    []string{"build/run.sh"},
		named:   []string{"build/run.sh"},
	}}
	for i, a := range attacks {
		proj := filepath.Join(h.Home, "code", fmt.Sprintf("p%d", i))
		h.Write(filepath.Join(proj, ".gitignore"), "build/\n")
		h.Write(filepath.Join(proj, "build", "run.sh"), script)
		harness.Must(t, os.Chmod(filepath.Join(proj, "build", "run.sh"), 0o755))
		h.GitRepo(proj)
		h.Run(proj, nil, "git", "add", ".gitignore")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
		if a.setup != nil {
			a.setup(proj)
		}
		h.Chown()
		// Each session is judged against its start's snapshot, as a
		// session that runs a while is.
		out, err := harness.ShellAfterSnapshot(t, h, proj, a.session)
		if err != nil {
			t.Errorf("%s: session: %v\n%s", a.name, err, out)
			continue
		}
		for _, want := range a.said {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the session did not say %q:\n%s", a.name, want, out)
			}
		}
		if strings.Contains(out, "LINKED") {
			t.Errorf("%s: the sandbox made a hard link:\n%s", a.name, out)
		}
		if a.named != nil {
			var moved []string
			for _, line := range strings.Split(out, "\n") {
				if rel, ok := strings.CutPrefix(line, "  "+proj+"/"); ok {
					moved = append(moved, rel)
				}
			}
			if !slices.Equal(moved, a.named) {
				t.Errorf("%s: the exit moved aside %q, where the walk of every file moves %q:\n%s", a.name, moved, a.named, out)
			}
		}
		for _, d := range a.dirs {
			if fi, err := os.Lstat(filepath.Join(proj, d)); err == nil && fi.Mode().Perm() == 0 && !strings.Contains(out, filepath.Join(proj, d)) {
				t.Errorf("%s: the exit does not name %s, which the host cannot read:\n%s", a.name, d, out)
			}
		}
		for _, r := range a.runs {
			p := filepath.Join(proj, r)
			fi, err := os.Lstat(p)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				if !strings.Contains(out, p) && !namesDir(out, proj, a.dirs) {
					t.Errorf("%s: %s was moved aside, but the exit does not name it:\n%s", a.name, r, out)
				}
			case err != nil:
				t.Errorf("%s: %v", a.name, err)
			case !fi.Mode().IsRegular():
				t.Errorf("%s: %s, which the host runs, is a %v now, and the exit left it:\n%s", a.name, r, fi.Mode().Type(), out)
			default:
				if b, err := os.ReadFile(p); err != nil || string(b) != script {
					t.Errorf("%s: %s, which the host runs, holds %q after the exit, which left it:\n%s", a.name, r, b, out)
				}
			}
		}
	}
}

// namesDir says whether out names one of dirs (relative to
// proj), which holds what it moved aside whole.
func namesDir(out, proj string, dirs []string) bool {
	for _, d := range dirs {
		if strings.Contains(out, filepath.Join(proj, d)) {
			return true
		}
	}
	return false
}

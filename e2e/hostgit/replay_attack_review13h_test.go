package hostgit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// peakMemory runs claudebox with args in dir under the maxrss helper and
// returns its output and its peak memory in KiB.
func peakMemory(t *testing.T, h *harness.Host, dir string, args ...string) (string, int) {
	t.Helper()
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(h.Bin, "maxrss"), 0o755)
	out, err := h.Command(dir, nil, "maxrss", append([]string{"claudebox"}, args...)...).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	rss, perr := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "maxrss "))
	if err != nil || perr != nil {
		t.Fatalf("claudebox %s: %v %v\n%s", strings.Join(args, " "), err, perr, out)
	}
	return string(out), rss
}

// TestReplayReview13hDeepNames: the session makes a chain of 250
// directories named with 255 bytes each, and 20,000 empty files at its
// bottom: each file's path in the project is 64 KB long. The end's record
// of the session's changes held every path it walked, and the exit audit
// every directory's, as did the next launch's record of the tree: 1.3 GB
// of the host's memory at the session's end, 1.7 GB at the next launch's
// start (and its record, 2.6 GB, written to disk), 11 GB at its end,
// tenfold for 200,000 files. Now a directory whose path is longer than
// the walks go (as one deeper than they go) is not read, and what the
// session made there is a finding. Host-side proof: the session, and the
// next, end having used under 512 MiB each.
func TestReplayReview13hDeepNames(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	out, rss := peakMemory(t, h, proj, "--shell", "-c", `python3 - <<'PY'
import os
for i in range(250):
    os.mkdir('d' * 255)
    os.chdir('d' * 255)
for i in range(20000):
    open('f' * 240 + '%05d' % i, 'w').close()
PY
echo MADE`)
	if !strings.Contains(out, "MADE") {
		t.Fatalf("the session could not make the tree:\n%s", out)
	}
	if rss > 512<<10 {
		t.Errorf("the session's end took %d MiB of memory for the paths of a deep tree:\n%s", rss>>10, out)
	}
	out, rss = peakMemory(t, h, proj, "--shell", "-c", "true")
	if rss > 512<<10 {
		t.Errorf("the next session took %d MiB of memory for the paths of a deep tree:\n%s", rss>>10, out)
	}
}

// TestReplayReview13hIgnoredExecutableLink: the exit takes an ignored
// executable or script that was there at the start and that the session
// changed for a finding. The session replaces the ignored bin/dev with a
// symlink to a script it writes in another ignored directory, and the
// ignored directory tools/ (holding tools/run) with a symlink to that
// directory: a link is no executable file, and tools/run was gone, so
// both stayed, and git status shows none of them. Now a link among those
// files, or in place of a directory above one, is taken for one the host
// runs. Host-side proof: the host's bin/dev and tools/run run nothing the
// session wrote.
func TestReplayReview13hIgnoredExecutableLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "bin/\ntools\n.cache/\n")
	for _, name := range []string{"bin/dev", "tools/run"} {
		h.Write(filepath.Join(proj, name), "#!/bin/sh\necho ok\n")
		harness.Must(t, os.Chmod(filepath.Join(proj, name), 0o755))
	}
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	marker := h.Marker()
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		set -e
		mkdir .cache
		printf '#!/bin/sh\ntouch `+marker+`\n' > .cache/dev
		chmod +x .cache/dev
		ln -s dev .cache/run
		ln -sf ../.cache/dev bin/dev
		rm -r tools
		ln -s .cache tools
		test -z "$(git status --porcelain)"`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	for _, run := range []string{"bin/dev", "tools/run"} {
		h.Command(proj, nil, "sh", "-c", run).Run()
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the host's %s ran what the session planted:\n%s", run, out)
			os.Remove(marker)
		}
	}
}

// TestReplayReview13hSparseIndexes: the exit audit reads the index of
// each git directory the session made (up to 256 MiB, as git's for a few
// million files), and walks the project's top directories side by side,
// one each processor. The session makes four, each holding a repository
// whose index is a sparse file of 256 MiB (no disk used): the audit held
// 2.2 GB for them at once, tens of gigabytes on a machine of many
// processors. Now the audit reads one index at a time, into one buffer.
// Host-side proof: the session (its supervisor given 4 processors) ends
// having used under 768 MiB.
func TestReplayReview13hSparseIndexes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(h.Bin, "maxrss"), 0o755)
	out, err := h.Command(proj, []string{"GOMAXPROCS=4"}, "maxrss", "claudebox", "--shell", "-c", `set -e
		for i in 1 2 3 4; do
			mkdir -p d$i/.git/objects
			echo 'ref: refs/heads/main' > d$i/.git/HEAD
			truncate -s 268435456 d$i/.git/index
		done
		echo MADE`).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	rss, perr := strconv.Atoi(strings.TrimPrefix(lines[len(lines)-1], "maxrss "))
	if err != nil || perr != nil || !strings.Contains(string(out), "MADE") {
		t.Fatalf("the session: %v %v\n%s", err, perr, out)
	}
	if rss > 768<<10 {
		t.Errorf("the exit audit took %d MiB of memory for the session's sparse indexes:\n%s", rss>>10, out)
	}
}

// TestReplayReview13hIgnoredRemovedFirst: the exit takes an ignored file
// the host runs (a virtualenv's bin/activate) that was there at the start
// and that the session changed for a finding; one the session made (pip
// install's scripts) is not. The start's list of ignored files was taken
// beside the session, after git had hashed the checkout for the undo
// snapshot (here 16 MB of a file not yet committed): the session moved
// .venv/bin/activate away at once, and put it back, with a line of its
// own, once the list was taken, which then lacked it: the exit took it for
// one the session made. Now the list is taken first, and the sandbox
// starts once it is (or, past a bound, with the list taken for missing).
// Host-side proof: the host's . .venv/bin/activate runs nothing the
// session wrote.
func TestReplayReview13hIgnoredRemovedFirst(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	h.Write(filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
	h.Write(filepath.Join(proj, ".venv", "bin", "activate"), "VIRTUAL_ENV=x\n")
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Run(proj, nil, "dd", "if=/dev/urandom", "of=data.bin", "bs=1M", "count=16", "status=none")
	marker := h.Marker()
	_, out, exited := harness.StartSession(t, h, proj, `mv .venv/bin/activate /tmp/activate; touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		{ cat /tmp/activate; echo 'touch `+marker+`'; } > .venv/bin/activate`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	h.Command(proj, nil, "sh", "-c", ". .venv/bin/activate").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's . .venv/bin/activate ran what the session planted:\n%s", out)
	}
}

// TestReplayReview13hWorktreeIgnoredExecutable: the exit takes an ignored
// file the host runs that the session changed for a finding, in the
// checkout of the last session to leave. A session in a linked worktree
// (-w task), made while another ran in the main checkout and ending
// first, adds a line to the worktree's .venv/bin/activate: the main
// session's end judged its own checkout's ignored files alone. Now it
// judges each checkout the project's sessions bound. Host-side proof: the
// host's . .venv/bin/activate in the worktree runs nothing the session
// wrote.
func TestReplayReview13hWorktreeIgnoredExecutable(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Run(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "true")
	w := filepath.Join(h.Home, "code", "proj-task")
	h.Write(filepath.Join(w, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
	h.Write(filepath.Join(w, ".venv", "bin", "activate"), "VIRTUAL_ENV=x\n")
	marker := h.Marker()
	_, mainOut, mainExited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	taskOut, err := h.Command(proj, nil, "claudebox", "-w", "task", "--shell", "-c", `echo 'touch `+marker+`' >> .venv/bin/activate`).CombinedOutput()
	if err != nil {
		t.Fatalf("the worktree's session: %v\n%s", err, taskOut)
	}
	harness.TouchDone(t, proj)
	if err := <-mainExited; err != nil {
		t.Fatalf("the main session: %v\n%s", err, mainOut)
	}
	h.Command(w, nil, "sh", "-c", ". .venv/bin/activate").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's . .venv/bin/activate in the worktree ran what its session planted:\n%s\n%s", taskOut, mainOut)
	}
}

// TestReplayReview13hNestedIgnoredExecutable: the exit takes an ignored
// file the host runs that the session changed for a finding, from the
// start's list of the checkout's ignored files, which git takes without
// entering a repository below it; and in a project that is no repository
// (a folder of them, ~/code) nothing was judged. A session of ~/code adds
// a line to x/.venv/bin/activate, which x ignores: in both it stayed. Now
// what the session wrote in a repository below the top that the host runs
// and its rules ignore is a finding. Host-side proof: the host's
// . .venv/bin/activate in x runs nothing the session wrote, whether
// ~/code is a repository or not.
func TestReplayReview13hNestedIgnoredExecutable(t *testing.T) {
	for _, enclosingGit := range []bool{false, true} {
		h := harness.NewHost(t)
		code := filepath.Join(h.Home, "code")
		x := filepath.Join(code, "x")
		h.Write(filepath.Join(x, ".gitignore"), ".venv/\n")
		h.GitRepo(x)
		if enclosingGit {
			h.GitRepo(code)
		}
		h.Write(filepath.Join(x, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
		h.Write(filepath.Join(x, ".venv", "bin", "activate"), "VIRTUAL_ENV=x\n")
		marker := h.Marker()
		_, out, exited := harness.StartSession(t, h, code, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
			echo 'touch `+marker+`' >> x/.venv/bin/activate`)
		if enclosingGit {
			h.WaitSnapshot()
		}
		harness.TouchDone(t, code)
		if err := <-exited; err != nil {
			t.Fatalf("the session: %v\n%s", err, out)
		}
		h.Command(x, nil, "sh", "-c", ". .venv/bin/activate").Run()
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("enclosing git %v: the host's . .venv/bin/activate in x ran what ~/code's session planted:\n%s", enclosingGit, out)
		}
	}
}

// TestReplayReview13hExitNamesEscaped: held. The exit prints names the
// session chose: what it moves aside and the mv that puts it back, the
// ignored directories it changed, the places it could not read. The
// session names them with terminal controls (a title, a clear screen, a
// carriage return over the line, an 8-bit CSI). Host-side proof: the
// exit's output holds no control character but its newlines.
func TestReplayReview13hExitNamesEscaped(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "build*/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	stderr := h.InsideStderr(proj, `set -e
		n=$(printf 'x\033]0;owned\007\033[2J\rfake\302\233m')
		mkdir "build$n" sub
		printf '#!/bin/sh\n' > "build$n/tool"; chmod +x "build$n/tool"
		printf '*.sh\n' > sub/.gitignore
		printf 'echo\n' > "sub/$n.sh"
		mkdir "sub/.claude$n" "sub/.claude"; touch "sub/.claude/settings$n.json"
	`)
	if !strings.Contains(stderr, "moved aside") {
		t.Fatalf("the exit moved nothing aside:\n%s", stderr)
	}
	for _, r := range stderr {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0) {
			t.Fatalf("the exit printed %U from a name the session chose:\n%q", r, stderr)
		}
	}
}

// TestReplayReview13hVenvMarkerRemoved: the exit takes everything in a
// virtualenv's bin/ for what the host runs, a virtualenv being a
// directory beside a pyvenv.cfg. The session adds a line to
// .venv/bin/activate (no executable, no #!) and removes .venv/pyvenv.cfg,
// which sourcing activate does not need: the end found no virtualenv
// there, and activate stayed. Now a pyvenv.cfg there at the start marks
// one too, and an activate script in any bin/ is taken for one the host
// runs. Host-side proof: the host's . .venv/bin/activate runs nothing
// the session wrote.
func TestReplayReview13hVenvMarkerRemoved(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	h.Write(filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
	h.Write(filepath.Join(proj, ".venv", "bin", "activate"), "VIRTUAL_ENV=x\n")
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	marker := h.Marker()
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		echo 'touch `+marker+`' >> .venv/bin/activate
		rm .venv/pyvenv.cfg`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	h.Command(proj, nil, "sh", "-c", ". .venv/bin/activate").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's . .venv/bin/activate ran what the session planted:\n%s", out)
	}
}

// TestReplayReview13hUntrackedScriptChanged: the exit moves aside an
// untracked makefile the session changed, since git status shows an
// untracked file the same before and after. The session adds a line to
// run.sh, an executable script the user keeps untracked: git status said
// ?? run.sh before and after, and the exit said nothing. Now an untracked
// file the host runs (an executable, a script, a link), changed, is a
// finding, and so is one the session wrote before the undo snapshot read
// it; a tracked one, whose change git diff shows, stays. Host-side
// proof: the host's ./run.sh runs nothing the session wrote, and the
// session's edit of the tracked build.sh is there.
func TestReplayReview13hUntrackedScriptChanged(t *testing.T) {
	// At once, before the undo snapshot (slowed by 16 MB to hash) reads
	// run.sh, which it then leaves out as unknown; or after.
	for _, early := range []bool{false, true} {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "proj")
		h.Write(filepath.Join(proj, "build.sh"), "#!/bin/sh\necho build\n")
		harness.Must(t, os.Chmod(filepath.Join(proj, "build.sh"), 0o755))
		h.Chown()
		h.GitRepo(proj)
		h.Run(proj, nil, "git", "add", "build.sh")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "build")
		h.Write(filepath.Join(proj, "run.sh"), "#!/bin/sh\necho ok\n")
		harness.Must(t, os.Chmod(filepath.Join(proj, "run.sh"), 0o755))
		h.Chown()
		plant := "touch " + h.Marker()
		script := `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
			echo '` + plant + `' >> run.sh
			echo 'echo edited' >> build.sh`
		if early {
			h.Run(proj, nil, "dd", "if=/dev/urandom", "of=data.bin", "bs=1M", "count=16", "status=none")
			script = `echo '` + plant + `' >> run.sh; echo 'echo edited' >> build.sh
				touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`
		}
		_, out, exited := harness.StartSession(t, h, proj, script)
		h.WaitSnapshot()
		harness.TouchDone(t, proj)
		if err := <-exited; err != nil {
			t.Fatalf("the session: %v\n%s", err, out)
		}
		h.Command(proj, nil, "sh", "-c", "./run.sh").Run()
		if _, err := os.Stat(h.Marker()); err == nil {
			t.Errorf("early %v: the host's ./run.sh ran what the session planted:\n%s", early, out)
		}
		if b, _ := os.ReadFile(filepath.Join(proj, "build.sh")); !strings.Contains(string(b), "edited") {
			t.Errorf("early %v: the session's edit of the tracked build.sh was moved aside:\n%s", early, out)
		}
	}
}

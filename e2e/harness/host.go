package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// UnprivilegedUser is the user a test run as root drops to, so that the
// sandbox runs without the capabilities root keeps inside bwrap.
const UnprivilegedUser = "claudebox-e2e"

// Host is a fake host for one test: a home directory, projects, and
// claudebox on PATH, all owned by the unprivileged user.
type Host struct {
	T        testing.TB
	Base     string
	Home     string
	Bin      string
	UID, GID int // -1 when the test already runs unprivileged
}

// NewHost skips, loudly, only when bwrap truly cannot run here; with
// CI=true (as CI runs) that is a failure instead.
func NewHost(t testing.TB) *Host {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := "SKIPPING REAL-SANDBOX TEST: " + fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skip("real-sandbox test skipped in -short mode")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		skip("bwrap is not installed")
	}
	base, err := os.MkdirTemp("", "claudebox-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	h := &Host{T: t, Base: base, Home: filepath.Join(base, "home", "alice"), Bin: filepath.Join(base, "bin"), UID: -1, GID: -1}
	for _, d := range []string{h.Home, h.Bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base, 0o755)
	if os.Geteuid() == 0 {
		if _, err := user.Lookup(UnprivilegedUser); err != nil {
			if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/bash", UnprivilegedUser).CombinedOutput(); err != nil {
				skip("cannot create user %s: %v: %s", UnprivilegedUser, err, out)
			}
		}
		u, err := user.Lookup(UnprivilegedUser)
		if err != nil {
			t.Fatal(err)
		}
		h.UID, _ = strconv.Atoi(u.Uid)
		h.GID, _ = strconv.Atoi(u.Gid)
	}
	h.CopyFile(claudeboxBinary(t), filepath.Join(h.Bin, "claudebox"), 0o755)
	h.Chown()
	if out, err := h.Command(base, nil, "bwrap", "--unshare-user", "--ro-bind", "/", "/", "true").CombinedOutput(); err != nil {
		skip("bwrap cannot create a sandbox as an unprivileged user here: %v: %s", err, out)
	}
	return h
}

func (h *Host) CopyFile(src, dst string, perm os.FileMode) {
	h.T.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(dst, b, perm); err != nil {
		h.T.Fatal(err)
	}
}

// Write creates a file under the fake host, owned by the user.
func (h *Host) Write(path, content string) {
	h.T.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.T.Fatal(err)
	}
	h.Chown()
}

// Chown gives the whole fake host to the unprivileged user. What is
// already the user's is left alone: a chown changes a file's ctime, which
// the exit audit reads as the host's replacing a guarded file.
func (h *Host) Chown() {
	if h.UID < 0 {
		return
	}
	filepath.Walk(h.Base, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != h.UID || int(st.Gid) != h.GID {
			os.Lchown(p, h.UID, h.GID)
		}
		return nil
	})
}

// Command runs name as the unprivileged user in dir, with a clean
// environment: HOME, PATH and extra.
func (h *Host) Command(dir string, extra []string, name string, args ...string) *exec.Cmd {
	// Without the machine's /etc/gitconfig (a launch names what it leaves
	// out of its copy, once per project): the tests' own git setup only.
	env := append([]string{
		"HOME=" + h.Home,
		"PATH=" + h.Bin + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1",
	}, extra...)
	if name == "claudebox" {
		h.tick()
	}
	// It dies with the test binary (a timeout, ^C): else a session waiting
	// for a file the test would write runs on. setpriv sets the signal
	// after changing the user, which clears one set before.
	var c *exec.Cmd
	if h.UID >= 0 {
		c = exec.Command("setpriv", append([]string{
			"--reuid=" + strconv.Itoa(h.UID), "--regid=" + strconv.Itoa(h.GID), "--clear-groups", "--pdeathsig=KILL", "--", name,
		}, args...)...)
	} else {
		c = exec.Command(name, args...)
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	c.Dir = dir
	c.Env = env
	return c
}

// tick waits until the filesystem's clock (coarse: a few milliseconds)
// has moved past the test's last change: the exit audit takes what
// changed in the tick its sessions began in for the session's, as it
// must, and a repository a test made just before would be read so.
func (h *Host) tick() {
	f := filepath.Join(h.Base, ".tick")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		return
	}
	var first, now syscall.Stat_t
	syscall.Stat(f, &first)
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		os.Chmod(f, 0o644)
		os.Chmod(f, 0o600)
		if syscall.Stat(f, &now) != nil || now.Ctim != first.Ctim {
			return
		}
	}
}

// Run runs a command and fails the test unless it succeeds.
func (h *Host) Run(dir string, extra []string, name string, args ...string) string {
	h.T.Helper()
	var stdout, stderr bytes.Buffer
	c := h.Command(dir, extra, name, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		h.T.Fatalf("%s %q: %v\nstdout:\n%s\nstderr:\n%s", name, args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// RunOver runs name in dir as Run does, in a mount namespace of its own
// where src is bound over the system directory target: what a test
// stages there stays out of the host's, which other tests' sessions read
// meanwhile. It returns stdout and stderr together.
func (h *Host) RunOver(src, target, dir, name string, args ...string) string {
	h.T.Helper()
	c := h.Command(dir, nil, name, args...)
	c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" "$1" && shift && exec "$@"`, src, target}, c.Args...)
	c.Path = "/usr/bin/unshare"
	out, err := c.CombinedOutput()
	if err != nil {
		h.T.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// Inside runs a bash script in the sandbox of dir.
func (h *Host) Inside(dir string, extra []string, script string) string {
	h.T.Helper()
	return h.Run(dir, extra, "claudebox", "--shell", "-c", script)
}

// InsideStderr runs a bash script in the sandbox of dir, fails the test
// unless it succeeds, and returns the session's stderr.
func (h *Host) InsideStderr(dir, script string) string {
	h.T.Helper()
	var stderr strings.Builder
	c := h.Command(dir, nil, "claudebox", "--shell", "-c", script)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		h.T.Fatalf("session: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// GitRepo makes a repository with one commit.
func (h *Host) GitRepo(dir string) {
	h.T.Helper()
	h.Write(filepath.Join(dir, "README"), "hello\n")
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "README"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		h.Run(dir, nil, "git", args...)
	}
}

// SessionEnded says whether a terminal's screen shows the end of an
// interactive session of Claude: the line that says how to resume it
// (Claude Code's own, or claudebox's where Claude Code's is not that
// command), then a shell's prompt, which comes once claudebox ended.
func SessionEnded(s string) bool {
	i := strings.LastIndex(strings.ToLower(s), "resume this session with")
	return i >= 0 && strings.HasSuffix(strings.TrimSpace(s[i:]), "$")
}

// WaitScreen polls the pane until its screen satisfies ok, failing the
// test after a minute: a loaded machine (CI runs two packages at once)
// takes tens of seconds to start Claude Code in a sandbox.
func WaitScreen(t *testing.T, tmux func(...string) string, ok func(string) bool, what string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := tmux("capture-pane", "-p")
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s, the screen shows:\n%s", what, s)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// lostAfter is how long a screen unchanged since keys were sent, and not
// yet showing what they do, is taken to mean they were lost. Claude Code
// drops the keys that reach it while it is still setting up what it has
// just drawn (a menu's, or the prompt's, handler of keys comes after the
// screen): CI lost two Up keys sent on a menu as it appeared. Once a
// key is taken, something on the screen changes at once.
const lostAfter = 3 * time.Second

// Press sends keys (tmux send-keys's arguments) and waits until the
// screen satisfies done, sending them again where the screen stayed as
// it was for lostAfter.
func Press(t *testing.T, tmux func(...string) string, done func(string) bool, what string, keys ...string) string {
	t.Helper()
	var last string
	var since time.Time
	return WaitScreen(t, tmux, func(s string) bool {
		if done(s) {
			return true
		}
		if since.IsZero() || s == last && time.Since(since) > lostAfter {
			if !since.IsZero() {
				t.Logf("%q lost, sent again, the screen showing:\n%s", keys, s)
			}
			tmux(append([]string{"send-keys"}, keys...)...)
			last, since = tmux("capture-pane", "-p"), time.Now()
		} else if s != last {
			last, since = s, time.Now()
		}
		return false
	}, what)
}

// Choose moves the cursor of the menu on the screen (the last line with
// "❯") to the line that holds option, one Up or Down at a time, presses
// Enter there, and waits until the screen satisfies done. A key is sent
// once the cursor shows the last one taken, or again where the screen
// stayed as it was for lostAfter. A digit's shortcut is not used: CI saw
// "2" pressed as a permission menu appeared leave the cursor on "4. No".
func Choose(t *testing.T, tmux func(...string) string, option string, done func(string) bool, what string) string {
	t.Helper()
	var sentOn, last string
	var since time.Time
	return WaitScreen(t, tmux, func(s string) bool {
		if done(s) {
			return true
		}
		lines := strings.Split(s, "\n")
		cursor, at := -1, -1
		for i, l := range lines {
			if strings.Contains(l, "❯") {
				cursor = i
			}
			if strings.Contains(l, option) {
				at = i
			}
		}
		if cursor < 0 || at < 0 {
			return false
		}
		key := "Enter"
		if at > cursor {
			key = "Down"
		} else if at < cursor {
			key = "Up"
		}
		moved := lines[cursor] != sentOn
		if since.IsZero() || moved || s == last && time.Since(since) > lostAfter {
			if !since.IsZero() && !moved {
				t.Logf("%s lost, sent again, the screen showing:\n%s", key, s)
			}
			tmux("send-keys", key)
			sentOn, last, since = lines[cursor], tmux("capture-pane", "-p"), time.Now()
		} else if s != last {
			last, since = s, time.Now()
		}
		return false
	}, what)
}

// Type types text on the pane (send-keys -l) and waits until the screen
// shows it once more than before, typing it again where it was lost
// (Press). A loaded machine can draw what was typed later than Press
// waits: where Claude Code's prompt then holds the text twice in a row
// (CI saw "❯ /exit/exit", a session that never ended), the second is
// erased. Text typed before Claude Code drew its prompt is left as it
// is: what Claude Code keeps of it is its own.
func Type(t *testing.T, tmux func(...string) string, text string) string {
	t.Helper()
	before := strings.Count(tmux("capture-pane", "-p"), text)
	Press(t, tmux, func(s string) bool { return strings.Count(s, text) > before }, strconv.Quote(text)+" typed", "-l", text)
	s := still(tmux)
	if !promptHolds(s, text+text) {
		return s
	}
	t.Logf("%q typed twice, the second erased, the screen showing:\n%s", text, s)
	erase := make([]string, 0, len([]rune(text))+1)
	erase = append(erase, "send-keys")
	for range []rune(text) {
		erase = append(erase, "BSpace")
	}
	tmux(erase...)
	return WaitScreen(t, tmux, func(s string) bool { return !promptHolds(s, text+text) }, strconv.Quote(text)+" once")
}

// promptHolds says whether a line of the screen s is Claude Code's
// prompt ("❯ ") holding text.
func promptHolds(s, text string) bool {
	for l := range strings.Lines(s) {
		if _, typed, ok := strings.Cut(l, "❯ "); ok && strings.Contains(typed, text) {
			return true
		}
	}
	return false
}

// Ask types text at Claude Code's prompt, presses Enter, and waits until
// the screen satisfies done. Claude Code can clear what was typed as it
// draws a notice that comes after its prompt (CI saw the text gone, no
// reply, the prompt empty, under "Auto mode is now Claude Code's default
// permission mode"): where the screen has not shown the text for
// lostAfter and done is not yet satisfied, it is typed and sent again.
// text should be found nowhere else on the screen.
func Ask(t *testing.T, tmux func(...string) string, text string, done func(string) bool, what string) string {
	t.Helper()
	Type(t, tmux, text)
	lost := pressEnter(t, tmux)
	var gone time.Time
	return WaitScreen(t, tmux, func(s string) bool {
		switch {
		case done(s):
			return true
		case strings.Contains(s, text):
			gone = time.Time{}
			lost(s)
		case gone.IsZero():
			gone = time.Now()
		case time.Since(gone) > lostAfter:
			t.Logf("%q lost before it was sent, typed again, the screen showing:\n%s", text, s)
			Type(t, tmux, text)
			lost = pressEnter(t, tmux)
			gone = time.Time{}
		}
		return false
	}, what)
}

// Slash types a command at Claude Code's prompt (/exit), presses Enter,
// and waits until the screen satisfies done (Enter).
func Slash(t *testing.T, tmux func(...string) string, command string, done func(string) bool, what string) string {
	t.Helper()
	Type(t, tmux, command)
	return Enter(t, tmux, done, what)
}

// Enter presses Enter and waits until the screen satisfies done, pressing
// it again where the screen stayed as it was before it for lostAfter:
// Claude Code draws its list of commands as one is typed, and a key
// that reaches it while it sets that list up is lost; a key taken
// changes the screen at once. Nothing typed is typed again (Ask): a
// command's own screen may no longer show it.
func Enter(t *testing.T, tmux func(...string) string, done func(string) bool, what string) string {
	t.Helper()
	lost := pressEnter(t, tmux)
	return WaitScreen(t, tmux, func(s string) bool {
		if done(s) {
			return true
		}
		lost(s)
		return false
	}, what)
}

// pressEnter presses Enter once the screen is still (two reads, a poll
// apart, the same: Claude Code has drawn what typing drew; lostAfter at
// most, as something on it may move on), and returns what, given each
// screen read after, presses it again where the screen is still the one
// before it, lostAfter on: Enter was lost. Once the screen differs,
// Enter was taken, and is not pressed again.
func pressEnter(t *testing.T, tmux func(...string) string) func(string) {
	t.Helper()
	before := still(tmux)
	tmux("send-keys", "Enter")
	sent, taken := time.Now(), false
	return func(s string) {
		switch {
		case taken:
		case s != before:
			taken = true
		case time.Since(sent) > lostAfter:
			t.Logf("Enter lost, pressed again, the screen showing:\n%s", s)
			tmux("send-keys", "Enter")
			sent = time.Now()
		}
	}
}

// still returns the screen once two reads a poll apart are the same
// (Claude Code has drawn what was typed), or after lostAfter, as
// something on it may move on.
func still(tmux func(...string) string) string {
	s := tmux("capture-pane", "-p")
	for deadline := time.Now().Add(lostAfter); time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		next := tmux("capture-pane", "-p")
		if next == s {
			break
		}
		s = next
	}
	return s
}

// CtrlCTwice ends an interactive Claude Code with Ctrl-C, pressed twice
// (once, it says to press it again), and waits until the screen
// satisfies ended. The second must come within a second of the first,
// which a loaded machine can outlast: where the screen stays as it was
// for lostAfter while claudebox still relays the keys (rawPane), both are
// pressed again; once it gave the terminal back, a Ctrl-C would
// interrupt its own end.
func CtrlCTwice(t *testing.T, tmux func(...string) string, ended func(string) bool, what string) string {
	t.Helper()
	var last string
	var since time.Time
	return WaitScreen(t, tmux, func(s string) bool {
		if ended(s) {
			return true
		}
		if since.IsZero() || s == last && time.Since(since) > lostAfter && rawPane(tmux) {
			if !since.IsZero() {
				t.Logf("Ctrl-C twice pressed again, the screen showing:\n%s", s)
			}
			tmux("send-keys", "C-c")
			time.Sleep(300 * time.Millisecond)
			tmux("send-keys", "C-c")
			last, since = tmux("capture-pane", "-p"), time.Now()
		} else if s != last {
			last, since = s, time.Now()
		}
		return false
	}, what)
}

// rawPane says whether the pane's terminal is raw, as claudebox's relay
// keeps it from its launch until the command inside ended (the terminal
// is given back before claudebox's own end).
func rawPane(tmux func(...string) string) bool {
	tty := strings.TrimSpace(tmux("display-message", "-p", "#{pane_tty}"))
	fd, err := unix.Open(tty, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil && tio.Lflag&unix.ICANON == 0
}

// RequireTool finds a program a test needs. CI installs every one, so
// there a missing one fails the test; elsewhere the test skips, loudly.
func RequireTool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: %s", name, install)
		}
		t.Skipf("SKIPPING: %s is not installed (%s)", name, install)
	}
	return p
}

// RequireClaude finds the real Claude Code CLI, which CI installs from npm.
func RequireClaude(t *testing.T) string {
	return RequireTool(t, "claude", "npm install -g @anthropic-ai/claude-code")
}

// Tmux starts a private tmux server, run by the unprivileged user in dir,
// and returns a function that runs tmux commands against it.
func (h *Host) Tmux(dir string) func(args ...string) string {
	h.T.Helper()
	RequireTool(h.T, "tmux", "apt-get install tmux")
	sock := filepath.Join(h.Base, "tmux.sock")
	h.T.Cleanup(func() { h.Command(dir, nil, "tmux", "-S", sock, "kill-server").Run() })
	return func(args ...string) string {
		return h.Run(dir, nil, "tmux", append([]string{"-S", sock}, args...)...)
	}
}

// TmuxPaneLog makes the pane's output (what claudebox relays to its
// terminal, byte for byte) appear in a file the test reads.
func TmuxPaneLog(t *testing.T, h *Host, tmux func(...string) string) func() []byte {
	t.Helper()
	log := filepath.Join(h.Base, "pane.log")
	h.Write(log, "")
	tmux("pipe-pane", "-o", "cat >> "+log)
	return func() []byte {
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// Onboarded writes the host's ~/.claude.json as after onboarding, with the
// API key approved and proj trusted, so Claude's TUI starts at its prompt.
func (h *Host) Onboarded(key, proj string) {
	h.Write(filepath.Join(h.Home, ".claude.json"), fmt.Sprintf(`{
  "hasCompletedOnboarding": true,
  "lastOnboardingVersion": "2.1.330",
  "theme": "dark",
  "customApiKeyResponses": {"approved": [%q], "rejected": []},
  "projects": {%q: {"hasTrustDialogAccepted": true}}
}
`, key[len(key)-20:], proj))
}

// RunBoth runs a command that must succeed and returns its stdout and
// stderr together.
func (h *Host) RunBoth(dir, name string, args ...string) string {
	h.T.Helper()
	out, err := h.Command(dir, nil, name, args...).CombinedOutput()
	if err != nil {
		h.T.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// SessionLogs is what the decision logs in the fake host's run directory
// hold: the sessions' that ran since the last launch swept them.
func (h *Host) SessionLogs() string {
	logs, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "run", "*.log"))
	var all []byte
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all = append(all, b...)
	}
	return string(all)
}

// WaitSnapshot waits until a session's snapshot for claudebox --undo is
// written (the session's start does not wait for it).
func (h *Host) WaitSnapshot() {
	h.T.Helper()
	WaitFor(h.T, "the session's undo snapshot", func() bool {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found) > 0
	})
}

// Marker is the file a planted command makes: its existence proves the
// host ran it.
func (h *Host) Marker() string { return filepath.Join(h.Base, "MARKER") }

// Plant runs script, an attack's planting, in a session of dir, and
// fails the test unless the whole of it succeeded (script && echo
// PLANTED); what names what it plants. It returns the session's stderr.
func (h *Host) Plant(dir, what, script string) string {
	h.T.Helper()
	out := h.InsideStderr(dir, script+" && echo PLANTED >&2")
	if !strings.Contains(out, "PLANTED") {
		h.T.Fatalf("%s could not be planted:\n%s", what, out)
	}
	return out
}

// RunsNothingPlanted runs name with args in dir on the host, as the user
// would after the session whose output was session, and fails the test
// if the Marker exists after it: the command ran what the session
// planted. A marker found is removed, so that a later command is judged
// on its own.
func (h *Host) RunsNothingPlanted(session, dir string, env []string, name string, args ...string) {
	h.T.Helper()
	ran, _ := h.Command(dir, env, name, args...).CombinedOutput()
	if _, err := os.Lstat(h.Marker()); err == nil {
		h.T.Errorf("the host's %s ran what the session planted:\n%s\n%s", strings.Join(append([]string{name}, args...), " "), session, ran)
		os.Remove(h.Marker())
	}
}

// Must fails the test on an error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Bounded runs claudebox with args in dir, and fails the test if it
// waits on what the sandbox left: where one of its processes (git among
// them) has waited in a FIFO's open for half a minute, for a writer that
// never comes (claudebox stops a git asleep so within a second, and its
// own limit on each git, a minute, would end the wait unseen), or where
// it has not ended after five minutes (a wait for ever of another kind).
// Neither bounds how fast claudebox works: at a load of 25 a bound of one
// minute cut short a session that planted 32,000 names.
func (h *Host) Bounded(dir string, args ...string) (string, error) {
	h.T.Helper()
	c := h.Command(dir, nil, "claudebox", args...)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		h.T.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	hung := func(why string) (string, error) {
		h.T.Helper()
		c.Process.Kill()
		<-exited
		h.T.Errorf("claudebox %s %s:\n%s", strings.Join(args, " "), why, out.String())
		return "", nil
	}
	deadline := time.After(boundedWait)
	// Since when each process has been seen waiting on a FIFO.
	since := map[int]time.Time{}
	for tick := time.Tick(250 * time.Millisecond); ; {
		select {
		case err := <-exited:
			return out.String(), err
		case <-deadline:
			return hung("hung on what the sandbox left")
		case now := <-tick:
			waiters := waitingOnFIFO(c.Process.Pid)
			for p, what := range waiters {
				if _, ok := since[p]; !ok {
					since[p] = now
				}
				if now.Sub(since[p]) >= fifoWait {
					return hung("waits on a FIFO the sandbox left: " + what)
				}
			}
			for p := range since {
				if _, ok := waiters[p]; !ok {
					delete(since, p)
				}
			}
		}
	}
}

// boundedWait is how long Bounded waits for a command that waits on
// nothing it can see; fifoWait, for one of its processes to leave a
// FIFO's open.
const boundedWait, fifoWait = 5 * time.Minute, 30 * time.Second

// waitingOnFIFO names, by process ID, pid and those of its descendants
// that wait in a FIFO's open for the other end (the kernel's
// wait_for_partner, as /proc's wchan names it to root), each by its
// command line.
func waitingOnFIFO(pid int) map[int]string {
	waiters := map[int]string{}
	for _, p := range append(Descendants(pid), pid) {
		proc := fmt.Sprintf("/proc/%d", p)
		if wchan, _ := os.ReadFile(proc + "/wchan"); string(wchan) == "wait_for_partner" {
			cmdline, _ := os.ReadFile(proc + "/cmdline")
			waiters[p] = fmt.Sprintf("pid %d %q", p, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return waiters
}

// Descendants lists the processes below pid, from /proc's parent links
// (one whose parent died is reparented: the sandbox's command is looked
// for by its command line too).
func Descendants(pid int) []int {
	parent := map[int]int{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		id, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if len(f) > 1 {
			parent[id], _ = strconv.Atoi(f[1])
		}
	}
	var below []int
	for id := range parent {
		for p := parent[id]; p > 1; p = parent[p] {
			if p == pid {
				below = append(below, id)
				break
			}
		}
	}
	return below
}

// Holding lists the processes whose working directory or an open file
// lies in dir, each as its pid and the path it holds: what a session left
// running after its supervisor died, reparented, which Descendants of the
// dead supervisor no longer finds.
func Holding(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := filepath.Glob(p + "/fd/*")
		for _, l := range append([]string{p + "/cwd"}, fds...) {
			if target, err := os.Readlink(l); err == nil && (target == dir || strings.HasPrefix(target, dir+"/")) {
				found = append(found, filepath.Base(p)+" "+target)
				break
			}
		}
	}
	return found
}

// SupervisorKB is a process's resident memory and its peak, in KiB.
func SupervisorKB(t *testing.T, pid int) (rss, hwm int) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fmt.Sscan(v, &rss)
		}
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscan(v, &hwm)
		}
	}
	return rss, hwm
}

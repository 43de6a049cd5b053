package pty

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// filter passes the child's output on to the user's terminal, parsed as a
// terminal parses it: the DEC VT500 state machine as Paul Williams
// described it, which xterm, VTE, tmux, kitty, Alacritty and WezTerm follow
// (an ESC, CAN or SUB ends any sequence; other C0 bytes inside one are
// carried out or ignored, and do not end it). It fails closed:
//
//   - Text passes as it arrives, as well-formed UTF-8. C1 controls in
//     either form (a lone byte 0x80-0x9F, or U+0080-U+009F) and malformed
//     bytes are dropped: claudebox assumes a UTF-8 terminal, which decodes
//     characters before it looks for controls, and a terminal that takes
//     8-bit C1 controls must never see one, so that the 7-bit parse here is
//     the terminal's.
//   - An escape or control sequence (ESC …, CSI …) is held until complete,
//     then passed whole; one with a byte no terminal agrees on (0x80 and
//     up) or longer than maxSeq is dropped, and so is a control sequence
//     whose final byte is not one of csiFinals.
//   - A string (OSC, DCS, SOS, PM, APC, and screen's ESC k) is held to its
//     terminator and passed only when allowed says so; all others are
//     dropped whole.
//
// A sequence is never passed unfinished, so between writes, and when the
// child is gone, the terminal is in its ground state.
type filter struct {
	clipboard bool
	state     state
	// held is the sequence, or the UTF-8 character, so far.
	held []byte
	// osc says whether the string being dropped is an OSC, which a BEL also
	// ends.
	osc bool
	// limit bounds the OSC held: maxSeq, or maxClipboard for an allowed
	// clipboard write.
	limit int
	// originMode: the child may have turned origin mode on, whose reset
	// moves the cursor home, so it is sent only then (see reset).
	originMode bool
	// midLine: the last character the child wrote was no line's end, so
	// what claudebox says after it would go on its line.
	midLine bool
}

type state int

const (
	ground     state = iota
	utf8Char         // inside a multi-byte character
	escape           // after ESC
	escInter         // after ESC and an intermediate byte
	csi              // after ESC [
	str              // inside an OSC, held
	strEsc           // after an ESC inside a held OSC
	strDrop          // inside a string being dropped
	strDropEsc       // after an ESC inside a string being dropped
)

const (
	bel = 0x07
	can = 0x18
	sub = 0x1a
	esc = 0x1b
	del = 0x7f
	// maxSeq bounds what is held of one sequence; maxClipboard that of a
	// clipboard write when they are allowed (Claude Code writes up to 1 MiB).
	maxSeq       = 4096
	maxClipboard = 1<<20 + 64
)

// write returns what of p goes on to the user's terminal.
func (f *filter) write(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		out = f.step(out, b)
	}
	return out
}

func (f *filter) step(out []byte, b byte) []byte {
	// Anywhere but in a string: ESC starts a sequence anew, CAN and SUB
	// cancel it; what was held is dropped.
	if f.state != str && f.state != strDrop {
		switch b {
		case esc:
			f.held = append(f.held[:0], b)
			f.state = escape
			return out
		case can, sub:
			f.held = f.held[:0]
			f.state = ground
			return append(out, b)
		}
	}
	switch f.state {
	case ground:
		switch {
		case b == '\n' || b == '\r':
			f.midLine = false
			return append(out, b)
		case b < 0x80:
			if b >= 0x20 && b != del {
				f.midLine = true
			}
			return append(out, b)
		case b >= 0xc2 && b <= 0xf4:
			f.held = append(f.held[:0], b)
			f.state = utf8Char
		}
		return out
	case utf8Char:
		if b < 0x80 || b > 0xbf {
			f.held = f.held[:0]
			f.state = ground
			return f.step(out, b)
		}
		f.held = append(f.held, b)
		if !utf8.FullRune(f.held) {
			return out
		}
		f.state = ground
		if r, n := utf8.DecodeRune(f.held); n == len(f.held) && r >= 0xa0 {
			out = append(out, f.held...)
			f.midLine = true
		}
		f.held = f.held[:0]
		return out
	case escape, escInter, csi:
		if b >= 0x80 || len(f.held) >= maxSeq {
			f.held = f.held[:0]
			f.state = ground
			return f.step(out, b)
		}
		f.held = append(f.held, b)
		if b < 0x20 || b == del {
			return out // carried out or ignored inside the sequence
		}
		switch f.state {
		case escape:
			switch b {
			case '[':
				f.state = csi
				return out
			case ']':
				f.state, f.limit = str, maxSeq
				return out
			case 'P', 'X', '^', '_': // DCS, SOS, PM, APC
				f.held = f.held[:0]
				f.state, f.osc = strDrop, false
				return out
			case 'k': // screen's and tmux's window name, a string there
				f.held = f.held[:0]
				f.state, f.osc = strDrop, true
				return out
			}
			fallthrough
		case escInter:
			if b < 0x30 {
				f.state = escInter
				return out
			}
		case csi:
			if b < 0x40 {
				return out
			}
			if !strings.ContainsRune(csiFinals, rune(b)) || changesInput(f.held) || changesKeys(f.held) || changesLevel(f.held) {
				f.held = f.held[:0]
				f.state = ground
				return out
			}
			f.noteCSI(f.held)
		}
		if f.state == escInter && changesCoding(f.held) {
			f.held = f.held[:0]
			f.state = ground
			return out
		}
		f.state = ground
		out = append(out, f.held...)
		f.held = f.held[:0]
		return out
	case str:
		switch b {
		case bel:
			f.held = append(f.held, b)
			return f.endString(out)
		case esc:
			f.held = append(f.held, b)
			f.state = strEsc
			return out
		case can, sub:
			f.held = f.held[:0]
			f.state = ground
			return append(out, b)
		}
		if len(f.held) == maxSeq && f.clipboard && bytes.HasPrefix(f.held[bytes.IndexByte(f.held, ']')+1:], []byte("52;")) {
			f.limit = maxClipboard
		}
		if len(f.held) >= f.limit {
			f.held = f.held[:0]
			f.state, f.osc = strDrop, true
			return out
		}
		f.held = append(f.held, b)
		return out
	case strEsc:
		if b == '\\' {
			f.held = append(f.held, b)
			return f.endString(out)
		}
		// An OSC ended by another sequence is not passed.
		f.held = append(f.held[:0], esc)
		f.state = escape
		return f.step(out, b)
	case strDrop:
		switch b {
		case esc:
			f.state = strDropEsc
		case bel:
			if f.osc {
				f.state = ground
			}
		case can, sub:
			f.state = ground
			return append(out, b)
		}
		return out
	case strDropEsc:
		if b == '\\' {
			f.state = ground
			return out
		}
		f.held = append(f.held[:0], esc)
		f.state = escape
		return f.step(out, b)
	}
	return out
}

// endString passes the OSC held, terminator included, if it is allowed.
func (f *filter) endString(out []byte) []byte {
	seq := f.held
	// What precedes the OSC's ']' is its ESC and the C0 bytes the terminal
	// carries out on the way.
	body := seq[bytes.IndexByte(seq, ']')+1:]
	body = bytes.TrimSuffix(bytes.TrimSuffix(body, []byte{bel}), []byte("\x1b\\"))
	if allowed(body, f.clipboard) {
		out = append(out, seq...)
	}
	f.held = f.held[:0]
	f.state = ground
	return out
}

// allowed says whether an OSC with this body (its number, parameters and
// text) passes. Only these do, in exactly these forms:
//
//   - 0, 1, 2: the window and icon title, which Claude Code sets;
//   - 8: a hyperlink, which Claude Code prints for files and URLs; the
//     terminal shows its target before it opens it, on a click;
//   - 9;4: a progress bar (Claude Code's terminalProgressBar), numbers
//     only: other OSC 9 forms are notifications or ConEmu's commands;
//   - 133: prompt marks of a shell's integration, which only mark lines;
//   - 10, 11, 12 with "?": a colour query, answered to the sandbox (Claude
//     Code's theme detection); setting colours would outlast the session;
//   - 52, a clipboard write, with --with-clipboard only, never a read.
//
// Dropped, among others: notifications (9, 99, 777), which reach the
// desktop outside the terminal; the working directory (7), which would
// open the user's next tab, and its prompt's git, in a directory the
// sandbox chose; kitty's clipboard (5522), iTerm2's (1337), palette and
// font changes, xterm's log file (46).
//
// The body must be printable: no C0 or C1 control, well-formed UTF-8,
// and no byte that a terminal parsing bytes rather than characters would
// take for a C1 string or CSI introducer (0x90, 0x98, 0x9b, 0x9d-0x9f).
func allowed(body []byte, clipboard bool) bool {
	if !utf8.Valid(body) {
		return false
	}
	for _, c := range body {
		switch {
		case c < 0x20, c == del, c == 0x90, c == 0x98, c == 0x9b, c >= 0x9d && c <= 0x9f:
			return false
		}
	}
	for _, r := range string(body) {
		if r >= 0x80 && r < 0xa0 {
			return false
		}
	}
	num, rest, _ := bytes.Cut(body, []byte(";"))
	switch string(num) {
	case "0", "1", "2", "8", "133":
		return true
	case "9":
		return only(rest, "0123456789;") && bytes.HasPrefix(rest, []byte("4;"))
	case "10", "11", "12":
		return string(rest) == "?"
	case "52":
		sel, data, ok := bytes.Cut(rest, []byte(";"))
		return clipboard && ok && only(sel, "cpqs01234567") && only(data, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
	}
	return false
}

// only says whether every byte of b is one of set.
func only(b []byte, set string) bool {
	for _, c := range b {
		if !bytes.ContainsRune([]byte(set), rune(c)) {
			return false
		}
	}
	return true
}

// noteCSI notes, from a complete CSI sequence, whether it may turn origin
// mode on: DECSET (CSI ? … h) or XTRESTORE (CSI ? … r) naming mode 6. It
// reads digits as a terminal does, skipping the C0 bytes it carries out,
// and counts a number too long for a terminal to hold as a match.
func (f *filter) noteCSI(seq []byte) {
	final := seq[len(seq)-1]
	if (final != 'h' && final != 'r') || !bytes.ContainsRune(seq, '?') {
		return
	}
	n, digits := 0, 0
	for _, c := range append(seq[2:len(seq)-1:len(seq)-1], ';') {
		switch {
		case c >= '0' && c <= '9':
			if n > 0 || c != '0' {
				digits++
			}
			n = n*10 + int(c-'0')
			if digits > 5 {
				f.originMode = true
			}
		case c < 0x20 || c == del:
		default:
			if n == 6 {
				f.originMode = true
			}
			n, digits = 0, 0
		}
	}
}

// changesCoding says the escape sequence seq (ESC, intermediates, final)
// changes how the terminal reads what follows or what it sends back: ESC %
// selects a coding other than UTF-8 (after ESC % @ a UTF-8 character's
// second byte reads as an 8-bit OSC or CSI), ESC SP selects 8-bit replies
// or a conformance level. Dropped: no exit reset can say which the user
// had.
func changesCoding(seq []byte) bool {
	for _, c := range seq[1:] {
		if c >= 0x20 {
			return c == '%' || c == ' '
		}
	}
	return false
}

// csiFinals are the final bytes of the control sequences passed: what
// moves the cursor, edits, scrolls and colours the screen, sets its modes
// and tab stops, and asks the terminal for reports (answered to the
// sandbox); xterm's window operations (t), where the title's stack is.
// Any other is dropped: the media copy (CSI … i), with which xterm writes
// the screen to a file in its working directory (CSI 10 i, CSI 11 i) or
// to a printer's command; DEC's rectangle and status-line operations.
const csiFinals = "@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstux"

// inputModes are the DEC private modes that change what the keyboard sends
// or whether it is locked, whose right setting is the user's terminal's
// own, not a reset's: autorepeat (8), the backarrow key (67), xterm's
// meta, delete and function-key modes (1034-1044, 1050-1061); and those
// in which the terminal no longer reads ANSI sequences, the exit's reset
// among them: VT52 (DECANM, 2) and Tektronix (38).
func inputMode(n int) bool {
	return n == 2 || n == 8 || n == 38 || n == 67 || n >= 1034 && n <= 1044 || n >= 1050 && n <= 1061
}

// changesKeys says the control sequence seq (CSI > …) sets what xterm's
// keys send or how it reads what follows, for good: the key modifier
// resources (XTMODKEYS set and disable, m and n) but modifyOtherKeys (4),
// which the exit's reset puts back, their format (XTFMTKEYS, f), the
// title modes (t, T: hexadecimal titles) and the pointer's (p). Queries
// (CSI > c, CSI > q) and the kitty keyboard protocol (u) pass.
func changesKeys(seq []byte) bool {
	if len(seq) < 3 || seq[2] != '>' {
		return false
	}
	switch seq[len(seq)-1] {
	case 'm', 'n':
		first, _, _ := bytes.Cut(seq[3:len(seq)-1], []byte(";"))
		return string(first) != "4"
	case 'f', 't', 'T', 'p':
		return true
	}
	return false
}

// changesLevel says the control sequence seq is DECSCL (CSI … " p), which
// sets the terminal's conformance level and whether it replies with 8-bit
// controls: as ESC SP, no exit reset can say which the user had.
func changesLevel(seq []byte) bool {
	return len(seq) >= 2 && seq[len(seq)-1] == 'p' && seq[len(seq)-2] == '"'
}

// changesInput says the control sequence seq sets or resets a mode that
// changes what the keyboard sends or echoes: any ANSI mode but insert (4)
// and newline (20), which the exit reset covers (keyboard action, 2, locks
// the keyboard; send/receive, 12, turns on local echo, so a later password
// shows), or one of inputModes. A parameter it cannot read counts.
func changesInput(seq []byte) bool {
	final := seq[len(seq)-1]
	if final != 'h' && final != 'l' {
		return false
	}
	// A C0 control inside is executed by the terminal, not read as part
	// of the parameters.
	params := bytes.Map(func(r rune) rune {
		if r < 0x20 || r == del {
			return -1
		}
		return r
	}, seq[2:len(seq)-1])
	private := len(params) > 0 && params[0] == '?'
	if private {
		params = params[1:]
	}
	for _, p := range bytes.Split(params, []byte(";")) {
		n, err := strconv.Atoi(string(bytes.TrimLeft(p, "0")))
		if len(bytes.TrimLeft(p, "0")) == 0 {
			n, err = 0, nil
		}
		switch {
		case err != nil:
			return true
		case private && inputMode(n), !private && n != 4 && n != 20:
			return true
		}
	}
	return false
}

// exitReset puts back, tracked or not, everything a program can leave on
// in a terminal, so that the user's shell gets its terminal as it expects:
// the kitty keyboard protocol (each screen has its own stack, popped on
// both), modifyOtherKeys, every mouse mode and focus events, bracketed
// paste, synchronized output, application cursor keys and keypad, insert
// and newline modes, reverse video, autowrap, the cursor and its shape,
// the margins and scroll region and the alternate screen (between a save
// and a restore of the cursor, since leaving either moves it), then SGR and
// the character sets (G0-G3 to ASCII, G0 shifted in).
const exitReset = "\x1b[<99u" +
	"\x1b[>4m" +
	"\x1b[?9l\x1b[?1000l\x1b[?1001l\x1b[?1002l\x1b[?1003l\x1b[?1004l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l" +
	"\x1b[?2004l\x1b[?2026l" +
	"\x1b[?1l\x1b>\x1b[?66l" +
	"\x1b[4l\x1b[20l" +
	"\x1b[?5l\x1b[?7h\x1b[?25h\x1b[0 q" +
	"\x1b7\x1b[?69l\x1b[r\x1b[?1049l\x1b[?1047l\x1b[?47l\x1b8" +
	"\x1b[<99u" +
	"\x1b[m\x1b(B\x1b)B\x1b*B\x1b+B\x0f"

// originReset turns origin mode off; it moves the cursor home.
const originReset = "\x1b[?6l"

// reset returns what puts the user's terminal back when the child is gone.
// What the child left unfinished was never passed on, so the terminal
// reads it from its ground state.
func (f *filter) reset() []byte {
	end := exitReset
	if f.originMode {
		end += originReset
	}
	if f.midLine {
		// What claudebox says at the end starts a line of its own, as the
		// shell's prompt after a program that ended one does.
		end = "\r\n" + end
	}
	return []byte(end)
}

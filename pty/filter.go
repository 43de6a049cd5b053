package pty

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// filter passes the child's output through as it arrives, byte for byte,
// except clipboard writes (OSC 52), and notes the terminal modes the child
// turns on, so that they can be turned off when it is gone.
//
// The only bytes it holds back are the start of what may be a clipboard
// write ("ESC ] 5 2"); a terminal does nothing with an unfinished
// sequence, so holding it delays nothing the user sees.
type filter struct {
	clipboard bool
	state     int
	held      []byte
	// prev is the last byte seen: 0x9d is the 8-bit OSC introducer after
	// an ASCII byte or as the UTF-8 encoding of U+009D (0xc2 0x9d), and a
	// continuation byte of another character otherwise.
	prev byte
	// params are a CSI sequence's parameter bytes so far.
	params []byte
	// modes holds the DEC private modes the child set (true) or reset.
	modes map[int]bool
	// kitty counts the child's pushes of the kitty keyboard protocol;
	// otherKeys is xterm's modifyOtherKeys, on.
	kitty     int
	otherKeys bool
}

const (
	ground = iota
	escape // after ESC
	csi    // after ESC [
	oscNum // after an OSC introducer: its number, held back
	drop   // inside a clipboard write
	dropEsc
)

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a
	// c1OSC and c1ST are the 8-bit OSC and string terminator.
	c1OSC = 0x9d
	c1ST  = 0x9c
	// maxParams bounds what is kept of one sequence; anything longer is
	// passed through untracked.
	maxParams = 64
	maxModes  = 64
)

// write returns what of p goes on to the user's terminal.
func (f *filter) write(p []byte) []byte {
	out := make([]byte, 0, len(p)+len(f.held))
	for _, b := range p {
		out = f.step(out, b)
		f.prev = b
	}
	return out
}

func (f *filter) step(out []byte, b byte) []byte {
	switch f.state {
	case escape:
		switch b {
		case ']':
			f.held = append(f.held, b)
			f.state = oscNum
			return out
		case esc:
			// The first ESC was cut short; the second starts anew.
			out = append(out, f.release()...)
			f.held = append(f.held, esc)
			return out
		}
		out = append(out, f.release()...)
		f.state = ground
		if b == '[' {
			f.state = csi
			f.params = f.params[:0]
		}
		return append(out, b)
	case csi:
		switch {
		case b >= 0x20 && b <= 0x3f:
			if len(f.params) < maxParams {
				f.params = append(f.params, b)
			}
			return append(out, b)
		case b >= 0x40 && b <= 0x7e:
			if len(f.params) < maxParams {
				f.track(string(f.params), b)
			}
			f.state = ground
			return append(out, b)
		case b == esc, b == can, b == sub:
			f.state = ground
			return f.step(out, b)
		}
		// A control character inside a sequence is carried out by the
		// terminal and does not end it.
		return append(out, b)
	case oscNum:
		if b >= '0' && b <= '9' && len(f.held) < 8 {
			f.held = append(f.held, b)
			return out
		}
		digits := f.held[1:]
		if f.held[0] == esc {
			digits = f.held[2:]
		}
		if n, err := strconv.Atoi(string(digits)); b == ';' && err == nil && n == 52 && !f.clipboard {
			f.held = f.held[:0]
			f.state = drop
			return out
		}
		out = append(out, f.release()...)
		f.state = ground
		return f.step(out, b)
	case drop:
		switch b {
		case bel, c1ST, can, sub:
			f.state = ground
		case esc:
			f.state = dropEsc
		}
		return out
	case dropEsc:
		f.state = ground
		if b == '\\' {
			return out
		}
		f.held = append(f.held[:0], esc)
		f.state = escape
		return f.step(out, b)
	}
	switch {
	case b == esc:
		f.held = append(f.held[:0], b)
		f.state = escape
		return out
	case b == c1OSC && (f.prev < 0x80 || f.prev == 0xc2):
		f.held = append(f.held[:0], b)
		f.state = oscNum
		return out
	}
	return append(out, b)
}

// release returns the bytes held back, which turned out to be no clipboard
// write.
func (f *filter) release() []byte {
	h := f.held
	f.held = f.held[:0]
	return h
}

// track notes a mode the CSI sequence with these parameters and final byte
// sets.
func (f *filter) track(params string, final byte) {
	switch {
	case final == 'h' || final == 'l':
		nums, ok := strings.CutPrefix(params, "?")
		if !ok {
			return
		}
		for _, s := range strings.Split(nums, ";") {
			n, err := strconv.Atoi(s)
			if err != nil {
				continue
			}
			if f.modes == nil {
				f.modes = map[int]bool{}
			}
			if _, known := f.modes[n]; known || len(f.modes) < maxModes {
				f.modes[n] = final == 'h'
			}
		}
	case final == 'u' && strings.HasPrefix(params, ">"):
		f.kitty++
	case final == 'u' && strings.HasPrefix(params, "<"):
		n, err := strconv.Atoi(params[1:])
		if err != nil || n < 1 {
			n = 1
		}
		f.kitty = max(f.kitty-n, 0)
	case final == 'm' && strings.HasPrefix(params, ">4"):
		v, _ := strings.CutPrefix(params, ">4")
		v = strings.TrimPrefix(v, ";")
		n, _ := strconv.Atoi(v)
		f.otherKeys = n != 0
	}
}

// onByDefault are the DEC private modes a terminal starts with on:
// autowrap and the visible cursor.
var onByDefault = map[int]bool{7: true, 25: true}

// reset returns what puts the user's terminal back where the child found
// it: each mode the child left changed is set back to its default, the
// alternate screen last, since leaving it redraws the user's screen.
func (f *filter) reset() []byte {
	var b strings.Builder
	if f.kitty > 0 {
		fmt.Fprintf(&b, "\x1b[<%du", f.kitty)
	}
	if f.otherKeys {
		b.WriteString("\x1b[>4m")
	}
	var nums []int
	for n, on := range f.modes {
		if on != onByDefault[n] {
			nums = append(nums, n)
		}
	}
	screen := func(n int) bool { return n == 47 || n == 1047 || n == 1049 }
	slices.SortFunc(nums, func(a, b int) int {
		if screen(a) != screen(b) {
			if screen(a) {
				return 1
			}
			return -1
		}
		return a - b
	})
	for _, n := range nums {
		set := "l"
		if onByDefault[n] {
			set = "h"
		}
		fmt.Fprintf(&b, "\x1b[?%d%s", n, set)
	}
	return []byte(b.String())
}

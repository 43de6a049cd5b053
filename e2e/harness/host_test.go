package harness

import (
	"strings"
	"sync"
	"testing"
)

// slowPrompt is a tmux pane whose program takes every key but draws
// what was typed only once it has been typed twice: a loaded machine's
// Claude Code, drawing later than Press waits.
type slowPrompt struct {
	prompt string
	mu     sync.Mutex
	typed  []rune
	sends  int
}

func (p *slowPrompt) tmux(args ...string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case args[0] == "send-keys" && len(args) == 3 && args[1] == "-l":
		p.typed = append(p.typed, []rune(args[2])...)
		p.sends++
	case args[0] == "send-keys":
		for _, k := range args[1:] {
			if k == "BSpace" && len(p.typed) > 0 {
				p.typed = p.typed[:len(p.typed)-1]
			}
		}
	case args[0] == "capture-pane" && p.sends >= 2:
		return p.prompt + string(p.typed)
	}
	return p.prompt
}

// TestTypeDrawnLate: text typed again because the screen had not shown
// it in time is on Claude Code's prompt once when Type returns (CI saw
// "❯ /exit/exit", a session that never ended). Typed ahead of the
// prompt (a terminal's echo), it is not erased: CI saw Claude Code start
// with an empty prompt after the erasing.
func TestTypeDrawnLate(t *testing.T) {
	for prompt, want := range map[string]string{"❯ ": "/exit", "": "/exit/exit"} {
		p := &slowPrompt{prompt: prompt}
		s := Type(t, p.tmux, "/exit")
		if got := string(p.typed); got != want {
			t.Errorf("after a prompt of %q, the pane holds %q, not %q", prompt, got, want)
		}
		if prompt != "" && strings.Contains(s, "/exit/exit") {
			t.Errorf("Type returned the screen with the text twice: %q", s)
		}
	}
}

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
	mu    sync.Mutex
	typed []rune
	sends int
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
		return "> " + string(p.typed)
	}
	return "> "
}

// TestTypeDrawnLate: text typed again because the screen had not shown
// it in time is on the prompt once when Type returns (CI saw
// "/exit/exit", a session that never ended).
func TestTypeDrawnLate(t *testing.T) {
	p := &slowPrompt{}
	s := Type(t, p.tmux, "/exit")
	if got := string(p.typed); got != "/exit" {
		t.Errorf("the prompt holds %q, not %q once", got, "/exit")
	}
	if strings.Contains(s, "/exit/exit") {
		t.Errorf("Type returned the screen with the text twice: %q", s)
	}
}

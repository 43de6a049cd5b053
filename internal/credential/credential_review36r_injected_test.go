package credential

import (
	"strings"
	"testing"
	"time"
)

// TestInjectedJudgedOnce: a !{ inside a Gemini command's !{…} is judged
// with its body, not again as a body of its own, and what a body runs is
// not looked through for !{ again: a hook's line of vault and forty !{
// took 2^40 judgements, and the launch that judged it never ended. A
// password in a body, nested or not, is still found.
func TestInjectedJudgedOnce(t *testing.T) {
	calls := 0
	injected([]byte("vault "+strings.Repeat("!{", 1000)), func([]byte) bool { calls++; return false })
	// One body, judged as written and without its inner !{.
	if calls != 2 {
		t.Errorf("a line of 1,000 !{ left open took %d judgements, want 2", calls)
	}
	calls = 0
	injected([]byte("!{a !{b} c} !{d}"), func([]byte) bool { calls++; return false })
	if calls != 3 {
		t.Errorf("!{a !{b} c} !{d} took %d judgements, want 3", calls)
	}
	done := make(chan bool, 1)
	go func() { done <- InScript([]byte("vault " + strings.Repeat("!{", 60) + "\n")) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("InScript of a line of vault and 60 !{ has not ended after a minute")
	}
	for _, s := range []string{"!{sshpass -p R36injPw ssh host}", "!{echo !{sshpass -p R36injPw ssh host}}", "run !{vault login hvs.R36injectedTokenQ2pLm4x9WZk3w}"} {
		if !InCommand([]byte(s)) {
			t.Errorf("InCommand(%q) = false, want true", s)
		}
	}
}

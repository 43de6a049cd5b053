package session

import "testing"

func TestResumeAsked(t *testing.T) {
	for _, c := range []struct {
		args  []string
		id    string
		asked bool
	}{
		{[]string{"-p", "hi"}, "", false},
		{[]string{"-c"}, "", true},
		{[]string{"--model", "opus", "--continue", "-p", "x"}, "", true},
		{[]string{"--resume"}, "", true},
		{[]string{"-r", "abc"}, "abc", true},
		{[]string{"--resume", "--model", "opus"}, "", true},
		{[]string{"--resume=abc", "-p", "x"}, "abc", true},
		{[]string{"-p", "--", "-c"}, "", false},
		{[]string{"-cp", "go on"}, "", true},
		{[]string{"-pr", "abc"}, "abc", true},
		{[]string{"-rabc"}, "abc", true},
		{[]string{"-np", "x"}, "", false},
	} {
		if id, asked := resumeAsked(c.args); id != c.id || asked != c.asked {
			t.Errorf("resumeAsked(%q) = %q, %v; want %q, %v", c.args, id, asked, c.id, c.asked)
		}
	}
}

// TestClaudePrints: combined one-letter options count as Claude Code
// reads them: -cp prints, -rp resumes the conversation named "p".
func TestClaudePrints(t *testing.T) {
	for _, c := range []struct {
		args   []string
		prints bool
	}{
		{[]string{"-p", "hi"}, true},
		{[]string{"--print", "hi"}, true},
		{[]string{"-cp", "hi"}, true},
		{[]string{"-pc", "hi"}, true},
		{[]string{"-c", "hi"}, false},
		{[]string{"-rp"}, false},
		{[]string{"-np"}, false},
		{[]string{"--", "-p"}, false},
		{[]string{"--", "-cp"}, false},
		{[]string{"-xp"}, false},
	} {
		if got := claudePrints(c.args); got != c.prints {
			t.Errorf("claudePrints(%q) = %v, want %v", c.args, got, c.prints)
		}
	}
}

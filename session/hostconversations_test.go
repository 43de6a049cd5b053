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
	} {
		if id, asked := resumeAsked(c.args); id != c.id || asked != c.asked {
			t.Errorf("resumeAsked(%q) = %q, %v; want %q, %v", c.args, id, asked, c.id, c.asked)
		}
	}
}

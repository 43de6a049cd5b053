package session

import "testing"

// TestResumeShown: an interactive session's end said how to resume it
// twice, Claude Code's own line and claudebox's, both claudebox --resume
// ID. claudebox's goes where Claude Code's, at the very end of the
// output, is that command for this session; it stays where the end is
// another (-p, an older Claude Code's claude --resume, another id, more
// after it).
func TestResumeShown(t *testing.T) {
	const id = "0f3c1a52-6a55-4c3e-9a42-1d2e3f4a5b6c"
	for _, c := range []struct {
		name, out string
		shown     bool
	}{
		{"claude's line", "\x1b[?25h\x1b[2m\r\nResume this session with:\r\nclaudebox --resume " + id + "\r\n\x1b[22m", true},
		{"with advice", "bye\r\n\x1b[2m\r\nSome advice.\r\nResume this session with:\r\nclaudebox --resume " + id + "\r\n\r\n\x1b[22m\x1b]0;\x07", true},
		{"older claude", "\x1b[2m\r\nResume this session with:\r\nclaude --resume " + id + "\r\n\x1b[22m", false},
		{"another id", "\r\nResume this session with:\r\nclaudebox --resume 11111111-6a55-4c3e-9a42-1d2e3f4a5b6c\r\n", false},
		{"more after it", "\r\nResume this session with:\r\nclaudebox --resume " + id + "\r\nrm -rf ~\r\n", false},
		{"a command around it", "\r\nResume this session with:\r\nclaudebox --resume " + id + "; curl x | sh\r\n", false},
		{"nothing", "", false},
	} {
		if got := resumeShown([]byte(c.out), id); got != c.shown {
			t.Errorf("%s: shown %v, want %v", c.name, got, c.shown)
		}
	}
}

package mount

import (
	"slices"
	"strings"
	"testing"
)

// TestSeatHostname: the first session keeps the host's name (bwrap is
// given none); one beside it is named after the host, within a name's 64
// bytes and a label's 63.
func TestSeatHostname(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, c := range []struct {
		host string
		seat int
		want string
	}{
		{"vm", 0, ""},
		{"vm", 1, "vm-2"},
		{"vm", 11, "vm-12"},
		{"box.example.com", 1, "box-2.example.com"},
		{long, 1, strings.Repeat("a", 61) + "-2"},
		{"box." + long, 1, ("box-2." + long)[:64]},
	} {
		if got := SeatHostname(c.host, c.seat); got != c.want {
			t.Errorf("SeatHostname(%q, %d) = %q, want %q", c.host, c.seat, got, c.want)
		}
	}
	p := Plan{Hostname: "vm-2", Chdir: "/", Command: []string{"true"}}
	if args := p.Args(); !slices.Contains(args, "--hostname") || args[slices.Index(args, "--hostname")+1] != "vm-2" {
		t.Errorf("bwrap is not given the sandbox's name: %q", args)
	}
	if args := (Plan{Chdir: "/", Command: []string{"true"}}).Args(); slices.Contains(args, "--hostname") {
		t.Errorf("the first session's sandbox is given a name: %q", args)
	}
}

// TestNamedInHosts: the sandbox's own name is given the loopback address
// in its copy of the hosts file, after what the host's holds, whether or
// not its last line ends.
func TestNamedInHosts(t *testing.T) {
	for _, c := range []struct{ hosts, want string }{
		{"127.0.0.1\tlocalhost\n", "127.0.0.1\tlocalhost\n127.0.1.1\tvm-2\n"},
		{"127.0.0.1\tlocalhost", "127.0.0.1\tlocalhost\n127.0.1.1\tvm-2\n"},
		{"", "127.0.1.1\tvm-2\n"},
	} {
		if got := string(NamedInHosts([]byte(c.hosts), "vm-2")); got != c.want {
			t.Errorf("NamedInHosts(%q) = %q, want %q", c.hosts, got, c.want)
		}
	}
}

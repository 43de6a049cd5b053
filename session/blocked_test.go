package session

import (
	"fmt"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// The end names what the filtered network refused and how to allow one;
// of storage.googleapis.com, which Claude Code's /plugin asks for its
// catalog of plugins, it says what is asked there and what allowing the
// host opens, and does not offer it as the one to allow (it offered all
// of Google Cloud Storage). Another agent's refusal of it is any host's.
func TestBlockedLines(t *testing.T) {
	const live = " (with --live while a session runs, --save to keep it)"
	const asks = "hint: Claude Code asks storage.googleapis.com for /plugin's catalog of plugins (their sizes and installs), which nothing else needs; claudebox --allow-host storage.googleapis.com would open all of Google Cloud Storage to the sandbox"
	gcs, pypi := proxy.Blocked{Host: "storage.googleapis.com", Count: 2}, proxy.Blocked{Host: "pypi.example.com", Count: 1}
	for _, c := range []struct {
		hosts  []proxy.Blocked
		claude bool
		want   []string
	}{
		{nil, true, nil},
		{[]proxy.Blocked{pypi}, true, []string{"claudebox: the filtered network blocked pypi.example.com (1); to allow one: claudebox --allow-host pypi.example.com" + live}},
		{[]proxy.Blocked{gcs}, true, []string{"claudebox: the filtered network blocked storage.googleapis.com (2)", asks}},
		{[]proxy.Blocked{gcs, pypi}, true, []string{"claudebox: the filtered network blocked storage.googleapis.com (2), pypi.example.com (1); to allow one: claudebox --allow-host pypi.example.com" + live, asks}},
		{[]proxy.Blocked{gcs}, false, []string{"claudebox: the filtered network blocked storage.googleapis.com (2); to allow one: claudebox --allow-host storage.googleapis.com" + live}},
	} {
		if got := blockedLines(c.hosts, 0, c.claude, "/run/app.1.log"); !slices.Equal(got, c.want) {
			t.Errorf("blockedLines(%v, claude %v):\n%q\nwant\n%q", c.hosts, c.claude, got, c.want)
		}
	}
}

// TestBlockedLinesCrowded: where the sandbox asked for more hosts than the
// line names, none is offered to allow (it would be the sandbox's pick),
// and the count is never less than what was asked.
func TestBlockedLinesCrowded(t *testing.T) {
	var hosts []proxy.Blocked
	for i := range 7 {
		hosts = append(hosts, proxy.Blocked{Host: fmt.Sprintf("h%d.example.com", i), Count: 7 - i})
	}
	const hint = "hint: the sandbox chooses the hosts it asks for, made-up ones too; the session's first 4,000 decisions are in /run/app.1.log until the next session starts: allow only a host your work needs, claudebox --allow-host HOST"
	for _, c := range []struct {
		hosts  []proxy.Blocked
		others int
		want   string
	}{
		{hosts, 0, "claudebox: the filtered network blocked 7 hosts, most refused first: h0.example.com (7), h1.example.com (6), h2.example.com (5), h3.example.com (4), h4.example.com (3), …"},
		{hosts, 3, "claudebox: the filtered network blocked more than 7 hosts, most refused first: h0.example.com (7), h1.example.com (6), h2.example.com (5), h3.example.com (4), h4.example.com (3), …"},
	} {
		if got := blockedLines(c.hosts, c.others, true, "/run/app.1.log"); !slices.Equal(got, []string{c.want, hint}) {
			t.Errorf("blockedLines(%d hosts, %d others):\n%q\nwant\n%q", len(c.hosts), c.others, got, []string{c.want, hint})
		}
	}
}

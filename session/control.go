package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/proxy"
)

// The control socket's one command: POST allowPath with an allow-hosts
// entry as the body adds it to the session's allow list. The answer's body
// is one line: the entry as added, or why not.
const allowPath = "/allow"

// maxEntry bounds an entry read from the control socket.
const maxEntry = 1 << 10

// serveControl serves the session's control socket at path.
func serveControl(path string, p *proxy.Proxy) (*http.Server, error) {
	ln, err := listenControl(path)
	if err != nil {
		return nil, hint.Errorf("set HOME to a shorter path, or launch with --network=host", "cannot listen on %s for the session's control: %v", path, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+allowPath, func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxEntry+1))
		if err != nil || len(b) > maxEntry {
			http.Error(w, "the entry is too long", http.StatusBadRequest)
			return
		}
		rule, err := p.Allow(string(b))
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprintln(w, rule.String())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return srv, nil
}

// AllowLive adds entry to the allow list of the running session s,
// returning the entry as it reads it.
func (s LiveSession) AllowLive(entry string) (string, error) {
	c := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", s.Control())
		}},
	}
	resp, err := c.Post("http://session"+allowPath, "text/plain", strings.NewReader(entry))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxEntry))
	answer := strings.TrimSpace(string(b))
	if resp.StatusCode != http.StatusOK {
		return "", errors.New(answer)
	}
	return answer, nil
}

// shownBlocked is how many hosts the end's line names.
const shownBlocked = 5

// claudeAsks are the hosts Claude Code asks on its own that the filtered
// network does not allow, where allowing the host opens far more than
// Claude Code reads there, with what it asks. Measured with 2.1.330:
// /plugin reads its catalog of plugins from one file in a bucket of
// Google Cloud Storage.
var claudeAsks = map[string]string{
	"storage.googleapis.com": "for /plugin's catalog of plugins (their sizes and installs), which nothing else needs; claudebox --allow-host storage.googleapis.com would open all of Google Cloud Storage to the sandbox",
}

// sayBlocked sums up, as the session ends, what the filtered network
// refused, and how to allow it.
func (s *Session) sayBlocked(w io.Writer) {
	if s.proxy == nil {
		return
	}
	hosts, others := s.proxy.Blocked()
	for _, line := range blockedLines(hosts, others, s.plan.Agent == nil, s.runFiles+logExt) {
		printable.Say(w, "%s", line)
	}
}

// blockedLines are the end's lines on what the filtered network refused
// (hosts, most refused first; others, the refusals past them; log, the
// session's decision log): how to allow one, and, of a host Claude Code
// asks on its own (claude: the agent is Claude Code), what it asks there
// and what allowing it opens. The sandbox chooses the hosts it asks for:
// where the line cannot name them all, made-up names may crowd out the
// one your work needs or put theirs first, so no host is offered then,
// and the count is never less than what was asked.
func blockedLines(hosts []proxy.Blocked, others int, claude bool, log string) []string {
	if len(hosts) == 0 {
		return nil
	}
	asked := func(host string) bool { _, ok := claudeAsks[host]; return ok && claude }
	var named, asks []string
	for i, h := range hosts {
		if i == shownBlocked {
			break
		}
		named = append(named, fmt.Sprintf("%s (%d)", h.Host, h.Count))
		if asked(h.Host) {
			asks = append(asks, "hint: Claude Code asks "+h.Host+" "+claudeAsks[h.Host])
		}
	}
	if len(hosts) > shownBlocked || others > 0 {
		count := fmt.Sprintf("%d hosts", len(hosts))
		if others > 0 {
			count = "more than " + count
		}
		crowded := []string{
			"claudebox: the filtered network blocked " + count + ", most refused first: " + strings.Join(named, ", ") + ", …",
			"hint: the sandbox chooses the hosts it asks for, made-up ones too; the session's first 4,000 decisions are in " + log + " until the next session starts: allow only a host your work needs, claudebox --allow-host HOST",
		}
		return append(crowded, asks...)
	}
	line := "claudebox: the filtered network blocked " + strings.Join(named, ", ")
	if i := slices.IndexFunc(hosts, func(h proxy.Blocked) bool { return !asked(h.Host) }); i >= 0 {
		line += "; to allow one: claudebox --allow-host " + hosts[i].Host + " (with --live while a session runs, --save to keep it)"
	}
	return append([]string{line}, asks...)
}

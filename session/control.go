package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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

// sayBlocked sums up in one line, as the session ends, what the filtered
// network refused, and how to allow it.
func (s *Session) sayBlocked(w io.Writer) {
	if s.proxy == nil {
		return
	}
	hosts, others := s.proxy.Blocked()
	if len(hosts) == 0 {
		return
	}
	var named []string
	for i, h := range hosts {
		if i == shownBlocked {
			break
		}
		named = append(named, fmt.Sprintf("%s (%d)", h.Host, h.Count))
	}
	more := ""
	switch {
	case len(hosts) > shownBlocked:
		more = fmt.Sprintf(" and %d more hosts", len(hosts)-shownBlocked)
	case others > 0:
		more = " and more"
	}
	printable.Say(w, "claudebox: the filtered network blocked %s%s; to allow one: claudebox --allow-host %s (with --live while a session runs, --save to keep it)",
		strings.Join(named, ", "), more, hosts[0].Host)
}

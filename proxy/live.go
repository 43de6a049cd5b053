package proxy

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"
)

// rule is the allow entry that lets t through: its host or address, with
// its port unless that is 443 or 80, which an entry without one covers.
func (t target) rule() Rule {
	r := Rule{host: t.host, addr: t.addr, port: t.port}
	if t.port == 443 || t.port == 80 {
		r.port = 0
	}
	return r
}

// current is the policy as it stands.
func (e *egress) current() Policy {
	e.policyMu.RLock()
	defer e.policyMu.RUnlock()
	return e.policy
}

// Allow adds entry to the running session's allow list, from the host:
// what the next connection asks for is judged by it. An entry the deny
// list covers, or one of the API's own hosts, is refused: deny wins here as
// at launch.
func (p *Proxy) Allow(entry string) (Rule, error) {
	r, err := ParseRule(entry)
	if err != nil {
		return r, err
	}
	if p.egress == nil {
		return r, errors.New("this session's network is not the filtered one")
	}
	e := p.egress
	e.policyMu.Lock()
	defer e.policyMu.Unlock()
	if r.host != "" && slices.Contains(e.policy.Never, r.host) {
		return r, errors.New("the API's own host: Claude's API is reached only through claudebox's proxy, with the session's own credential")
	}
	if d := slices.IndexFunc(e.policy.Deny, func(d Rule) bool { return d.covers(r) }); d >= 0 {
		return r, errors.New(cmp.Or(e.policy.Deny[d].source, "deny-hosts") + " has " + e.policy.Deny[d].String() + ", and deny wins")
	}
	// A new array: a connection being judged keeps reading the old one.
	e.policy.Allow = append(slices.Clip(e.policy.Allow), r)
	return r, nil
}

// covers says the deny entry d refuses all that the allow entry r would
// let through: then allowing r changes nothing.
func (d Rule) covers(r Rule) bool {
	d = d.denying()
	ports := []int{r.port}
	if r.port == 0 {
		ports = []int{443, 80}
	}
	for _, port := range ports {
		switch {
		case r.host == "":
			if !d.matchesAddr(r.addr, port) {
				return false
			}
		case r.wildcard:
			// *.a.example.com is covered by *.example.com and *.a.example.com.
			if !d.wildcard || !d.matchesPort(port) || r.host != d.host && !strings.HasSuffix(r.host, "."+d.host) {
				return false
			}
		case !d.matchesName(r.host, port):
			return false
		}
	}
	return true
}

// Blocked is one host the filtered network refused, and how often.
type Blocked struct {
	Host  string
	Count int
}

// maxTallied is how many hosts a session's tally names; the sandbox
// chooses how many it asks for.
const maxTallied = 100

// tally counts the refusals by the entry that would allow them.
type tally struct {
	mu     sync.Mutex
	counts map[string]int
	// others counts the refusals of hosts beyond maxTallied.
	others int
}

func (t *tally) add(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts = map[string]int{}
	}
	if _, ok := t.counts[host]; !ok && len(t.counts) >= maxTallied {
		t.others++
		return
	}
	t.counts[host]++
}

// Blocked lists what the filtered network refused so far, most refused
// first, and the refusals of the hosts beyond the list's bound.
func (p *Proxy) Blocked() (hosts []Blocked, others int) {
	if p.egress == nil {
		return nil, 0
	}
	t := &p.egress.blocked
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, n := range t.counts {
		hosts = append(hosts, Blocked{h, n})
	}
	slices.SortFunc(hosts, func(a, b Blocked) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Host, b.Host))
	})
	return hosts, t.others
}

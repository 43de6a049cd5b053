package proxy

import (
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

// An operator's NAT64 prefix is read from how the host resolves
// ipv4only.arpa, at each length RFC 6052 allows, the IPv4 address around
// the zero byte after the first 64 bits.
func TestNAT64Prefixes(t *testing.T) {
	for addr, want := range map[string]string{
		"2a01:4f8:64::c000:aa":       "2a01:4f8:64::/96",
		"2a01:4f8:c000:aa::":         "2a01:4f8::/32",
		"2a01:4f8:11c0:0:aa::":       "2a01:4f8:1100::/40",
		"2a01:4f8:11:c000:0:aa00::":  "2a01:4f8:11::/48",
		"2a01:4f8:11:12c0:0:aa::":    "2a01:4f8:11:1200::/56",
		"2a01:4f8:11:12:c0:0:ab00:0": "2a01:4f8:11:12::/64",
		"192.0.0.170":                "",
		"2a01:4f8::1":                "",
	} {
		var got []string
		for _, e := range nat64Prefixes([]netip.Addr{netip.MustParseAddr(addr)}) {
			got = append(got, e.prefix.String())
		}
		if want == "" && len(got) > 0 || want != "" && !slices.Contains(got, want) {
			t.Errorf("%s: %v, want %q", addr, got, want)
		}
	}
}

// TestEgressHostNAT64: on a network whose NAT64 gateway translates its
// own prefix of global range, an allowed name resolving into that prefix
// reached the IPv4 address it carries, a cloud's metadata service or the
// LAN, judged as public by its range. It is judged as the address it
// carries; one carrying a public address is dialled.
func TestEgressHostNAT64(t *testing.T) {
	stub := &stubNet{names: map[string][]netip.Addr{
		"ipv4only.arpa":            {netip.MustParseAddr("192.0.0.170"), netip.MustParseAddr("2a01:4f8:64::c000:aa"), netip.MustParseAddr("2a01:4f8:64::c000:ab")},
		"metadata.allowed.example": {netip.MustParseAddr("2a01:4f8:64::a9fe:a9fe")},
		"lan.allowed.example":      {netip.MustParseAddr("2a01:4f8:64::a00:5")},
		"public.allowed.example":   {netip.MustParseAddr("2a01:4f8:64::5db8:d822")},
	}}
	px := startEgress(t, mustPolicy(t, []string{"*.allowed.example"}, nil), stub, io.Discard)
	for _, host := range []string{"metadata.allowed.example", "lan.allowed.example"} {
		if status, body, _ := connect(t, px, host+":443"); status != http.StatusForbidden || !strings.Contains(body, "inside the host or its network") {
			t.Errorf("CONNECT %s: %d %q, want 403: it reaches an internal IPv4 address through the NAT64", host, status, body)
		}
	}
	connect(t, px, "public.allowed.example:443")
	if d := stub.dials(); !slices.Equal(d, []string{"[2a01:4f8:64::5db8:d822]:443"}) {
		t.Errorf("dialled %v, want only the public one", d)
	}
}

// TestEgressNAT64ReadAgain: the NAT64 prefix was read once a session, at
// the first name resolving to an IPv6 address: a look-up that failed then
// (the resolver slow for two seconds), or a laptop that joined a NAT64
// network later, left the session without it, and an allowed name
// resolving into the prefix reached the cloud's metadata service it
// carries. The prefix is read again once the last look-up is stale, and
// one read earlier in the session is kept.
func TestEgressNAT64ReadAgain(t *testing.T) {
	defer func(d time.Duration) { nat64Fresh = d }(nat64Fresh)
	nat64Fresh = 0
	stub := &stubNet{names: map[string][]netip.Addr{
		"public.allowed.example":   {netip.MustParseAddr("2a01:4f8:64::5db8:d822")},
		"metadata.allowed.example": {netip.MustParseAddr("2a01:4f8:64::a9fe:a9fe")},
	}}
	px := startEgress(t, mustPolicy(t, []string{"*.allowed.example"}, nil), stub, io.Discard)
	connect(t, px, "public.allowed.example:443")
	stub.mu.Lock()
	stub.names["ipv4only.arpa"] = []netip.Addr{netip.MustParseAddr("2a01:4f8:64::c000:aa")}
	stub.mu.Unlock()
	if status, body, _ := connect(t, px, "metadata.allowed.example:443"); status != http.StatusForbidden {
		t.Errorf("CONNECT metadata.allowed.example once the prefix answers: %d %q, want 403", status, body)
	}
	stub.mu.Lock()
	delete(stub.names, "ipv4only.arpa")
	stub.mu.Unlock()
	if status, body, _ := connect(t, px, "metadata.allowed.example:443"); status != http.StatusForbidden {
		t.Errorf("CONNECT metadata.allowed.example after the look-up failed again: %d %q, want 403: the prefix read earlier stands", status, body)
	}
	if d := stub.dials(); !slices.Equal(d, []string{"[2a01:4f8:64::5db8:d822]:443"}) {
		t.Errorf("dialled %v, want only the public one", d)
	}
}

package network

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// hostServer serves dir over plain HTTP on the host's 127.0.0.1, and a
// /hello page; it returns its host:port.
func hostServer(t *testing.T, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "HELLO-FROM-THE-HOST\n") })
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestReplayNetworkFiltered: the default network is filtered. The attack:
// from inside, reach what the user did not list: a host on the host's
// loopback directly, one through the proxy, Claude's API with a key of its
// own, DNS, the cloud metadata service and the host's loopback by a name
// that resolves there. The proof, on the host side: only the listed server answers
// (through curl, CONNECT and git clone), the proxy's log names each host it
// refused, and no process of claudebox's, nor the socket its relay
// handed the listeners out on, is left inside.
func TestReplayNetworkFiltered(t *testing.T) {
	h := harness.NewHost(t)
	served := filepath.Join(h.Base, "served")
	bare := filepath.Join(served, "repo.git")
	src := filepath.Join(h.Base, "src")
	h.GitRepo(src)
	h.Run(h.Base, nil, "git", "clone", "-q", "--bare", src, bare)
	h.Run(bare, nil, "git", "update-server-info")
	listed := hostServer(t, served)
	unlisted := hostServer(t, served)
	port := listed[strings.LastIndex(listed, ":")+1:]
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"),
		"allow-hosts = [\""+listed+"\", \"localhost\", \"named.test:"+port+"\", \"metadata.test\", \"rebind.test\"]\n")
	// The proxy's DNS is a table: named.test is the listed server's address,
	// metadata.test the cloud metadata service's, rebind.test and localhost loopback (where the listed server is, but on
	// another port than the one listed by address).
	resolve := []string{"CLAUDEBOX_RESOLVE=named.test=127.0.0.1 metadata.test=169.254.169.254 rebind.test=127.0.0.1 localhost=127.0.0.1"}
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	// A UDP service on the host's loopback, as a local DNS resolver is:
	// nothing sent from inside may reach it.
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)

	out := h.Inside(proj, resolve, `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		nop='--noproxy "" -sS --max-time 20'
		check listed-by-url 'test "$(eval curl $nop http://`+listed+`/hello)" = HELLO-FROM-THE-HOST'
		check listed-by-connect 'test "$(eval curl $nop -p http://`+listed+`/hello)" = HELLO-FROM-THE-HOST'
		check git-clone 'NO_PROXY= no_proxy= git clone -q http://`+listed+`/repo.git /tmp/clone && test -f /tmp/clone/README'
		check unlisted-403 'test "$(eval curl $nop -o /tmp/body -w %{http_code} http://`+unlisted+`/hello)" = 403 && grep -q "allow-host 127.0.0.1" /tmp/body'
		check unlisted-name-connect '! curl -sS --max-time 20 https://unlisted.example/ 2>/tmp/err && grep -q 403 /tmp/err'
		check api-by-connect '! curl -sS --max-time 20 https://api.anthropic.com/v1/models 2>/tmp/err && grep -q 403 /tmp/err'
		check listed-by-name 'test "$(curl -sS --max-time 20 http://named.test:`+port+`/hello)" = HELLO-FROM-THE-HOST'
		check listed-by-name-connect 'test "$(curl -sS --max-time 20 -p http://named.test:`+port+`/hello)" = HELLO-FROM-THE-HOST'
		check metadata-refused '! curl -sS --max-time 20 -p http://metadata.test/ 2>/tmp/err && grep -q 403 /tmp/err'
		check metadata-refused-url 'test "$(curl -sS --max-time 20 -o /tmp/body -w %{http_code} http://metadata.test/latest/meta-data/)" = 403 && grep -q 169.254.169.254 /tmp/body'
		check rebind-refused 'test "$(curl -sS --max-time 20 -o /dev/null -w %{http_code} http://rebind.test/hello)" = 403'
		check localhost-rebinds '! eval curl $nop -p http://localhost/ 2>/tmp/err && grep -q 403 /tmp/err'
		check no-direct-tcp 'timeout 10 bash -c "echo > /dev/tcp/`+strings.Replace(listed, ":", "/", 1)+`" 2>/dev/null; test $? = 1'
		check only-loopback 'test "$(awk "NR>2{print \$1}" /proc/net/dev)" = lo:'
		check no-dns 'timeout 10 getent hosts example.com; test $? = 2'
		echo datagram > /dev/udp/127.0.0.1/`+udpPort+` 2>/dev/null
		check no-claudebox-inside '! pgrep -x claudebox >/dev/null'
		check no-handoff-socket 'for fd in /proc/[0-9]*/fd/*; do case "$(readlink $fd)" in socket:*) exit 1;; esac; done; true'
	`)
	t.Log(out)
	if strings.Contains(out, "FAIL") {
		t.Errorf("inside:\n%s", out)
	}
	udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a datagram from inside reached the host's loopback (%d bytes)", n)
	}
	log := h.SessionLogs()
	for _, want := range []string{`"target":"` + unlisted + `"`, `"target":"unlisted.example:443"`, `"target":"api.anthropic.com:443"`, `"target":"localhost:80"`, `"target":"metadata.test:80"`, `"target":"rebind.test:80"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the session's log lacks %s:\n%s", want, log)
		}
	}
}

// BenchmarkLaunchNetwork is a whole launch, `claudebox --shell -c true` as
// an unprivileged user, under each network: what the filtered one's proxy,
// relay and namespace cost at startup.
func BenchmarkLaunchNetwork(b *testing.B) {
	h := harness.NewHost(b)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	for _, mode := range []string{"filtered", "host", "none"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				h.Run(proj, nil, "claudebox", "--network="+mode, "--shell", "-c", "true")
			}
		})
	}
}

// TestReplayNetworkClaude: the real Claude Code answers under the filtered
// network, its API calls going through the relay to the injecting proxy,
// which is the only thing it can reach.
func TestReplayNetworkClaude(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-filtered")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	if out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--network=filtered", "-p", "hello"); !strings.Contains(out, "FAKE-REPLY-filtered") {
		t.Fatalf("claude printed %q, want the fake reply", out)
	}
	if got := h.Inside(proj, api.Env("sk-ant-test-key"), `echo "$ANTHROPIC_BASE_URL $HTTPS_PROXY $no_proxy"`); got != "http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1,::1\n" {
		t.Errorf("inside: %q", got)
	}
}

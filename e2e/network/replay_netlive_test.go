package network

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// countingServer serves /hello on the host's 127.0.0.1 and counts the
// requests it gets; it returns its host:port.
func countingServer(t *testing.T, hits *atomic.Int32) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("HELLO-FROM-THE-HOST\n"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// waitFile waits for path to exist, as a step of a session shows.
func waitFile(t *testing.T, path, what string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !paths.Exists(path); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
	}
}

// TestReplayNetworkLiveAllow: a host the session's filtered network
// refuses is allowed from another terminal on the host, and the same curl
// inside then succeeds without a restart; --net-log, started beside the
// session, shows the refusal and the allowed connection and ends with the
// session; --gc keeps its run files while it runs and removes them after;
// --save keeps the entry in config.toml with the user's comment;
// the session's last line sums up what was blocked.
func TestReplayNetworkLiveAllow(t *testing.T) {
	h := harness.NewHost(t)
	var hits atomic.Int32
	server := countingServer(t, &hits)
	conf := filepath.Join(h.Home, ".config", "claudebox", "config.toml")
	h.Write(conf, "# my settings\nallow-hosts = [\"example.org\"]\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	script := `
		get() { curl --noproxy "" -sS --max-time 20 -o /dev/null -w %{http_code} http://` + server + `/hello; }
		echo "$(get)" > refused
		for i in $(seq 600); do test -e go && break; sleep 0.1; done
		echo "$(get)" > allowed
	`
	var stderr bytes.Buffer
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", script)
	session.Stderr = &stderr
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(proj, "refused"), "the first curl")
	var netlog, rawlog bytes.Buffer
	follow := h.Command(proj, nil, "claudebox", "--net-log")
	follow.Stdout, follow.Stderr = &netlog, &netlog
	raw := h.Command(proj, nil, "claudebox", "--net-log", "--json")
	raw.Stdout, raw.Stderr = &rawlog, &rawlog
	for _, c := range []*exec.Cmd{follow, raw} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	// --gc leaves a running session's run files alone.
	h.Run(h.Home, nil, "claudebox", "--gc")
	h.Run(proj, nil, "claudebox", "--allow-host", server, "--live", "--save")
	// Not h.Write, which gives the whole host to the user again (the
	// session would see its guarded files change).
	os.WriteFile(filepath.Join(proj, "go"), nil, 0o644)
	if err := session.Wait(); err != nil {
		t.Fatalf("the session: %v\n%s", err, stderr.String())
	}
	if err := follow.Wait(); err != nil {
		t.Errorf("--net-log: %v\n%s", err, netlog.String())
	}
	if err := raw.Wait(); err != nil || !strings.Contains(rawlog.String(), `"decision":"allow","target":"`+server+`"`) {
		t.Errorf("--net-log --json: %v\n%s", err, rawlog.String())
	}
	t.Logf("--net-log:\n%s\nthe session's stderr:\n%s", netlog.String(), stderr.String())
	refused, _ := os.ReadFile(filepath.Join(proj, "refused"))
	allowed, _ := os.ReadFile(filepath.Join(proj, "allowed"))
	if string(refused) != "403\n" || string(allowed) != "200\n" || hits.Load() != 1 {
		t.Errorf("before: %q, after: %q, the server saw %d requests", refused, allowed, hits.Load())
	}
	for _, want := range []string{"refused GET " + server + ": not in the sandbox's allowed hosts", "allowed " + server} {
		if !strings.Contains(netlog.String(), want) {
			t.Errorf("--net-log lacks %q:\n%s", want, netlog.String())
		}
	}
	if want := "claudebox: the filtered network blocked " + server + " (1); to allow one: claudebox --allow-host " + server; !strings.Contains(stderr.String(), want) {
		t.Errorf("the session's end lacks %q:\n%s", want, stderr.String())
	}
	// Once it has ended, --gc removes what it left.
	h.Run(h.Home, nil, "claudebox", "--gc")
	if left, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "run", "*")); len(left) != 0 {
		t.Errorf("--gc after the session left %v", left)
	}
	if b, _ := os.ReadFile(conf); string(b) != "# my settings\nallow-hosts = [\""+server+"\", \"example.org\"]\n" {
		t.Errorf("config.toml after --save:\n%s", b)
	}
}

// TestReplayAttackNetLiveControl: the agent widens its own network and
// forges the user's view of it. From inside, it looks for every Unix socket
// and every log it can reach (the whole filesystem, and the host's run
// directory by name), asks each socket to allow a host on the host's
// loopback the way claudebox --allow-host --live does, and appends a forged
// "allowed" line to each log it can write. The proof, on the host side: the
// host's server never sees a request, the session's log holds no forged
// line and no allowed connection to it, and the session's end still names
// it blocked.
func TestReplayAttackNetLiveControl(t *testing.T) {
	h := harness.NewHost(t)
	var hits atomic.Int32
	server := countingServer(t, &hits)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `
		found=$( (find / \( -path /proc -o -path /sys \) -prune -o \( -type s -o -name '*.log' \) -print; ls -d ~/.claudebox/run/* /run/claudebox/*) 2>/dev/null | sort -u)
		for f in $found; do
			echo "found $f"
			if test -S "$f"; then
				curl -sS --max-time 5 --unix-socket "$f" --data-binary '`+server+`' http://session/allow 2>&1 | head -c 200; echo
			elif test -w "$f"; then
				echo '{"decision":"allow","target":"forged.example:443"}' >> "$f" && echo "forged $f"
			fi
		done
		echo "status $(curl --noproxy "" -sS --max-time 20 -o /dev/null -w %{http_code} http://`+server+`/hello)"
	`)
	t.Log(out)
	log := h.SessionLogs()
	if hits.Load() != 0 || !strings.Contains(out, "status 403") {
		t.Errorf("the agent allowed itself %s: the host's server saw %d requests\n%s", server, hits.Load(), out)
	}
	if strings.Contains(log, "forged.example") || strings.Contains(log, `"decision":"allow","target":"`+server) {
		t.Errorf("the session's log holds what the agent wrote or allowed:\n%s", log)
	}
	if !strings.Contains(log, `"decision":"refuse","method":"GET","status":403,"target":"`+server) {
		t.Errorf("the session's log lacks the refusal:\n%s", log)
	}
}

// TestSandboxClaudeNetworkBlocked: the real Claude Code, answering the fake
// Messages API through the proxy, runs curl to two servers on the host's
// loopback: one the user's own Claude Code settings list in
// sandbox.network.allowedDomains, which passes, and one nobody listed,
// which gets the 403 that says how to allow it. --net-log, started
// beside the session, shows both decisions and ends with it; the
// session's end names the blocked host, once, with the hint.
func TestSandboxClaudeNetworkBlocked(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	var listedHits, blockedHits atomic.Int32
	listed := countingServer(t, &listedHits)
	blocked := countingServer(t, &blockedHits)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"sandbox":{"network":{"allowedDomains":["`+listed+`"]}}}`)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	curl := `curl --noproxy "" -sS --max-time 20 http://`
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-network-done",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": curl + listed + "/hello; " + curl + blocked + "/hello; touch fetched; for i in $(seq 600); do test -e go && break; sleep 0.1; done", "description": "fetch"}},
	)
	var stdout, stderr bytes.Buffer
	session := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "Bash", "-p", "fetch")
	session.Stdout, session.Stderr = &stdout, &stderr
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(proj, "fetched"), "Claude's curl")
	var netlog bytes.Buffer
	follow := h.Command(proj, nil, "claudebox", "--net-log")
	follow.Stdout, follow.Stderr = &netlog, &netlog
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	// --net-log reads the log from its start: the decisions are shown once
	// it has started, whenever they were made.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(netlog.String(), blocked); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
	}
	// Not h.Write, which gives the whole host to the user again (the
	// session would see its guarded files change).
	os.WriteFile(filepath.Join(proj, "go"), nil, 0o644)
	if err := session.Wait(); err != nil {
		t.Fatalf("the session: %v\n%s", err, stderr.String())
	}
	if err := follow.Wait(); err != nil {
		t.Errorf("--net-log: %v\n%s", err, netlog.String())
	}
	t.Logf("--net-log:\n%s\nstderr:\n%s", netlog.String(), stderr.String())
	if !strings.Contains(stdout.String(), "FAKE-REPLY-network-done") {
		t.Errorf("claude -p printed %q", stdout.String())
	}
	result := api.ToolResults()["toolu_fake_0"]
	if !strings.Contains(result, "HELLO-FROM-THE-HOST") || !strings.Contains(result, "claudebox --allow-host "+blocked+" --live") || listedHits.Load() != 1 || blockedHits.Load() != 0 {
		t.Errorf("the tool result %q; the listed server saw %d requests, the blocked one %d", result, listedHits.Load(), blockedHits.Load())
	}
	for _, want := range []string{"allowed " + listed, "refused GET " + blocked + ": not in the sandbox's allowed hosts"} {
		if !strings.Contains(netlog.String(), want) {
			t.Errorf("--net-log lacks %q", want)
		}
	}
	if want := "claudebox: the filtered network blocked " + blocked + " (1); to allow one: claudebox --allow-host " + blocked; strings.Count(stderr.String(), want) != 1 {
		t.Errorf("the session's end lacks %q once", want)
	}
}

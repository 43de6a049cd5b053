package network

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The attack: a prompt injection makes the agent read the user's Claude
// credential (the OAuth login with its refresh token, an API key in the
// environment) and send it elsewhere, a lasting takeover of the account.
// The proof, on the host side: Claude Code inside answers through the
// supervisor's proxy while no file, no process environment and no argv in
// the sandbox holds the real credential; the upstream (the fake Messages
// API, which knows only the real credential) sees the real one on every
// request, with the OAuth beta for a login, and refuses the phantom that
// the sandbox does hold.

// credentialProbe is the Bash command Claude runs inside: while claude
// itself runs, it looks for the real secret in every process's environment
// and argv and for a credentials file, then sends the phantom straight to
// the upstream and an unlisted path to the proxy. The secret is given in
// two halves so the probe's own argv does not hold it.
func credentialProbe(secretA, secretB, upstream, header string) string {
	return fmt.Sprintf(`printf '%%s%%s' %s %s > /tmp/pat
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do grep -q -a -F -f /tmp/pat "$f" 2>/dev/null && echo "LEAK $f"; done
for f in ~/.claude/.credentials.json ~/.claudebox/.credentials.json; do test -e "$f" && echo "FILE $f"; done
grep -rlsF -f /tmp/pat ~/.claude ~/.claude.json | sed 's/^/LEAK /'
env | grep -c -F -f /tmp/pat | sed 's/^/env-hits=/'
curl -s -o /dev/null -w 'direct=%%{http_code}\n' -X POST -H "%s" -H 'anthropic-beta: oauth-2025-04-20' -H 'content-type: application/json' -d '{}' %s/v1/messages
curl -s -o /dev/null -w 'files=%%{http_code}\n' -X POST -H "%s" -d '{}' "$ANTHROPIC_BASE_URL/v1/files"
echo probe-done`, secretA, secretB, header, upstream, header)
}

func TestReplayCredentialsNotInside(t *testing.T) {
	for _, c := range []struct {
		name string
		// secret is the real credential, split in two; setup puts it on
		// the host, and returns the host environment for the launch.
		secretA, secretB string
		setup            func(h *harness.Host, secret, upstream string) []string
		// auth is what the upstream accepts; phantomHeader is how the
		// probe presents the phantom.
		auth          func(secret string) func(http.Header) bool
		phantomHeader string
	}{
		{
			"oauth-login", "sk-ant-oat01-", "REALLOGIN0123456789",
			func(h *harness.Host, secret, upstream string) []string {
				h.Write(filepath.Join(h.Home, ".claude", ".credentials.json"), harness.LoginJSON(secret, "sk-ant-ort01-REFRESH0123456789", time.Now().Add(8*time.Hour)))
				return nil
			}, oauthAuth, "Authorization: Bearer $CLAUDE_CODE_OAUTH_TOKEN",
		},
		{
			"api-key", "sk-ant-api03-", "REALKEY0123456789",
			func(h *harness.Host, secret, upstream string) []string {
				return []string{"ANTHROPIC_API_KEY=" + secret}
			},
			func(secret string) func(http.Header) bool {
				return func(hd http.Header) bool { return hd.Get("X-Api-Key") == secret }
			}, "x-api-key: $ANTHROPIC_API_KEY",
		},
		{
			"claude-settings-env", "sk-ant-api03-", "SETTINGSKEY0123456789",
			// The user's own Claude Code settings set the key and the
			// gateway; inside, that env would win over the proxy's.
			func(h *harness.Host, secret, upstream string) []string {
				h.Write(filepath.Join(h.Home, ".claude", "settings.json"), fmt.Sprintf(`{"env":{"ANTHROPIC_API_KEY":%q,"ANTHROPIC_BASE_URL":%q}}`, secret, upstream))
				return nil
			},
			func(secret string) func(http.Header) bool {
				return func(hd http.Header) bool { return hd.Get("X-Api-Key") == secret }
			}, "x-api-key: $ANTHROPIC_API_KEY",
		},
		{
			"claude-settings-env-bom", "sk-ant-api03-", "BOMSETTINGSKEY0123456789",
			// The same, in a file that starts with a byte order mark,
			// which Claude Code 2.1.330 reads and uses.
			func(h *harness.Host, secret, upstream string) []string {
				h.Write(filepath.Join(h.Home, ".claude", "settings.json"), "\ufeff"+fmt.Sprintf(`{"env":{"ANTHROPIC_API_KEY":%q,"ANTHROPIC_BASE_URL":%q}}`, secret, upstream))
				return nil
			},
			func(secret string) func(http.Header) bool {
				return func(hd http.Header) bool { return hd.Get("X-Api-Key") == secret }
			}, "x-api-key: $ANTHROPIC_API_KEY",
		},
		{
			"sandbox-login", "sk-ant-oat01-", "SANDBOXLOGIN0123456789",
			func(h *harness.Host, secret, upstream string) []string {
				// The host's own login is there too; the sandbox login wins.
				h.Write(filepath.Join(h.Home, ".claude", ".credentials.json"), harness.LoginJSON("sk-ant-oat01-HOSTLOGIN", "r", time.Now().Add(8*time.Hour)))
				h.Write(filepath.Join(h.Home, ".claudebox", ".credentials.json"), harness.LoginJSON(secret, "sk-ant-ort01-SANDBOXREFRESH", time.Now().Add(8*time.Hour)))
				return nil
			}, oauthAuth, "Authorization: Bearer $CLAUDE_CODE_OAUTH_TOKEN",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := harness.NewHost(t)
			harness.RequireClaude(t)
			harness.RequireTool(t, "curl", "apt-get install curl")
			secret := c.secretA + c.secretB
			api := harness.StartScriptedAPI(t, "FAKE-REPLY-proxied", harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "", "description": "probe"}})
			api.Auth = c.auth(secret)
			api.Script[0].Input["command"] = credentialProbe(c.secretA, c.secretB, api.URL, c.phantomHeader)
			proj := filepath.Join(h.Home, "code", "proj")
			h.GitRepo(proj)
			env := append(c.setup(h, secret, api.URL), "ANTHROPIC_BASE_URL="+api.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")

			var stdout, stderr bytes.Buffer
			// The shared network: the probe sends the phantom straight to the
			// upstream, which the filtered network would not let it reach.
			cmd := h.Command(proj, env, "claudebox", "--network=host", "--allowedTools", "Bash", "-p", "probe")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-proxied") {
				t.Fatalf("claudebox -p: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			probe := api.ToolResults()["toolu_fake_0"]
			if !strings.Contains(probe, "probe-done") || strings.Contains(probe, "LEAK") || strings.Contains(probe, "FILE") ||
				!strings.Contains(probe, "env-hits=0") || !strings.Contains(probe, "direct=401") || !strings.Contains(probe, "files=403") {
				t.Errorf("inside the sandbox:\n%s", probe)
			}
			// Every request that reached the upstream with a credential it
			// accepts came through the proxy; the OAuth beta is on each.
			var accepted int
			for _, hd := range api.Headers() {
				if c.auth(secret)(hd) {
					accepted++
				}
			}
			if accepted < 2 {
				t.Errorf("the upstream accepted %d requests, want the two turns", accepted)
			}
			// Nothing claudebox wrote or printed holds the secret.
			dry := h.Run(proj, env, "claudebox", "--dry-run")
			log := h.SessionLogs()
			md := h.Inside(proj, env, "cat ~/.claude/SANDBOX.md")
			if !strings.Contains(md, "# ") {
				t.Errorf("no SANDBOX.md inside: %q", md)
			}
			for what, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "--dry-run": dry, "SANDBOX.md": md, "the session's log": log} {
				if strings.Contains(text, c.secretB) || strings.Contains(text, "sk-ant-") {
					t.Errorf("%s holds a credential:\n%s", what, text)
				}
			}
			if !strings.Contains(log, `"path":"/v1/files"`) {
				t.Errorf("the session's log does not name the refused request:\n%s", log)
			}
		})
	}
}

// oauthAuth accepts the real OAuth token with the beta an OAuth request
// needs.
func oauthAuth(secret string) func(http.Header) bool {
	return func(hd http.Header) bool {
		return hd.Get("Authorization") == "Bearer "+secret && slices.Contains(strings.Split(hd.Get("Anthropic-Beta"), ","), "oauth-2025-04-20")
	}
}

// TestSandboxOAuthRefresh: the host's login has expired. Two sessions
// start at once; the supervisors refresh it once (the token endpoint, a
// fake on 127.0.0.1 set from the host side, rotates refresh tokens and
// refuses a used one), both answer with the new token, and the host's file
// is rewritten atomically, valid JSON throughout, with the keys claudebox
// does not know kept. Then a refresh the endpoint refuses reaches Claude
// Code as an error it shows, telling the user to log in on the host.
func TestSandboxOAuthRefresh(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	const fresh = "sk-ant-oat01-FRESHTOKEN"
	api := harness.StartFakeAPI(t, "FAKE-REPLY-refreshed")
	api.Auth = oauthAuth(fresh)
	var calls atomic.Int32
	var mu sync.Mutex
	valid, fail := "sk-ant-ort01-ONE", false
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req map[string]string
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		if fail || req["grant_type"] != "refresh_token" || req["refresh_token"] != valid {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		time.Sleep(100 * time.Millisecond)
		valid = "sk-ant-ort01-TWO"
		fmt.Fprintf(w, `{"access_token":%q,"refresh_token":%q,"expires_in":28800}`, fresh, valid)
	}))
	defer endpoint.Close()
	login := filepath.Join(h.Home, ".claude", ".credentials.json")
	h.Write(login, harness.LoginJSON("sk-ant-oat01-EXPIRED", "sk-ant-ort01-ONE", time.Now().Add(-time.Hour)))
	os.Chmod(login, 0o600)
	projA, projB := filepath.Join(h.Home, "code", "a"), filepath.Join(h.Home, "code", "b")
	h.GitRepo(projA)
	h.GitRepo(projB)
	env := []string{"ANTHROPIC_BASE_URL=" + api.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDEBOX_OAUTH_TOKEN_URL=" + endpoint.URL}

	stop := make(chan struct{})
	var torn atomic.Int32
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if b, err := os.ReadFile(login); err != nil || !json.Valid(b) {
				torn.Add(1)
			}
		}
	}()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, p := range []string{projA, projB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			c := h.Command(p, env, "claudebox", "-p", "hello")
			c.Stdout, c.Stderr = &out, &out
			c.Run()
			outs[i] = out.String()
		}()
	}
	wg.Wait()
	close(stop)
	for i, out := range outs {
		if !strings.Contains(out, "FAKE-REPLY-refreshed") {
			t.Errorf("session %d: %s", i, out)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("the token endpoint was called %d times, want once", calls.Load())
	}
	if torn.Load() != 0 {
		t.Errorf("the host's login was missing or not JSON %d times", torn.Load())
	}
	var got struct {
		OAuth struct{ AccessToken, RefreshToken, SubscriptionType string } `json:"claudeAiOauth"`
		MCP   map[string]string                                            `json:"mcpOAuth"`
	}
	b, _ := os.ReadFile(login)
	if json.Unmarshal(b, &got) != nil || got.OAuth.AccessToken != fresh || got.OAuth.RefreshToken != "sk-ant-ort01-TWO" ||
		got.OAuth.SubscriptionType != "max" || got.MCP["keep"] != "me" {
		t.Errorf("the host's login after the refresh: %s", b)
	}
	if fi, err := os.Stat(login); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the host's login: %v %v", fi.Mode(), err)
	}

	// The endpoint refuses: Claude Code shows the error, and ends.
	h.Write(login, harness.LoginJSON("sk-ant-oat01-EXPIRED", "sk-ant-ort01-DEAD", time.Now().Add(-time.Hour)))
	mu.Lock()
	fail = true
	mu.Unlock()
	var out bytes.Buffer
	c := h.Command(projA, env, "claudebox", "-p", "hello")
	c.Stdout, c.Stderr = &out, &out
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(out.String(), "claude /login") {
			t.Errorf("a failed refresh: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		c.Process.Kill()
		t.Fatalf("a failed refresh hung:\n%s", out.String())
	}
}

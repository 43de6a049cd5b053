package agents

// The real Gemini CLI with the host's "Login with Google", in the real
// sandbox as an unprivileged user, against a fake Code Assist API and a
// fake Google token endpoint, both on 127.0.0.1 (CODE_ASSIST_ENDPOINT and
// CLAUDEBOX_OAUTH_TOKEN_URL on the host). Nothing reaches Google.

import (
	"encoding/json"
	"fmt"
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
)

// startGoogleToken is Google's token endpoint on 127.0.0.1: it answers
// Gemini CLI's refresh form for refresh with a new access token, and
// refuses every request when fail.
func startGoogleToken(t *testing.T, refresh, access string, fail bool, calls *atomic.Int32) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		r.ParseForm()
		if fail || r.PostForm.Get("refresh_token") != refresh || r.PostForm.Get("grant_type") != "refresh_token" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"expires_in":3599,"token_type":"Bearer","scope":"https://www.googleapis.com/auth/cloud-platform"}`, access)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/token"
}

// withCmdline adds each process's argv to what look finds, as a file
// "/proc/PID/cmdline".
func withCmdline(look func() []harness.SandboxView) func() []harness.SandboxView {
	return func() []harness.SandboxView {
		views := look()
		for _, v := range views {
			b, _ := os.ReadFile("/proc/" + v.Pid + "/cmdline")
			v.Files["/proc/"+v.Pid+"/cmdline"] = string(b)
		}
		return views
	}
}

// TestAgentGeminiGoogleLogin: gemini reads the user's GEMINI.md with
// SANDBOX.md after it (the host's file unchanged). With the host's Google
// login about to expire, the supervisor refreshes it once against the token endpoint and
// writes it back (keys it does not read kept); gemini -p answers through
// the proxy, which sends the fresh token on every Code Assist call; no
// sandboxed process holds any of the login's tokens in its environment,
// its argv or its view of ~/.gemini, and neither --dry-run nor the
// session's decision log does; its chat is listed and exported. Then a
// refused refresh reaches gemini,
// which shows that the user must log in again on the host.
func TestAgentGeminiGoogleLogin(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const old, refresh, fresh = "ya29.real-old-access", "1//real-google-refresh", "ya29.real-fresh-access"
	creds := filepath.Join(h.Home, ".gemini", "oauth_creds.json")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"oauth-personal"}},"ui":{"hideBanner":true}}`+"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "GEMINI.md"), "USER-GLOBAL-INSTRUCTIONS\n")
	h.Write(creds, fmt.Sprintf(`{"access_token":%q,"refresh_token":%q,"id_token":"real-id-token","expiry_date":%d,"kept":"yes"}`,
		old, refresh, time.Now().Add(time.Minute).UnixMilli()))
	secrets := []string{old, refresh, fresh, "real-id-token"}
	mark := harness.TestMark(t)
	f := harness.StartCodeAssist(t, withCmdline(harness.LookInside(filepath.Join(h.Home, ".gemini"), mark)))
	var calls atomic.Int32
	env := []string{"CODE_ASSIST_ENDPOINT=" + f.URL, "CLAUDEBOX_OAUTH_TOKEN_URL=" + startGoogleToken(t, refresh, fresh, false, &calls), harness.NoResolve}

	dry := h.Run(proj, env, "claudebox", "--env", mark, "--agent", "gemini", "--dry-run", "--skip-trust", "-p", "say pong")
	out := h.Run(proj, env, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GOOGLE") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	if calls.Load() != 1 {
		t.Errorf("the token endpoint was called %d times, want once", calls.Load())
	}
	f.Mu.Lock()
	prompt := f.Prompt
	f.Mu.Unlock()
	if !strings.Contains(prompt, "USER-GLOBAL-INSTRUCTIONS") || !strings.Contains(prompt, "This session runs inside claudebox, a bubblewrap sandbox") {
		t.Errorf("gemini was not given the user's GEMINI.md and SANDBOX.md: %.2000s", prompt)
	}
	if b, _ := os.ReadFile(filepath.Join(h.Home, ".gemini", "GEMINI.md")); string(b) != "USER-GLOBAL-INSTRUCTIONS\n" {
		t.Errorf("the host's GEMINI.md changed: %q", b)
	}
	auth := f.Auth()
	if len(auth) == 0 || !strings.HasPrefix(auth[0], "/v1internal:loadCodeAssist ") {
		t.Errorf("calls: %q", auth)
	}
	for _, a := range auth {
		if !strings.HasSuffix(a, " Bearer "+fresh) {
			t.Errorf("the Code Assist API got %q, not the fresh token", a)
		}
	}
	var saved map[string]any
	b, _ := os.ReadFile(creds)
	if json.Unmarshal(b, &saved) != nil || saved["access_token"] != fresh || saved["refresh_token"] != refresh || saved["kept"] != "yes" || saved["id_token"] != "real-id-token" {
		t.Errorf("the host's login was not written back whole: %s", b)
	}
	seen := false
	f.Mu.Lock()
	inside := f.Inside
	f.Mu.Unlock()
	for _, v := range inside {
		seen = seen || strings.Contains(v.Environ, "GOOGLE_CLOUD_ACCESS_TOKEN=ya29.claudebox-")
		for _, s := range secrets {
			if strings.Contains(v.Environ, s) {
				t.Errorf("sandboxed process %s holds %s in its environment", v.Pid, s)
			}
			for path, content := range v.Files {
				if strings.Contains(content, s) {
					t.Errorf("sandboxed process %s sees %s in %s", v.Pid, s, path)
				}
			}
		}
		for path := range v.Files {
			if strings.HasSuffix(path, "oauth_creds.json") {
				t.Errorf("the sandbox sees %s", path)
			}
		}
	}
	if !seen {
		t.Error("no sandboxed process was seen with the phantom: the look inside found nothing")
	}
	logs, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "run", "*"))
	for _, s := range secrets {
		if strings.Contains(dry, s) {
			t.Errorf("--dry-run shows %s", s)
		}
		for _, l := range logs {
			if b, _ := os.ReadFile(l); strings.Contains(string(b), s) {
				t.Errorf("%s holds %s", l, s)
			}
		}
	}

	// Its chat is this project's, and exports as Markdown.
	if list := h.Run(proj, nil, "claudebox", "--list-sessions", "--json"); !strings.Contains(list, `"agent": "gemini"`) {
		t.Errorf("--list-sessions does not list the chat: %s", list)
	}
	if md := h.Run(proj, nil, "claudebox", "--export"); !strings.Contains(md, "\n## Gemini\n") || !strings.Contains(md, "PONG-GOOGLE") || !strings.Contains(md, "> say pong") {
		t.Errorf("--export:\n%s", md)
	}

	// The login expires and the token endpoint refuses to refresh it.
	h.Write(creds, fmt.Sprintf(`{"access_token":%q,"refresh_token":%q,"expiry_date":%d}`, old, refresh, time.Now().Add(-time.Hour).UnixMilli()))
	env[1] = "CLAUDEBOX_OAUTH_TOKEN_URL=" + startGoogleToken(t, refresh, fresh, true, &calls)
	c := h.Command(proj, env, "claudebox", "--agent", "gemini", "--skip-trust", "-p", "say pong")
	failed, err := c.CombinedOutput()
	if _, exited := err.(*exec.ExitError); !exited || !strings.Contains(string(failed), "run gemini on the host and log in again") {
		t.Errorf("gemini with a dead login: %v\n%s", err, failed)
	}
}

// TestAgentGeminiHostNetwork: with --network=host, gemini reaches the
// proxy at its address on the host's 127.0.0.1 (set in its environment at
// launch, as ANTHROPIC_BASE_URL is for Claude), with either login: the
// upstream gets the real credential, the sandbox holds only the phantom.
func TestAgentGeminiHostNetwork(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	t.Run("key", func(t *testing.T) {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "code", "app")
		h.GitRepo(proj)
		real := "AIza-real-gemini-key-host-network"
		h.Write(filepath.Join(h.Home, ".gemini", ".env"), "GEMINI_API_KEY="+real+"\n")
		mark := harness.TestMark(t)
		f := harness.StartAgentAPI(t, "X-Goog-Api-Key", harness.LookInside(filepath.Join(h.Home, ".gemini"), mark))
		out := h.Run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL}, "claudebox", "--network=host", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
		if !strings.Contains(out, "PONG-GEMINI") {
			t.Fatalf("gemini did not answer: %s", out)
		}
		checkKeptOut(t, f, real, "GEMINI_API_KEY")
	})
	t.Run("google", func(t *testing.T) {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "code", "app")
		h.GitRepo(proj)
		const real = "ya29.real-access-host-network"
		h.Write(filepath.Join(h.Home, ".gemini", "oauth_creds.json"), fmt.Sprintf(`{"access_token":%q,"refresh_token":"1//r","expiry_date":%d}`, real, time.Now().Add(time.Hour).UnixMilli()))
		mark := harness.TestMark(t)
		f := harness.StartCodeAssist(t, harness.LookInside(filepath.Join(h.Home, ".gemini"), mark))
		var calls atomic.Int32
		env := []string{"CODE_ASSIST_ENDPOINT=" + f.URL, "CLAUDEBOX_OAUTH_TOKEN_URL=" + startGoogleToken(t, "1//r", "ya29.unused", true, &calls)}
		out := h.Run(proj, env, "claudebox", "--network=host", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
		if !strings.Contains(out, "PONG-GOOGLE") {
			t.Fatalf("gemini did not answer: %s", out)
		}
		for _, a := range f.Auth() {
			if !strings.HasSuffix(a, " Bearer "+real) {
				t.Errorf("the Code Assist API got %q", a)
			}
		}
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if len(f.Inside) == 0 {
			t.Error("the look inside found nothing")
		}
		for _, v := range f.Inside {
			if strings.Contains(v.Environ, real) || !strings.Contains(v.Environ, "CODE_ASSIST_ENDPOINT=http://127.0.0.1:") {
				t.Errorf("sandboxed process %s: environment\n%s", v.Pid, v.Environ)
			}
			for path, content := range v.Files {
				if strings.Contains(content, real) {
					t.Errorf("sandboxed process %s sees the token in %s", v.Pid, path)
				}
			}
		}
	})
}

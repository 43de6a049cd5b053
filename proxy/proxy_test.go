package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// upstreamRecorder is a fake API that knows only the real credential.
type upstreamRecorder struct {
	mu      sync.Mutex
	headers []http.Header
	paths   []string
}

func startUpstream(t testing.TB, realAuth func(http.Header) bool, rec *upstreamRecorder, release <-chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec != nil {
			rec.mu.Lock()
			rec.headers = append(rec.headers, r.Header.Clone())
			rec.paths = append(rec.paths, r.URL.RequestURI())
			rec.mu.Unlock()
		}
		if !realAuth(r.Header) {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		if release != nil {
			<-release
		}
		io.WriteString(w, "event: message_stop\ndata: {}\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t testing.TB, url string, h map[string]string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"stream":true}`))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestProxyInjects: the phantom is replaced by the real key, the upstream
// refuses the phantom, other paths and other credentials are refused and
// logged, and the log never holds the phantom.
func TestProxyInjects(t *testing.T) {
	const real = "sk-ant-api03-REAL"
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(h http.Header) bool { return h.Get("X-Api-Key") == real }, rec, nil)
	var log bytes.Buffer
	p, err := startLoopback(&Credential{Kind: APIKey, value: real}, up.URL, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasSuffix(p.Phantom, phantomKeySuffix) || len(p.Phantom) < 64 || strings.Contains(p.Phantom, real) {
		t.Fatalf("phantom %q", p.Phantom)
	}
	resp, body := post(t, p.URL+"/v1/messages?beta=true", map[string]string{"X-Api-Key": p.Phantom})
	if resp.StatusCode != 200 || !strings.Contains(body, "message_stop") {
		t.Fatalf("through the proxy: %s %s", resp.Status, body)
	}
	if got := rec.headers[0].Get("X-Api-Key"); got != real {
		t.Errorf("upstream saw x-api-key %q, want the real key", got)
	}
	if rec.paths[0] != "/v1/messages?beta=true" {
		t.Errorf("upstream saw %q", rec.paths[0])
	}
	// The phantom sent straight to the upstream is refused there.
	if resp, _ := post(t, up.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the upstream accepted the phantom: %s", resp.Status)
	}
	n := len(rec.paths)
	for _, c := range []struct {
		path   string
		h      map[string]string
		status int
	}{
		{"/v1/messages", map[string]string{"X-Api-Key": p.Phantom[:len(p.Phantom)-1] + "x"}, 401},
		{"/v1/messages", map[string]string{"Authorization": "Bearer " + p.Phantom}, 401},
		{"/v1/messages", nil, 401},
		{"/v1/files", map[string]string{"X-Api-Key": p.Phantom}, 403},
		{"/v1/messages/batches", map[string]string{"X-Api-Key": p.Phantom}, 403},
		{"/api/oauth/profile", map[string]string{"X-Api-Key": p.Phantom}, 403},
	} {
		resp, body := post(t, p.URL+c.path, c.h)
		if resp.StatusCode != c.status || !strings.Contains(body, `"type":"error"`) || !strings.Contains(body, "claudebox") {
			t.Errorf("POST %s %v: %s %s, want %d with an API error", c.path, c.h, resp.Status, body, c.status)
		}
	}
	// Claude Code's reachability check is answered here, carrying nothing.
	if resp, err := http.Head(p.URL + "/api/hello"); err != nil || resp.StatusCode != 200 {
		t.Errorf("HEAD /api/hello: %v %v", resp, err)
	}
	if len(rec.paths) != n {
		t.Errorf("refused requests reached the upstream: %v", rec.paths[n:])
	}
	if lines := strings.Count(log.String(), "\n"); lines != 6 || !strings.Contains(log.String(), `"path":"/v1/files"`) {
		t.Errorf("log:\n%s", log.String())
	}
	if strings.Contains(log.String(), p.Phantom) || strings.Contains(log.String(), real) {
		t.Error("the log holds a credential")
	}
}

// TestProxyOAuth: an OAuth phantom bearer becomes the real bearer, with the
// OAuth beta kept (and added when missing), the other betas kept.
func TestProxyOAuth(t *testing.T) {
	const real = "sk-ant-oat01-REAL"
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(h http.Header) bool { return h.Get("Authorization") == "Bearer "+real }, rec, nil)
	p, err := startLoopback(&Credential{Kind: OAuth, value: real}, up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, beta := range []string{"claude-code-20250219,oauth-2025-04-20,effort-2025-11-24", "claude-code-20250219"} {
		resp, _ := post(t, p.URL+"/v1/messages", map[string]string{"Authorization": "Bearer " + p.Phantom, "Anthropic-Beta": beta, "X-Api-Key": "planted"})
		if resp.StatusCode != 200 {
			t.Fatalf("%s", resp.Status)
		}
	}
	if got := rec.headers[0].Get("Anthropic-Beta"); got != "claude-code-20250219,oauth-2025-04-20,effort-2025-11-24" {
		t.Errorf("beta %q", got)
	}
	if got := rec.headers[1].Get("Anthropic-Beta"); got != "claude-code-20250219,oauth-2025-04-20" {
		t.Errorf("beta %q", got)
	}
	if rec.headers[0].Get("X-Api-Key") != "" {
		t.Error("a planted x-api-key passed")
	}
}

// TestProxyStreams: the first event reaches the client while the upstream
// still holds the rest back.
func TestProxyStreams(t *testing.T) {
	release := make(chan struct{})
	up := startUpstream(t, func(http.Header) bool { return true }, nil, release)
	p, err := startLoopback(&Credential{Kind: APIKey, value: "k"}, up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	defer close(release)
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/v1/messages", strings.NewReader("{}"))
	req.Header.Set("X-Api-Key", p.Phantom)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "event: message_start\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
}

// writeLogin writes a credentials file with an extra key claudebox does
// not know, which must survive a refresh.
func writeLogin(t *testing.T, path, access, refresh string, expires time.Time) {
	b := fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":%q,"expiresAt":%d,"scopes":["user:inference"],"subscriptionType":"max","futureField":{"x":1}},"mcpOAuth":{"server":{"token":"keep"}}}`,
		access, refresh, expires.UnixMilli())
	if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tokenEndpoint is a fake OAuth token endpoint that rotates refresh
// tokens: an old one is refused, as the real one does.
func tokenEndpoint(t *testing.T, calls *atomic.Int32, fail bool) string {
	var mu sync.Mutex
	valid := "sk-ant-ort01-one"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req map[string]string
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		if fail || req["grant_type"] != "refresh_token" || req["refresh_token"] != valid || req["client_id"] != oauthClientID {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		time.Sleep(50 * time.Millisecond) // two sessions overlap here if not serialised
		valid = "sk-ant-ort01-two"
		fmt.Fprintf(w, `{"access_token":"sk-ant-oat01-fresh","refresh_token":%q,"expires_in":28800,"scope":"user:inference user:profile"}`, valid)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRefreshOnceForTwoSessions: two sessions (two credentials, as two
// supervisors would have) find the login expired at once; the token
// endpoint is called once, both get the new token, the file is valid JSON
// at every moment and keeps the keys claudebox does not know.
func TestRefreshOnceForTwoSessions(t *testing.T) {
	dir := t.TempDir()
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "home", ".claudebox")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	file := filepath.Join(home, ".claude", ".credentials.json")
	writeLogin(t, file, "sk-ant-oat01-old", "sk-ant-ort01-one", time.Now().Add(-time.Hour))
	var calls atomic.Int32
	url := tokenEndpoint(t, &calls, false)
	none := func(string) (string, bool) { return "", false }

	stop := make(chan struct{})
	var torn atomic.Int32
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { // the host's claude reading the file meanwhile
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if b, err := os.ReadFile(file); err != nil || !json.Valid(b) {
				torn.Add(1)
			}
		}
	}()
	var wg sync.WaitGroup
	tokens := make([]string, 2)
	for i := range tokens {
		c, err := Find(home, state, none, url, false)
		if err != nil || c.Kind != OAuth || c.Source != file {
			t.Fatalf("Find: %+v, %v", c, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := c.Token(t.Context())
			if err != nil {
				t.Error(err)
			}
			tokens[i] = tok
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if calls.Load() != 1 {
		t.Errorf("the token endpoint was called %d times, want once", calls.Load())
	}
	if tokens[0] != "sk-ant-oat01-fresh" || tokens[1] != "sk-ant-oat01-fresh" {
		t.Errorf("tokens %q", tokens)
	}
	if torn.Load() != 0 {
		t.Errorf("the file was unreadable or not JSON %d times during the refresh", torn.Load())
	}
	var got struct {
		OAuth struct {
			AccessToken, RefreshToken, SubscriptionType string
			ExpiresAt                                   int64
			Scopes                                      []string
			FutureField                                 map[string]int
		} `json:"claudeAiOauth"`
		MCP map[string]map[string]string `json:"mcpOAuth"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	o := got.OAuth
	if o.AccessToken != "sk-ant-oat01-fresh" || o.RefreshToken != "sk-ant-ort01-two" || o.SubscriptionType != "max" || o.FutureField["x"] != 1 ||
		got.MCP["server"]["token"] != "keep" || time.Until(time.UnixMilli(o.ExpiresAt)) < 7*time.Hour || len(o.Scopes) != 2 {
		t.Errorf("rewritten file: %s", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, ".claude", ".credentials.json.*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestRefreshFails: a refused refresh reaches Claude Code as an
// authentication error that says to log in again on the host, and the file
// is left as it was.
func TestRefreshFails(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".credentials.json")
	writeLogin(t, file, "sk-ant-oat01-old", "sk-ant-ort01-dead", time.Now().Add(-time.Hour))
	before, _ := os.ReadFile(file)
	var calls atomic.Int32
	c := &Credential{Kind: OAuth, file: file, lockFile: filepath.Join(dir, "lock"), tokenURL: tokenEndpoint(t, &calls, true)}
	up := startUpstream(t, func(http.Header) bool { return true }, nil, nil)
	p, err := startLoopback(c, up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, body := post(t, p.URL+"/v1/messages", map[string]string{"Authorization": "Bearer " + p.Phantom})
	if resp.StatusCode != 401 || !strings.Contains(body, "authentication_error") || !strings.Contains(body, "log in again on the host: claude /login") {
		t.Errorf("%s %s", resp.Status, body)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Errorf("the file changed: %s", after)
	}
}

func TestFindOrder(t *testing.T) {
	dir := t.TempDir()
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "state")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.MkdirAll(state, 0o700)
	env := map[string]string{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if _, err := Find(home, state, lookup, "", true); err != errNoLogin {
		t.Fatalf("no login: %v", err)
	}
	hostLogin := filepath.Join(home, ".claude", ".credentials.json")
	writeLogin(t, hostLogin, "a", "r", time.Now().Add(time.Hour))
	for _, c := range []struct {
		set    func()
		kind   Kind
		source string
	}{
		{func() {}, OAuth, hostLogin},
		{func() { env["CLAUDE_CODE_OAUTH_TOKEN"] = "t" }, OAuth, "CLAUDE_CODE_OAUTH_TOKEN"},
		{func() { env["ANTHROPIC_API_KEY"] = "k" }, APIKey, "ANTHROPIC_API_KEY"},
		{func() { env["ANTHROPIC_AUTH_TOKEN"] = "b" }, AuthToken, "ANTHROPIC_AUTH_TOKEN"},
		{func() { writeLogin(t, filepath.Join(state, ".credentials.json"), "s", "r", time.Now().Add(time.Hour)) }, OAuth, filepath.Join(state, ".credentials.json")},
	} {
		c.set()
		got, err := Find(home, state, lookup, "", true)
		if err != nil || got.Kind != c.kind || got.Source != c.source {
			t.Errorf("got %+v, %v; want %v from %s", got, err, c.kind, c.source)
		}
	}
}

// TestFindRefusedKey: an ANTHROPIC_API_KEY the user refused in Claude Code
// (~/.claude.json's customApiKeyResponses, by its last 20 characters)
// gives way to a login in an interactive session, as in Claude Code; with
// -p, approved as well, or with no login, the key is used.
func TestFindRefusedKey(t *testing.T) {
	dir := t.TempDir()
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "state")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.MkdirAll(state, 0o700)
	const key = "sk-ant-api03-0123456789-the-last-twenty-chars"
	env := map[string]string{"ANTHROPIC_API_KEY": key}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	answers := func(approved, rejected string) {
		os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"theme":"dark","customApiKeyResponses":{"approved":[`+approved+`],"rejected":[`+rejected+`]},"projects":{}}`), 0o600)
	}
	hostLogin := filepath.Join(home, ".claude", ".credentials.json")
	suffix := strconv.Quote(key[len(key)-20:])
	for _, c := range []struct {
		what               string
		approved, rejected string
		login, oauthVar    bool
		interactive        bool
		source             string
	}{
		{"refused, a login", "", suffix, true, false, true, hostLogin},
		{"refused, CLAUDE_CODE_OAUTH_TOKEN", "", suffix, false, true, true, "CLAUDE_CODE_OAUTH_TOKEN"},
		{"refused, -p", "", suffix, true, false, false, "ANTHROPIC_API_KEY"},
		{"refused, no login", "", suffix, false, false, true, "ANTHROPIC_API_KEY"},
		{"approved and refused", suffix, suffix, true, false, true, "ANTHROPIC_API_KEY"},
		{"another key refused", "", `"-another-key-refused"`, true, false, true, "ANTHROPIC_API_KEY"},
		{"no answer", "", "", true, false, true, "ANTHROPIC_API_KEY"},
	} {
		answers(c.approved, c.rejected)
		os.Remove(hostLogin)
		if c.login {
			writeLogin(t, hostLogin, "a", "r", time.Now().Add(time.Hour))
		}
		delete(env, "CLAUDE_CODE_OAUTH_TOKEN")
		if c.oauthVar {
			env["CLAUDE_CODE_OAUTH_TOKEN"] = "t"
		}
		got, err := Find(home, state, lookup, "", c.interactive)
		if err != nil || got.Source != c.source {
			t.Errorf("%s: got %+v, %v; want the credential of %s", c.what, got, err, c.source)
		}
	}
}

// BenchmarkFirstByte is the time to the first streamed byte of a reply
// from a loopback upstream, straight and through the proxy; the difference
// is what the proxy adds.
func BenchmarkFirstByte(b *testing.B) {
	up := startUpstream(b, func(http.Header) bool { return true }, nil, nil)
	p, err := startLoopback(&Credential{Kind: APIKey, value: "k"}, up.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for name, url := range map[string]string{"direct": up.URL, "proxy": p.URL} {
		b.Run(name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{}}
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader("{}"))
				req.Header.Set("X-Api-Key", p.Phantom)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var one [1]byte
				if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// startLoopback starts a proxy as the shared network has it.
func startLoopback(cred *Credential, upstream string, log io.Writer) (*Proxy, error) {
	ln, url, err := ListenLoopback()
	if err != nil {
		return nil, err
	}
	return Start(ln, url, cred, upstream, nil, log)
}

// allowed passes the Messages API's paths as written, and nothing an
// upstream or gateway could resolve to another endpoint.
func TestAllowedPaths(t *testing.T) {
	for _, c := range []struct {
		method, target string
		want           bool
	}{
		{"POST", "/v1/messages", true},
		{"POST", "/v1/messages?beta=true", true},
		{"POST", "/v1/messages/count_tokens", true},
		{"GET", "/v1/models", true},
		{"GET", "/v1/models/claude-opus-4-1", true},
		{"GET", "/v1/models/claude-3.5_x-1?limit=1", true},
		{"GET", "/v1/models/../../v1/files", false},
		{"GET", "/v1/models/..%2F..%2Fv1%2Ffiles", false},
		{"GET", "/v1/models/%2e%2e/files", false},
		{"GET", "/v1/models/a/b", false},
		{"GET", "/v1/models/", false},
		{"GET", "/v1/models/..", false},
		{"GET", "/v1//models", false},
		{"POST", "/v1/messages/", false},
		{"POST", "/v1/messages/./", false},
		{"POST", "/v1/messages/../files", false},
		{"POST", "/v1/messages%2fbatches", false},
		{"GET", "/v1/messages", false},
		{"POST", "/v1/models", false},
	} {
		if got := allowed(httptest.NewRequest(c.method, c.target, nil)); got != c.want {
			t.Errorf("allowed(%s %s) = %v, want %v", c.method, c.target, got, c.want)
		}
	}
}

// A session's refusals fill the log by a bounded amount, however many the
// sandbox makes and however long their paths.
func TestRefusalLogBounded(t *testing.T) {
	var log bytes.Buffer
	p := &Proxy{Cred: &Credential{Kind: APIKey}, log: &log}
	// One request, refused again and again: parsing a 1 MiB target per
	// refusal made this the short suite's slowest test.
	long := httptest.NewRequest("GET", "/x"+strings.Repeat("a", 1<<20), nil)
	for range maxLoggedLines + 50 {
		p.refuse(httptest.NewRecorder(), long, http.StatusForbidden, "permission_error", "no")
	}
	if lines := strings.Count(log.String(), "\n"); lines != maxLoggedLines {
		t.Errorf("%d lines logged, want %d", lines, maxLoggedLines)
	}
	if log.Len() > maxLoggedLines*(maxLoggedField+200) {
		t.Errorf("%d bytes logged", log.Len())
	}
}

// TestUnreachableAPINamesOnlyItsHost: the 502 the sandbox reads when
// the API cannot be reached names the API's scheme and host, never the
// rest of ANTHROPIC_BASE_URL, where a gateway's user or a token in the
// path may be.
func TestUnreachableAPINamesOnlyItsHost(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	host := closed.Listener.Addr().String()
	closed.Close()
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, "http://gwuser-SECRET:pw-SECRET@"+host+"/gw/tok-SECRET", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, body := post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom})
	if resp.StatusCode != http.StatusBadGateway || strings.Contains(body, "SECRET") || !strings.Contains(body, "cannot reach the API at http://"+host) {
		t.Errorf("%s %s: want a 502 naming http://%s alone", resp.Status, body, host)
	}
}

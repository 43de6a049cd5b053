package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeGoogleLogin writes Gemini CLI's oauth_creds.json, with keys
// claudebox does not read, which a refresh must keep.
func writeGoogleLogin(t *testing.T, path, access string, expires time.Time) {
	b := fmt.Sprintf(`{"access_token":%q,"refresh_token":"1//google-refresh","scope":"https://www.googleapis.com/auth/cloud-platform","token_type":"Bearer","id_token":"old-id","expiry_date":%d,"future":{"x":1}}`,
		access, expires.UnixMilli())
	if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// googleTokenEndpoint is a fake Google token endpoint: it answers Gemini
// CLI's form (its client, the refresh token) with a new access token, and
// refuses anything else, or everything when fail.
func googleTokenEndpoint(t *testing.T, calls *atomic.Int32, fail bool) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		r.ParseForm()
		if fail || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.PostForm.Get("grant_type") != "refresh_token" ||
			r.PostForm.Get("refresh_token") != "1//google-refresh" || r.PostForm.Get("client_id") != googleClientID || r.PostForm.Get("client_secret") != googleClientSecret {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		time.Sleep(50 * time.Millisecond) // two sessions overlap here if not serialised
		answer := `{"access_token":"ya29.fresh","expires_in":3599,"scope":"https://www.googleapis.com/auth/cloud-platform","token_type":"Bearer","id_token":"new-id"}`
		w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestProxyGoogleLogin: the phantom bearer becomes the login's access
// token on the Code Assist calls Gemini CLI makes; every other path (the
// token is good for all of Google Cloud) is refused before the upstream.
func TestProxyGoogleLogin(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "oauth_creds.json")
	writeGoogleLogin(t, file, "ya29.real", time.Now().Add(time.Hour))
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(h http.Header) bool { return h.Get("Authorization") == "Bearer ya29.real" }, rec, nil)
	p, err := startLoopback(Login(GoogleOAuth, file, filepath.Join(dir, "lock"), "http://127.0.0.1:1/unused"), up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasPrefix(p.Phantom, "ya29.claudebox-") || p.Cred.Kind.Variable() != "GOOGLE_CLOUD_ACCESS_TOKEN" {
		t.Fatalf("phantom %q in %s", p.Phantom, p.Cred.Kind.Variable())
	}
	for _, path := range []string{"/v1internal:loadCodeAssist", "/v1internal:streamGenerateContent?alt=sse", "/v1internal:generateContent", "/v1internal:retrieveUserQuota"} {
		resp, body := post(t, p.URL+path, map[string]string{"Authorization": "Bearer " + p.Phantom, "X-Goog-Api-Key": "planted"})
		if resp.StatusCode != 200 {
			t.Errorf("%s: %s %s", path, resp.Status, body)
		}
	}
	for _, path := range []string{"/v1internal:other", "/v1internal:setCodeAssistGlobalUserSetting", "/v1internal/../v1internal:loadCodeAssist", "/v1/projects", "/storage/v1/b", "/v1beta/models/gemini:generateContent", "/v1internal/operations/../x"} {
		if resp, _ := post(t, p.URL+path, map[string]string{"Authorization": "Bearer " + p.Phantom}); resp.StatusCode != 403 {
			t.Errorf("%s passed: %s", path, resp.Status)
		}
	}
	if resp, _ := post(t, p.URL+"/v1internal:generateContent", map[string]string{"Authorization": "Bearer ya29.real"}); resp.StatusCode != 401 {
		t.Errorf("the real token itself was taken: %s", resp.Status)
	}
	for _, h := range rec.headers {
		if h.Get("X-Goog-Api-Key") != "" {
			t.Errorf("a planted key header reached the upstream")
		}
	}
	if len(rec.paths) != 4 {
		t.Errorf("upstream got %v", rec.paths)
	}
}

// TestGoogleRefreshOnceForTwoSessions: two sessions find the Google login
// about to expire at once; the token endpoint gets Gemini CLI's form once,
// both get the new token, and the file, valid JSON at every moment, keeps
// its refresh token, its mode and the keys claudebox does not read.
func TestGoogleRefreshOnceForTwoSessions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "oauth_creds.json")
	writeGoogleLogin(t, file, "ya29.old", time.Now().Add(time.Minute))
	var calls atomic.Int32
	url := googleTokenEndpoint(t, &calls, false)
	stop := make(chan struct{})
	var torn atomic.Int32
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { // the host's gemini reading the file meanwhile
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
		c := Login(GoogleOAuth, file, filepath.Join(dir, "state", "google-oauth-refresh.lock"), url)
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
	if calls.Load() != 1 || tokens[0] != "ya29.fresh" || tokens[1] != "ya29.fresh" {
		t.Errorf("%d calls, tokens %q", calls.Load(), tokens)
	}
	if torn.Load() != 0 {
		t.Errorf("the file was unreadable or not JSON %d times", torn.Load())
	}
	var got struct {
		AccessToken  string         `json:"access_token"`
		RefreshToken string         `json:"refresh_token"`
		IDToken      string         `json:"id_token"`
		ExpiryDate   int64          `json:"expiry_date"`
		Future       map[string]int `json:"future"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.AccessToken != "ya29.fresh" || got.RefreshToken != "1//google-refresh" || got.IDToken != "new-id" || got.Future["x"] != 1 ||
		time.Until(time.UnixMilli(got.ExpiryDate)) < 50*time.Minute {
		t.Errorf("rewritten file: %s", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".oauth_creds.json.*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// TestGoogleRefreshFails: a refused refresh reaches gemini as an error in
// Google's shape (which it shows) saying to log in again on the host, and
// the file is left as it was.
func TestGoogleRefreshFails(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "oauth_creds.json")
	writeGoogleLogin(t, file, "ya29.old", time.Now().Add(-time.Hour))
	before, _ := os.ReadFile(file)
	var calls atomic.Int32
	up := startUpstream(t, func(http.Header) bool { return true }, nil, nil)
	p, err := startLoopback(Login(GoogleOAuth, file, filepath.Join(dir, "lock"), googleTokenEndpoint(t, &calls, true)), up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, body := post(t, p.URL+"/v1internal:loadCodeAssist", map[string]string{"Authorization": "Bearer " + p.Phantom})
	var e struct {
		Error struct {
			Code    int
			Message string
		}
	}
	json.Unmarshal([]byte(body), &e)
	if resp.StatusCode != 401 || e.Error.Code != 401 || !strings.Contains(e.Error.Message, "the Google login on the host has expired") ||
		!strings.Contains(e.Error.Message, "run gemini on the host and log in again") {
		t.Errorf("%s %s", resp.Status, body)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) || calls.Load() != 1 {
		t.Errorf("%d calls; the file changed: %s", calls.Load(), after)
	}
}

package proxy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCodexRefreshOnceForTwoSessions: two sessions find Codex's ChatGPT
// login expired at once; the token endpoint, which rotates refresh tokens
// as the real one does, is called once with Codex's request, both get the
// new access token, and auth.json keeps the keys claudebox does not know
// and its mode.
func TestCodexRefreshOnceForTwoSessions(t *testing.T) {
	dir := t.TempDir()
	file, lock := filepath.Join(dir, "auth.json"), filepath.Join(dir, "state", "codex-refresh.lock")
	expired := UnsignedJWT(map[string]any{"exp": time.Now().Add(-time.Minute).Unix()})
	fresh := UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
	login, _ := json.Marshal(map[string]any{
		"auth_mode": "chatgpt", "future": map[string]int{"x": 1},
		"tokens": map[string]string{"access_token": expired, "refresh_token": "rt-one", "account_id": "acct", "id_token": "old-id", "other": "keep"},
	})
	os.WriteFile(file, login, 0o600)
	var calls atomic.Int32
	var mu sync.Mutex
	valid := "rt-one"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req map[string]string
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		if req["grant_type"] != "refresh_token" || req["refresh_token"] != valid || req["client_id"] != codexClientID {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		time.Sleep(50 * time.Millisecond) // two sessions overlap here if not serialised
		valid = "rt-two"
		json.NewEncoder(w).Encode(map[string]string{"access_token": fresh, "refresh_token": valid, "id_token": "new-id"})
	}))
	defer srv.Close()

	var wg sync.WaitGroup
	tokens := make([]string, 2)
	for i := range tokens {
		c := Login(ChatGPTLogin, file, lock, srv.URL)
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
	if calls.Load() != 1 || tokens[0] != fresh || tokens[1] != fresh {
		t.Errorf("%d calls, tokens %q", calls.Load(), tokens)
	}
	var got struct {
		Mode   string            `json:"auth_mode"`
		Future map[string]int    `json:"future"`
		Tokens map[string]string `json:"tokens"`
		Last   string            `json:"last_refresh"`
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	tk := got.Tokens
	if got.Mode != "chatgpt" || got.Future["x"] != 1 || tk["access_token"] != fresh || tk["refresh_token"] != "rt-two" || tk["id_token"] != "new-id" ||
		tk["account_id"] != "acct" || tk["other"] != "keep" || got.Last == "" {
		t.Errorf("rewritten file: %s", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if c := Login(ChatGPTLogin, file, lock, srv.URL); c.CodexAccount() != "acct" {
		t.Errorf("account %q", c.CodexAccount())
	}
}

// TestCodexLoginNotDue: a token that is not about to expire is sent as it
// is, and the token endpoint is not called.
func TestCodexLoginNotDue(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "auth.json")
	access := UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
	login, _ := json.Marshal(map[string]any{"tokens": map[string]string{"access_token": access, "refresh_token": "rt"}})
	os.WriteFile(file, login, 0o600)
	c := Login(ChatGPTLogin, file, filepath.Join(dir, "lock"), "http://127.0.0.1:1/unused")
	if tok, err := c.Token(t.Context()); err != nil || tok != access {
		t.Errorf("%q, %v", tok, err)
	}
}

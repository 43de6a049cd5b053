package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/atomicfile"
)

// ChatGPTLogin is Codex's ChatGPT login (auth.json with tokens): the
// access token goes as Authorization: Bearer, the account in
// chatgpt-account-id, to the ChatGPT backend. Inside, Codex holds a phantom
// login of the same shape in a private auth.json (there is no variable
// for one).
const ChatGPTLogin Kind = 110

// Measured with codex-cli 0.169.0: it sends its model calls to
// chatgpt.com/backend-api/codex, and refreshes an access token whose JWT
// exp has passed with a JSON POST to the token endpoint (client id,
// grant_type, refresh_reason, refresh_token), which answers access_token,
// refresh_token and id_token.
const (
	ChatGPTUpstream = "https://chatgpt.com/backend-api/codex"
	CodexTokenURL   = "https://auth.openai.com/oauth/token"
	codexClientID   = "app_EMoamEEZ73f0CkXaXp7hrann"
)

// CodexLogin is the ChatGPT login in Codex's auth.json at path, read and
// refreshed on each use; lockFile serialises claudebox's sessions'
// refreshes; tokenURL is the token endpoint.
func CodexLogin(path, lockFile, tokenURL string) *Credential {
	return &Credential{Kind: ChatGPTLogin, Source: path, file: path, lockFile: lockFile, tokenURL: tokenURL}
}

// codexTokens is the part of auth.json claudebox reads; the rest of the
// file is kept as it is.
type codexTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	AccountID    string `json:"account_id"`
}

// readCodexLogin reads auth.json: every top-level key, and the tokens.
func readCodexLogin(path string) (map[string]json.RawMessage, codexTokens, error) {
	var t codexTokens
	b, err := readLoginFile(path)
	if err != nil {
		return nil, t, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, t, fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(top["tokens"], &t); err != nil || t.AccessToken == "" {
		return nil, t, fmt.Errorf("%s holds no ChatGPT login", path)
	}
	return top, t, nil
}

// readLoginFile reads a login file of at most 1 MiB.
func readLoginFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// jwtExpiry is the exp claim of a JWT; false when token is not one.
func jwtExpiry(token string) (time.Time, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if json.Unmarshal(b, &claims) != nil || claims.Exp == 0 {
		return time.Time{}, false
	}
	return time.Unix(claims.Exp, 0), true
}

// fresh says an access token need not be refreshed yet: its exp is more
// than refreshMargin away, or it has none (Codex itself then refreshes on
// the backend's 401 only).
func fresh(access string) bool {
	exp, ok := jwtExpiry(access)
	return !ok || time.Until(exp) > refreshMargin
}

// CodexAccount is the login's ChatGPT account, which the backend takes in
// chatgpt-account-id.
func (c *Credential) CodexAccount() string {
	_, t, _ := readCodexLogin(c.file)
	return t.AccountID
}

// codexToken is the login's access token, refreshed first when it is about
// to expire.
func (c *Credential) codexToken(ctx context.Context) (string, error) {
	_, t, err := readCodexLogin(c.file)
	if err != nil {
		return "", &codexRefreshError{err}
	}
	if fresh(t.AccessToken) {
		return t.AccessToken, nil
	}
	return c.refreshCodexLogin(ctx)
}

// codexRefreshError says the ChatGPT login could not be refreshed: the
// user logs in again on the host.
type codexRefreshError struct{ Err error }

func (e *codexRefreshError) Error() string {
	return "the ChatGPT login of Codex on the host has expired and could not be refreshed (" + e.Err.Error() + "); log in again on the host: codex login"
}

// refreshCodexLogin refreshes the login as Codex does, one refresh at a
// time across claudebox's sessions. As for Claude's login, the file is
// read again under the lock (the host's codex or another session may have
// refreshed it, and the refresh token rotates), and written back
// atomically with every key claudebox does not know kept.
func (c *Credential) refreshCodexLogin(ctx context.Context) (string, error) {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	unlock, err := lockExclusive(c.lockFile)
	if err != nil {
		return "", &codexRefreshError{err}
	}
	defer unlock()
	top, t, err := readCodexLogin(c.file)
	if err != nil {
		return "", &codexRefreshError{err}
	}
	if fresh(t.AccessToken) {
		return t.AccessToken, nil
	}
	if t.RefreshToken == "" {
		return "", &codexRefreshError{fmt.Errorf("%s has no refresh token", c.file)}
	}
	got, err := requestCodexRefresh(ctx, c.tokenURL, t.RefreshToken)
	if err != nil {
		return "", &codexRefreshError{err}
	}
	var tokens map[string]json.RawMessage
	json.Unmarshal(top["tokens"], &tokens)
	for k, v := range map[string]string{"access_token": got.AccessToken, "refresh_token": got.RefreshToken, "id_token": got.IDToken} {
		if v != "" {
			tokens[k], _ = json.Marshal(v)
		}
	}
	top["tokens"], _ = json.Marshal(tokens)
	top["last_refresh"], _ = json.Marshal(time.Now().UTC().Format(time.RFC3339Nano))
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return "", &codexRefreshError{err}
	}
	if err := atomicfile.Write(c.file, out, atomicfile.Mode(c.file, 0o600)); err != nil {
		return "", &codexRefreshError{err}
	}
	return got.AccessToken, nil
}

// lockExclusive holds an flock on path (made 0600 if missing, never
// through a symlink) until unlock.
func lockExclusive(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// codexTokenResponse is the token endpoint's answer.
type codexTokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
}

// requestCodexRefresh sends Codex's refresh request.
func requestCodexRefresh(ctx context.Context, url, refreshToken string) (codexTokenResponse, error) {
	body, _ := json.Marshal(map[string]string{
		"client_id": codexClientID, "grant_type": "refresh_token", "refresh_reason": "proactive_expiry", "refresh_token": refreshToken,
	})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return codexTokenResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return codexTokenResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return codexTokenResponse{}, fmt.Errorf("the token endpoint answered %s", resp.Status)
	}
	var t codexTokenResponse
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" {
		return codexTokenResponse{}, fmt.Errorf("the token endpoint's answer holds no token")
	}
	return t, nil
}

// PhantomMark stands, in the private auth.json of a ChatGPT login, for
// the session's phantom access token, which the launch puts in when the
// proxy has made it.
const PhantomMark = "{{claudebox-phantom}}"

// chatGPTPhantom is a phantom access token: a JWT (unsigned) whose exp is
// years away, so that Codex never refreshes it, and whose jti is 256
// random bits.
func chatGPTPhantom() string {
	b := make([]byte, 32)
	rand.Read(b)
	return UnsignedJWT(map[string]any{"exp": time.Now().AddDate(10, 0, 0).Unix(), "jti": "claudebox-" + hex.EncodeToString(b)})
}

// UnsignedJWT is a JWT of claims with no signature, which Codex decodes
// without checking one.
func UnsignedJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + ".claudebox"
}

// PhantomAccount is the ChatGPT account of the phantom login inside: the
// proxy sends the real one.
const PhantomAccount = "claudebox-phantom-account"

// accountsCheck is the path, under its chatgpt_base_url, where Codex's
// interactive mode discovers the workspace's routing before it starts
// (measured with 0.169.0: with no answer it exits, "workspace routing
// discovery failed"; it requires an HTTPS origin, so the proxy's address
// cannot be one).
const accountsCheck = "/backend-api/wham/accounts/check"

// answerAccountsCheck answers that discovery for the phantom account: no
// constraint on where it is served, chatgpt.com; Codex's model calls still
// go to its provider, the proxy. The backend is not asked: its answer
// would name the real account.
func answerAccountsCheck(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"accounts": []any{map[string]string{
		"id": PhantomAccount, "workspace_backend_origin": "https://chatgpt.com", "account_routing_override": "NO_CONSTRAINT",
	}}})
}

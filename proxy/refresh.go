package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// TokenURL is where Claude Code refreshes an OAuth login (measured).
const TokenURL = "https://platform.claude.com/v1/oauth/token"

// The refresh request's fixed fields, as Claude Code sends them.
const (
	oauthClientID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
	oauthScope    = "user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
)

// refreshMargin: a token that expires sooner is refreshed first, so that a
// long streamed reply does not outlive it.
const refreshMargin = 5 * time.Minute

// refreshError says the login could not be refreshed: the user logs in
// again on the host.
type refreshError struct{ Err error }

func (e *refreshError) Error() string {
	return "the Claude login on the host has expired and could not be refreshed (" + e.Err.Error() + ")"
}

// Token is the real credential to send now: a variable's value, or the
// login's access token, refreshed first when it is about to expire.
func (c *Credential) Token(ctx context.Context) (string, error) {
	if c.Kind == ChatGPTLogin {
		return c.codexToken(ctx)
	}
	if c.file == "" {
		return c.value, nil
	}
	_, login, err := readLogin(c.file)
	if err != nil {
		return "", &refreshError{err}
	}
	if time.Until(time.UnixMilli(login.ExpiresAt)) > refreshMargin {
		return login.AccessToken, nil
	}
	return c.refreshLogin(ctx)
}

// refreshLogin refreshes the login as Claude Code does, one refresh at a
// time across claudebox's sessions (an flock under ~/.claudebox). The file
// is read again under the lock: another session, or the host's own claude,
// may have refreshed it meanwhile, and refresh tokens rotate, so the old
// one would be dead. The new login is written back atomically with every
// key claudebox does not know kept, so the host's claude keeps working.
func (c *Credential) refreshLogin(ctx context.Context) (string, error) {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	if err := os.MkdirAll(filepath.Dir(c.lockFile), 0o700); err != nil {
		return "", &refreshError{err}
	}
	lock, err := os.OpenFile(c.lockFile, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", &refreshError{err}
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", &refreshError{err}
	}
	top, login, err := readLogin(c.file)
	if err != nil {
		return "", &refreshError{err}
	}
	if time.Until(time.UnixMilli(login.ExpiresAt)) > refreshMargin {
		return login.AccessToken, nil
	}
	if login.RefreshToken == "" {
		return "", &refreshError{fmt.Errorf("%s has no refresh token", c.file)}
	}
	fresh, err := requestRefresh(ctx, c.tokenURL, login.RefreshToken)
	if err != nil {
		return "", &refreshError{err}
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(top["claudeAiOauth"], &fields)
	set := func(k string, v any) { fields[k], _ = json.Marshal(v) }
	set("accessToken", fresh.AccessToken)
	if fresh.RefreshToken != "" {
		set("refreshToken", fresh.RefreshToken)
	}
	set("expiresAt", time.Now().Add(time.Duration(fresh.ExpiresIn)*time.Second).UnixMilli())
	if fresh.Scope != "" {
		set("scopes", strings.Fields(fresh.Scope))
	}
	top["claudeAiOauth"], _ = json.Marshal(fields)
	out, err := json.Marshal(top)
	if err != nil {
		return "", &refreshError{err}
	}
	if err := atomicfile.Write(c.file, out, atomicfile.Mode(c.file, 0o600)); err != nil {
		return "", &refreshError{err}
	}
	return fresh.AccessToken, nil
}

// tokenResponse is the token endpoint's answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// requestRefresh sends Claude Code's refresh request (measured: a JSON
// POST with these four fields).
func requestRefresh(ctx context.Context, url, refreshToken string) (tokenResponse, error) {
	body, _ := json.Marshal(map[string]string{
		"grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": oauthClientID, "scope": oauthScope,
	})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return tokenResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return tokenResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return tokenResponse{}, fmt.Errorf("the token endpoint answered %s", resp.Status)
	}
	var t tokenResponse
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" || t.ExpiresIn <= 0 {
		return tokenResponse{}, fmt.Errorf("the token endpoint's answer holds no token")
	}
	return t, nil
}

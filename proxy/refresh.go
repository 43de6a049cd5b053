package proxy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
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

// refreshMargin: a token that expires sooner is refreshed first, so that a
// long streamed reply does not outlive it.
const refreshMargin = 5 * time.Minute

// loginFormat is how a kind of OAuth login lives in its file on the host
// and is refreshed, as the agent's own CLI does it (measured for each).
// Every kind is refreshed the same way (refreshLogin); only this differs.
type loginFormat struct {
	// name names the login in errors; again says how to log in again.
	name, again string
	// tokenURL is the token endpoint.
	tokenURL string
	// tokens reads the login from the file's top-level keys; a zero
	// expires is none known (the token is then sent until refused).
	tokens func(top map[string]json.RawMessage) (loginTokens, bool)
	// request is the refresh request's content type and body.
	request func(refreshToken string) (contentType, body string)
	// update puts the endpoint's answer in the file's top-level keys.
	update func(top map[string]json.RawMessage, fresh tokenResponse) error
	// indent writes the file back indented, as its CLI does.
	indent bool
}

// loginTokens is what a login file holds of the login.
type loginTokens struct {
	access, refresh string
	expires         time.Time
}

// fresh says the access token need not be refreshed yet.
func (t loginTokens) fresh() bool {
	return t.access != "" && (t.expires.IsZero() || time.Until(t.expires) > refreshMargin)
}

// loginFormats are the OAuth logins claudebox refreshes: kind k's
// format, none for another kind.
func loginFormats(k Kind) loginFormat {
	switch k {
	case OAuth:
		return claudeLogin
	case ChatGPTLogin:
		return chatGPTLogin
	case GoogleOAuth:
		return googleLogin
	}
	return loginFormat{}
}

// Login is the host's OAuth login of kind k in file, read and refreshed on
// each use, one refresh at a time across claudebox's sessions (an flock on
// lockFile); tokenURL replaces the kind's token endpoint when not "".
func Login(k Kind, file, lockFile, tokenURL string) *Credential {
	if tokenURL == "" {
		tokenURL = loginFormats(k).tokenURL
	}
	return &Credential{Kind: k, Source: file, file: file, lockFile: lockFile, tokenURL: tokenURL}
}

// refreshError says the login could not be refreshed: the user logs in
// again on the host (again says how).
type refreshError struct {
	Err         error
	name, again string
}

func (e *refreshError) Error() string {
	return "the " + e.name + " login on the host has expired and could not be refreshed (" + e.Err.Error() + ")"
}

// fail is err as this login's refreshError.
func (f loginFormat) fail(err error) error {
	return &refreshError{Err: err, name: f.name, again: f.again}
}

// read reads a login file: every top-level key, and the login.
func (f loginFormat) read(path string) (map[string]json.RawMessage, loginTokens, error) {
	b, err := readLoginFile(path)
	if err != nil {
		return nil, loginTokens{}, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, loginTokens{}, fmt.Errorf("%s: %w", path, err)
	}
	t, ok := f.tokens(top)
	if !ok {
		return nil, t, fmt.Errorf("%s holds no %s login", path, f.name)
	}
	return top, t, nil
}

// readLoginFile reads a login file of at most 1 MiB; what is not a
// regular file is refused (opened without waiting, so a FIFO does not
// hold the proxy).
func readLoginFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// Token is the real credential to send now: a variable's value, or the
// login's access token, refreshed first when it is about to expire.
func (c *Credential) Token(ctx context.Context) (string, error) {
	if c.file == "" {
		return c.value, nil
	}
	f := loginFormats(c.Kind)
	_, t, err := f.read(c.file)
	if err != nil {
		return "", f.fail(err)
	}
	if t.fresh() {
		return t.access, nil
	}
	return c.refreshLogin(ctx, f)
}

// refreshLogin refreshes the login as its CLI does, one refresh at a time
// across claudebox's sessions (an flock under ~/.claudebox). The file is
// read again under the lock: another session, or the host's own CLI, may
// have refreshed it meanwhile, and refresh tokens rotate, so the old one
// would be dead. The new login is written back atomically with every key
// claudebox does not know kept, so the host's CLI keeps working.
func (c *Credential) refreshLogin(ctx context.Context, f loginFormat) (string, error) {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	unlock, err := lockExclusive(c.lockFile)
	if err != nil {
		return "", f.fail(err)
	}
	defer unlock()
	top, t, err := f.read(c.file)
	if err != nil {
		return "", f.fail(err)
	}
	if t.fresh() {
		return t.access, nil
	}
	if t.refresh == "" {
		return "", f.fail(fmt.Errorf("%s has no refresh token", c.file))
	}
	contentType, body := f.request(t.refresh)
	fresh, err := requestRefresh(ctx, c.client(), c.tokenURL, contentType, body)
	if err == nil {
		err = f.update(top, fresh)
	}
	if err != nil {
		return "", f.fail(err)
	}
	out, err := json.Marshal(top)
	if f.indent {
		out, err = json.MarshalIndent(top, "", "  ")
	}
	if err != nil {
		return "", f.fail(err)
	}
	if err := atomicfile.Write(c.file, out, atomicfile.Mode(c.file, 0o600)); err != nil {
		return "", f.fail(err)
	}
	return fresh.AccessToken, nil
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

// tokenResponse is a token endpoint's answer (each kind's fields).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	IDToken      string `json:"id_token"`
}

// errNoToken says the token endpoint's answer is not a login.
var errNoToken = errors.New("the token endpoint's answer holds no token")

// client is what a refresh is sent with: one trusting the proxy's CAs,
// keeping no connection (a refresh comes hours apart).
func (c *Credential) client() *http.Client {
	if c.roots == nil {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{RootCAs: c.roots()}, DisableKeepAlives: true}}
}

// requestRefresh posts a refresh request to the token endpoint url.
func requestRefresh(ctx context.Context, client *http.Client, url, contentType, body string) (tokenResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return tokenResponse{}, err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := client.Do(req)
	if err != nil {
		return tokenResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return tokenResponse{}, fmt.Errorf("the token endpoint answered %s", resp.Status)
	}
	var t tokenResponse
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" {
		return tokenResponse{}, errNoToken
	}
	return t, nil
}

// jsonBody is a JSON request body.
func jsonBody(fields map[string]string) (string, string) {
	b, _ := json.Marshal(fields)
	return "application/json", string(b)
}

// set puts v, as JSON, at key k of m.
func set(m map[string]json.RawMessage, k string, v any) { m[k], _ = json.Marshal(v) }

// setNonEmpty sets each non-empty value of fields in m.
func setNonEmpty(m map[string]json.RawMessage, fields map[string]string) {
	for k, v := range fields {
		if v != "" {
			set(m, k, v)
		}
	}
}

// claudeTokenURL is where Claude Code refreshes an OAuth login (measured).
const claudeTokenURL = "https://platform.claude.com/v1/oauth/token"

// The refresh request's fixed fields, as Claude Code sends them.
const (
	oauthClientID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e"
	oauthScope    = "user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload"
)

// oauthLogin is the part of Claude Code's credentials file claudebox
// reads (its claudeAiOauth key); the rest of the file is kept as it is.
type oauthLogin struct {
	AccessToken  string `json:"accessToken"`
	RefreshToken string `json:"refreshToken"`
	ExpiresAt    int64  `json:"expiresAt"` // Unix milliseconds
}

// claudeLogin is Claude Code's login, ~/.claude/.credentials.json: it
// refreshes with a JSON POST of four fields (measured).
var claudeLogin = loginFormat{
	name: "Claude", again: "log in again on the host: claude /login", tokenURL: claudeTokenURL,
	tokens: func(top map[string]json.RawMessage) (loginTokens, bool) {
		var l oauthLogin
		if json.Unmarshal(top["claudeAiOauth"], &l) != nil || l.AccessToken == "" {
			return loginTokens{}, false
		}
		return loginTokens{l.AccessToken, l.RefreshToken, time.UnixMilli(l.ExpiresAt)}, true
	},
	request: func(refreshToken string) (string, string) {
		return jsonBody(map[string]string{"grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": oauthClientID, "scope": oauthScope})
	},
	update: func(top map[string]json.RawMessage, fresh tokenResponse) error {
		if fresh.ExpiresIn <= 0 {
			return errNoToken
		}
		var fields map[string]json.RawMessage
		json.Unmarshal(top["claudeAiOauth"], &fields)
		set(fields, "accessToken", fresh.AccessToken)
		setNonEmpty(fields, map[string]string{"refreshToken": fresh.RefreshToken})
		set(fields, "expiresAt", time.Now().Add(time.Duration(fresh.ExpiresIn)*time.Second).UnixMilli())
		if fresh.Scope != "" {
			set(fields, "scopes", strings.Fields(fresh.Scope))
		}
		set(top, "claudeAiOauth", fields)
		return nil
	},
}

package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// GoogleOAuth is Gemini CLI's "Login with Google": an OAuth access token
// sent as Authorization: Bearer to the Code Assist API. Inside, gemini
// gets the phantom as GOOGLE_CLOUD_ACCESS_TOKEN, which it uses as it is and
// never refreshes (measured with 0.61.0: with GOOGLE_GENAI_USE_GCA=true it
// reads no login file and holds no refresh token).
const GoogleOAuth Kind = iota + 200

// googleVariable gives gemini the phantom inside.
const googleVariable = "GOOGLE_CLOUD_ACCESS_TOKEN"

// GoogleTokenURL is where Gemini CLI refreshes its Google login (measured
// with 0.61.0, through google-auth-library).
const GoogleTokenURL = "https://oauth2.googleapis.com/token"

// Gemini CLI's OAuth client: an installed application's, public, written
// in gemini-cli's source; its refresh request names it.
const (
	googleClientID     = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
	googleClientSecret = "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"
)

// GoogleLogin is the host's Google login in file (Gemini CLI's
// ~/.gemini/oauth_creds.json), refreshed on the host when it is about to
// expire, one refresh at a time across claudebox's sessions (an flock on
// lockFile); tokenURL is the token endpoint.
func GoogleLogin(file, lockFile, tokenURL string) *Credential {
	return &Credential{Kind: GoogleOAuth, Source: file, file: file, lockFile: lockFile, tokenURL: tokenURL}
}

// googleLogin is the part of oauth_creds.json claudebox reads; the rest of
// the file is kept as it is.
type googleLogin struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiryDate   int64  `json:"expiry_date"` // Unix milliseconds
}

// readGoogleLogin reads oauth_creds.json: every top-level key, and the
// login. A login with no expiry is taken as expiring now, as the host's
// gemini would refresh it.
func readGoogleLogin(path string) (map[string]json.RawMessage, googleLogin, error) {
	var login googleLogin
	b, err := readLoginFile(path)
	if err != nil {
		return nil, login, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, login, fmt.Errorf("%s: %w", path, err)
	}
	if err := json.Unmarshal(b, &login); err != nil || login.AccessToken == "" && login.RefreshToken == "" {
		return nil, login, fmt.Errorf("%s holds no Google login", path)
	}
	return top, login, nil
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

// googleToken is the Google login's access token, refreshed first when it
// expires within refreshMargin (google-auth-library's own margin).
func (c *Credential) googleToken(ctx context.Context) (string, error) {
	if c.file == "" {
		return c.value, nil
	}
	_, login, err := readGoogleLogin(c.file)
	if err != nil {
		return "", googleRefreshError(err)
	}
	if login.AccessToken != "" && time.Until(time.UnixMilli(login.ExpiryDate)) > refreshMargin {
		return login.AccessToken, nil
	}
	return c.refreshGoogleLogin(ctx)
}

// refreshGoogleLogin refreshes the login as Gemini CLI does, under the
// lock, after reading the file again: another session, or the host's own
// gemini, may have refreshed it meanwhile. The new login is written back
// atomically with every key claudebox does not know kept (gemini itself
// keeps a refresh token the answer leaves out, and drops the rest).
func (c *Credential) refreshGoogleLogin(ctx context.Context) (string, error) {
	c.refresh.Lock()
	defer c.refresh.Unlock()
	if err := os.MkdirAll(filepath.Dir(c.lockFile), 0o700); err != nil {
		return "", googleRefreshError(err)
	}
	lock, err := os.OpenFile(c.lockFile, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", googleRefreshError(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return "", googleRefreshError(err)
	}
	top, login, err := readGoogleLogin(c.file)
	if err != nil {
		return "", googleRefreshError(err)
	}
	if login.AccessToken != "" && time.Until(time.UnixMilli(login.ExpiryDate)) > refreshMargin {
		return login.AccessToken, nil
	}
	if login.RefreshToken == "" {
		return "", googleRefreshError(fmt.Errorf("%s has no refresh token", c.file))
	}
	fresh, err := requestGoogleRefresh(ctx, c.tokenURL, login.RefreshToken)
	if err != nil {
		return "", googleRefreshError(err)
	}
	set := func(k string, v any) { top[k], _ = json.Marshal(v) }
	set("access_token", fresh.AccessToken)
	set("expiry_date", time.Now().Add(time.Duration(fresh.ExpiresIn)*time.Second).UnixMilli())
	for k, v := range map[string]string{"refresh_token": fresh.RefreshToken, "scope": fresh.Scope, "token_type": fresh.TokenType, "id_token": fresh.IDToken} {
		if v != "" {
			set(k, v)
		}
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return "", googleRefreshError(err)
	}
	if err := atomicfile.Write(c.file, out, atomicfile.Mode(c.file, 0o600)); err != nil {
		return "", googleRefreshError(err)
	}
	return fresh.AccessToken, nil
}

// googleRefreshError says the Google login could not be refreshed.
func googleRefreshError(err error) error {
	return &refreshError{Err: err, Login: "Google", Again: "run gemini on the host and log in again"}
}

// googleTokenResponse is Google's token endpoint's answer.
type googleTokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	IDToken      string `json:"id_token"`
}

// requestGoogleRefresh sends Gemini CLI's refresh request (measured: a
// form POST of these four fields).
func requestGoogleRefresh(ctx context.Context, url, refreshToken string) (googleTokenResponse, error) {
	form := neturl.Values{
		"refresh_token": {refreshToken}, "client_id": {googleClientID}, "client_secret": {googleClientSecret}, "grant_type": {"refresh_token"},
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(form.Encode()))
	if err != nil {
		return googleTokenResponse{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return googleTokenResponse{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return googleTokenResponse{}, fmt.Errorf("the token endpoint answered %s", resp.Status)
	}
	var t googleTokenResponse
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" || t.ExpiresIn <= 0 {
		return googleTokenResponse{}, fmt.Errorf("the token endpoint's answer holds no token")
	}
	return t, nil
}

// codeAssistAllowed says r is a call Gemini CLI makes to the Code Assist
// API with a Google login (measured with 0.61.0: its setup, the model
// calls, the quota and experiments it reads at start; the others are in
// its code: onboarding and its long-running operation, admin controls, the
// user setting, the metrics it records). The login's token is good for
// much more of Google (cloud-platform): only these pass.
func codeAssistAllowed(r *http.Request) bool {
	p := r.URL.Path
	if r.URL.RawPath != "" || path.Clean(p) != p {
		return false
	}
	if op, ok := strings.CutPrefix(p, "/v1internal/operations/"); ok {
		return r.Method == http.MethodGet && modelID(op)
	}
	method, ok := strings.CutPrefix(p, "/v1internal:")
	if !ok {
		return false
	}
	switch method {
	case "getCodeAssistGlobalUserSetting":
		return r.Method == http.MethodGet
	case "loadCodeAssist", "onboardUser", "generateContent", "streamGenerateContent", "countTokens",
		"listExperiments", "retrieveUserQuota", "fetchAdminControls", "recordCodeAssistMetrics", "setCodeAssistGlobalUserSetting":
		return r.Method == http.MethodPost
	}
	return false
}

// googleError answers in Google's error shape, whose message Gemini CLI
// shows (measured with 0.61.0, at its setup and at a model call).
func googleError(w http.ResponseWriter, status int, msg string) {
	code := "PERMISSION_DENIED"
	if status == http.StatusUnauthorized {
		code = "UNAUTHENTICATED"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": code}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Claudebox-Proxy", "refused")
	w.WriteHeader(status)
	w.Write(b)
}

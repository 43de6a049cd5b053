package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	neturl "net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// GoogleOAuth is Gemini CLI's "Login with Google": an OAuth access token
// sent as Authorization: Bearer to the Code Assist API. Inside, gemini
// gets the phantom as GOOGLE_CLOUD_ACCESS_TOKEN, which it uses as it is and
// never refreshes (measured with 0.61.0: with GOOGLE_GENAI_USE_GCA=true it
// reads no login file and holds no refresh token).
const GoogleOAuth Kind = iota + 200

// googleVariable gives gemini the phantom inside.
const googleVariable = "GOOGLE_CLOUD_ACCESS_TOKEN"

// googleTokenURL is where Gemini CLI refreshes its Google login (measured
// with 0.61.0, through google-auth-library).
const googleTokenURL = "https://oauth2.googleapis.com/token"

// Gemini CLI's OAuth client: an installed application's, public, written
// in gemini-cli's source; its refresh request names it.
const (
	googleClientID     = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com"
	googleClientSecret = "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"
)

// googleLogin is Gemini CLI's Google login, ~/.gemini/oauth_creds.json
// (its keys at the top). A login with no expiry is taken as expiring now, as the host's gemini
// would refresh it (google-auth-library's margin is refreshMargin). It
// refreshes with a form POST of four fields (measured); gemini itself
// keeps a refresh token the answer leaves out, and drops the rest.
var googleLogin = loginFormat{
	name: "Google", again: "run gemini on the host and log in again", tokenURL: googleTokenURL, indent: true,
	tokens: func(top map[string]json.RawMessage) (loginTokens, bool) {
		var t loginTokens
		var expiry int64 // Unix milliseconds
		json.Unmarshal(top["access_token"], &t.access)
		json.Unmarshal(top["refresh_token"], &t.refresh)
		json.Unmarshal(top["expiry_date"], &expiry)
		t.expires = time.UnixMilli(expiry)
		return t, t.access != "" || t.refresh != ""
	},
	request: func(refreshToken string) (string, string) {
		form := neturl.Values{
			"refresh_token": {refreshToken}, "client_id": {googleClientID}, "client_secret": {googleClientSecret}, "grant_type": {"refresh_token"},
		}
		return "application/x-www-form-urlencoded", form.Encode()
	},
	update: func(top map[string]json.RawMessage, fresh tokenResponse) error {
		if fresh.ExpiresIn <= 0 {
			return errNoToken
		}
		set(top, "access_token", fresh.AccessToken)
		set(top, "expiry_date", time.Now().Add(time.Duration(fresh.ExpiresIn)*time.Second).UnixMilli())
		setNonEmpty(top, map[string]string{"refresh_token": fresh.RefreshToken, "scope": fresh.Scope, "token_type": fresh.TokenType, "id_token": fresh.IDToken})
		return nil
	},
}

// codeAssistAllowed says r is a call Gemini CLI makes to the Code Assist
// API with a Google login (measured with 0.61.0: its setup, the model
// calls, the quota and experiments it reads at start; the others are in
// its code: onboarding and its long-running operation, admin controls,
// reading the user setting, the metrics it records). The login's token is
// good for much more of Google (cloud-platform): only these pass. Not
// setCodeAssistGlobalUserSetting, which gemini's /privacy sends: it opts
// the account in or out of Google's collecting its free tier's prompts
// and code, for every later session on every project (set it on the
// host).
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
		"listExperiments", "retrieveUserQuota", "fetchAdminControls", "recordCodeAssistMetrics":
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

// googleProjects are the Google Cloud projects Code Assist calls may
// name (project, cloudaicompanionProject, metadata's duetProject): the
// one the host's configuration names, and those Google answered Gemini
// CLI's setup with for the user's login (loadCodeAssist, onboardUser and
// its operation; the free tier's own project). The login may use any
// project whose owner granted the user's account access, and Code Assist
// keeps what a call sends in its project's logs, which that owner reads;
// it bills it to that project too.
type googleProjects struct {
	mu    sync.Mutex
	names []string
}

// maxGoogleProjects bounds the projects learnt from answers.
const maxGoogleProjects = 8

// PinGoogleProject has Code Assist calls name only project (the host's
// GOOGLE_CLOUD_PROJECT, or "" where it names none) or a project Google
// answers the setup with. Called before the sandbox starts.
func (p *Proxy) PinGoogleProject(project string) {
	p.projects.add(project)
}

func (g *googleProjects) add(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if name != "" && !slices.Contains(g.names, name) && len(g.names) < maxGoogleProjects {
		g.names = append(g.names, name)
	}
}

// known says a call may name the project name.
func (g *googleProjects) known(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Contains(g.names, name)
}

// answersProject says an answer at path names the project Google gives
// the login: Gemini CLI's setup, whose request is pinned.
func answersProject(path string) bool {
	return strings.HasSuffix(path, "/v1internal:loadCodeAssist") || strings.HasSuffix(path, "/v1internal:onboardUser") || strings.Contains(path, "/v1internal/operations/")
}

// maxProjectAnswer bounds the setup's answer read for its project.
const maxProjectAnswer = 64 << 10

// learnProject adds the project a setup's answer names (loadCodeAssist's
// cloudaicompanionProject, an onboarding operation's response's, a
// string or an object with its id), then passes the answer on whole.
func (g *googleProjects) learnProject(resp *http.Response) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxProjectAnswer+1))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	if err != nil || len(b) > maxProjectAnswer {
		return
	}
	var answer struct {
		Project  json.RawMessage `json:"cloudaicompanionProject"`
		Response struct {
			Project json.RawMessage `json:"cloudaicompanionProject"`
		} `json:"response"`
	}
	if json.Unmarshal(b, &answer) != nil {
		return
	}
	for _, raw := range []json.RawMessage{answer.Project, answer.Response.Project} {
		var name string
		var named struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &name) != nil && json.Unmarshal(raw, &named) == nil {
			name = named.ID
		}
		g.add(name)
	}
}

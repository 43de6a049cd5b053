package proxy

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
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
	codexTokenURL   = "https://auth.openai.com/oauth/token"
	codexClientID   = "app_EMoamEEZ73f0CkXaXp7hrann"
)

// codexTokens is the part of auth.json claudebox reads; the rest of the
// file is kept as it is.
type codexTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	AccountID    string `json:"account_id"`
}

// chatGPTLogin is Codex's ChatGPT login, ~/.codex/auth.json: an access
// token with no exp claim is sent until refused (Codex itself then
// refreshes on the backend's 401 only).
var chatGPTLogin = loginFormat{
	name: "ChatGPT", again: "log in again on the host: codex login", tokenURL: codexTokenURL, indent: true,
	tokens: func(top map[string]json.RawMessage) (loginTokens, bool) {
		var t codexTokens
		if json.Unmarshal(top["tokens"], &t) != nil || t.AccessToken == "" {
			return loginTokens{}, false
		}
		exp, _ := jwtExpiry(t.AccessToken)
		return loginTokens{t.AccessToken, t.RefreshToken, exp}, true
	},
	request: func(refreshToken string) (string, string) {
		return jsonBody(map[string]string{
			"client_id": codexClientID, "grant_type": "refresh_token", "refresh_reason": "proactive_expiry", "refresh_token": refreshToken,
		})
	},
	update: func(top map[string]json.RawMessage, fresh tokenResponse) error {
		var tokens map[string]json.RawMessage
		json.Unmarshal(top["tokens"], &tokens)
		setNonEmpty(tokens, map[string]string{"access_token": fresh.AccessToken, "refresh_token": fresh.RefreshToken, "id_token": fresh.IDToken})
		set(top, "tokens", tokens)
		set(top, "last_refresh", time.Now().UTC().Format(time.RFC3339Nano))
		return nil
	},
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

// CodexAccount is the login's ChatGPT account, which the backend takes in
// chatgpt-account-id.
func (c *Credential) CodexAccount() string {
	top, _, _ := chatGPTLogin.read(c.file)
	var t codexTokens
	json.Unmarshal(top["tokens"], &t)
	return t.AccountID
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

package agent

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/proxy"
)

// codexArgs turn its own sandbox, analytics and update checks off.
var codexArgs = []string{
	"-c", `sandbox_mode="danger-full-access"`,
	"-c", "analytics.enabled=false",
	"-c", "check_for_update_on_startup=false",
}

// codexProvider is the model provider Codex is given, by -c, pointing it
// at the proxy, with login saying what it authenticates with (measured
// with 0.169.0).
func codexProvider(login string) []string {
	return []string{
		"-c", `model_providers.claudebox={name="claudebox",base_url="` + apiURL + `",` + login + `,wire_api="responses",supports_websockets=false}`,
		"-c", `model_provider="claudebox"`,
	}
}

// codexAuth is the part of ~/.codex/auth.json claudebox reads.
type codexAuth struct {
	Key    *string `json:"OPENAI_API_KEY"`
	Tokens *struct {
		IDToken      string `json:"id_token"`
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	} `json:"tokens"`
}

// readCodexAuth reads ~/.codex/auth.json, if it is a small regular file.
func readCodexAuth(home string) (codexAuth, string, bool) {
	path := filepath.Join(home, ".codex", "auth.json")
	var auth codexAuth
	b, err := readSmall(path)
	if err != nil || json.Unmarshal(b, &auth) != nil {
		return auth, path, false
	}
	return auth, path, true
}

// codexKey reads the API key of Codex's API-key login, ~/.codex/auth.json.
func codexKey(home string) (string, string) {
	auth, path, ok := readCodexAuth(home)
	if !ok || auth.Key == nil {
		return "", ""
	}
	return *auth.Key, path
}

// codexChatGPTLogin is Codex with the host's ChatGPT login
// (~/.codex/auth.json holding tokens), when no API key is found. Inside,
// codex holds a phantom login of the same shape in a private auth.json
// (there is no variable for one), and its provider requires_openai_auth,
// which makes it send the ChatGPT backend's requests (Bearer access token,
// chatgpt-account-id) to the proxy; the proxy forwards them to the ChatGPT
// backend and refreshes the real login on the host.
func codexChatGPTLogin(a Agent, home string, lookup func(string) (string, bool)) (Agent, bool) {
	if _, hasKey := a.FindKey(home, lookup); hasKey {
		return a, false
	}
	auth, _, ok := readCodexAuth(home)
	if !ok || auth.Tokens == nil || auth.Tokens.AccessToken == "" {
		return a, false
	}
	c := a
	c.Args = append(codexProvider(`requires_openai_auth=true`), codexArgs...)
	// Its other ChatGPT calls (plugins, apps, account checks) go to the
	// proxy too, which refuses them: they would carry the phantom.
	c.Args = append(c.Args, "-c", `chatgpt_base_url="`+apiURL+`/backend-api/"`)
	c.Key = proxy.ChatGPTLogin
	c.KeyVariables = nil
	c.keyFile = nil
	c.BaseURLVariable = ""
	c.Upstream = proxy.ChatGPTUpstream
	c.LoginFile = "auth.json"
	c.phantomLogin = codexPhantomLogin
	c.login = nil
	return c, true
}

// codexPhantomLogin is the private auth.json of a ChatGPT login: the
// proxy's phantom access token (proxy.PhantomMark until the launch puts it
// in), a refresh token and an account that are worth nothing, and an
// unsigned id token holding only the claims Codex shows (the email, the
// plan), copied from the real one.
func codexPhantomLogin(home string) string {
	claims := map[string]any{}
	if auth, _, ok := readCodexAuth(home); ok && auth.Tokens != nil {
		claims = shownClaims(auth.Tokens.IDToken)
	}
	id := proxy.UnsignedJWT(claims)
	b, _ := json.MarshalIndent(map[string]any{
		"auth_mode":      "chatgpt",
		"OPENAI_API_KEY": nil,
		"tokens": map[string]string{
			"id_token": id, "access_token": proxy.PhantomMark,
			"refresh_token": "claudebox-phantom-refresh-token", "account_id": proxy.PhantomAccount,
		},
		"last_refresh": time.Now().UTC().Format(time.RFC3339),
	}, "", "  ")
	return string(b) + "\n"
}

// authClaim is where OpenAI's id token keeps the ChatGPT claims.
const authClaim = "https://api.openai.com/auth"

// shownClaims are the claims of the real id token that Codex shows: the
// email and the plan, with the account replaced by the phantom's.
func shownClaims(idToken string) map[string]any {
	claims := map[string]any{authClaim: map[string]any{"chatgpt_account_id": proxy.PhantomAccount}}
	parts := strings.Split(idToken, ".")
	if len(parts) != 3 {
		return claims
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	var real struct {
		Email string `json:"email"`
		Auth  struct {
			Plan string `json:"chatgpt_plan_type"`
		} `json:"https://api.openai.com/auth"`
	}
	if err != nil || json.Unmarshal(b, &real) != nil {
		return claims
	}
	if real.Email != "" {
		claims["email"] = real.Email
	}
	if real.Auth.Plan != "" {
		claims[authClaim].(map[string]any)["chatgpt_plan_type"] = real.Auth.Plan
	}
	return claims
}

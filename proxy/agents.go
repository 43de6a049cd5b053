package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"path"
	"strings"
)

// The other agents' API keys: each API takes its key in its own header and
// serves its own calls.
const (
	// OpenAIKey is an OpenAI API key (Codex): Authorization: Bearer.
	OpenAIKey Kind = iota + 100
	// GeminiKey is a Gemini API key: x-goog-api-key.
	GeminiKey
)

// KeyCredential is an API key of kind k found at source (a variable's
// name or a file's path), for the agents whose login claudebox does not
// refresh.
func KeyCredential(k Kind, source, value string) *Credential {
	return &Credential{Kind: k, Source: source, value: value}
}

// agentVariable is the variable that gives another agent its key inside
// ("" for a login given in a file).
func agentVariable(k Kind) (string, bool) {
	switch k {
	case OpenAIKey:
		return "OPENAI_API_KEY", true
	case GeminiKey:
		return "GEMINI_API_KEY", true
	case GoogleOAuth:
		return googleVariable, true
	case ChatGPTLogin:
		return "", true
	}
	return "", false
}

// agentPhantom is a random key of kind k, shaped like the real one.
func agentPhantom(k Kind) string {
	b := make([]byte, 32)
	rand.Read(b)
	if k == GeminiKey {
		return "AIza-claudebox-" + hex.EncodeToString(b)
	}
	if k == GoogleOAuth {
		return "ya29.claudebox-" + hex.EncodeToString(b)
	}
	if k == ChatGPTLogin {
		return chatGPTPhantom()
	}
	return "sk-claudebox-" + hex.EncodeToString(b)
}

// agentAllowed says r is a call the agent of kind k makes to its API
// (measured: Codex 0.169.0 posts /responses; Gemini CLI 0.61.0 posts
// generateContent and streamGenerateContent, counts tokens, lists
// models). The path is checked as allowed checks Claude's.
func agentAllowed(k Kind, r *http.Request) bool {
	p := r.URL.Path
	if r.URL.RawPath != "" || path.Clean(p) != p {
		return false
	}
	switch k {
	case GoogleOAuth:
		return codeAssistAllowed(r)
	case ChatGPTLogin:
		return r.Method == http.MethodGet && p == accountsCheck || agentAllowed(OpenAIKey, r)
	case OpenAIKey:
		return r.Method == http.MethodPost && (p == "/responses" || p == "/responses/compact") || r.Method == http.MethodGet && p == "/models"
	case GeminiKey:
		if r.Method == http.MethodGet && p == "/v1beta/models" {
			return true
		}
		call, ok := strings.CutPrefix(p, "/v1beta/models/")
		if !ok || r.Method != http.MethodPost {
			return false
		}
		model, method, ok := strings.Cut(call, ":")
		return ok && modelID(model) && (method == "generateContent" || method == "streamGenerateContent" || method == "countTokens")
	}
	return false
}

// agentKeyHeader is where the agent of kind k puts its key: the header,
// and whether it is a bearer token.
func agentKeyHeader(k Kind) (string, bool) {
	if k == GeminiKey {
		return "X-Goog-Api-Key", false
	}
	return "Authorization", true
}

// isAgentKey says k is another agent's key.
func isAgentKey(k Kind) bool {
	_, ok := agentVariable(k)
	return ok
}

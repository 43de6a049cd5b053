// Package proxy keeps Claude's real credential out of the sandbox. The
// supervisor runs a reverse proxy outside it; Claude Code inside gets
// ANTHROPIC_BASE_URL pointing at the proxy and a random per-session phantom
// credential of the same kind as the user's real one. The proxy accepts only
// the phantom, puts the real credential in its place and forwards to the
// user's upstream. An OAuth login is refreshed here, on the host.
package proxy

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/claudebox/claudebox/internal/jsonscan"
	"github.com/claudebox/claudebox/untrusted"
)

// Kind is what sort of credential the user has; the phantom is of the same
// sort, since Claude Code sends different headers and betas for each
// (measured with 2.1.330).
type Kind int

const (
	// OAuth is a subscription login: Authorization: Bearer, with the
	// oauth-2025-04-20 beta.
	OAuth Kind = iota
	// APIKey is an Anthropic API key: x-api-key.
	APIKey
	// AuthToken is a gateway's bearer token (ANTHROPIC_AUTH_TOKEN).
	AuthToken
)

// Variable is the environment variable that gives Claude Code a credential
// of this kind inside the sandbox. An OAuth login goes in as
// CLAUDE_CODE_OAUTH_TOKEN rather than as a credentials file: Claude Code
// never refreshes a token given that way, so the sandbox needs no refresh
// token at all.
func (k Kind) Variable() string {
	if v, ok := agentVariable(k); ok {
		return v
	}
	switch k {
	case APIKey:
		return "ANTHROPIC_API_KEY"
	case AuthToken:
		return "ANTHROPIC_AUTH_TOKEN"
	}
	return "CLAUDE_CODE_OAUTH_TOKEN"
}

// ProviderVariables switch Claude Code to a cloud provider's API, which
// authenticates with the provider's own credentials: no proxy then.
var ProviderVariables = []string{"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"}

// Credential is where the real credential comes from.
type Credential struct {
	Kind Kind
	// Source says where it was found, for --check and SANDBOX.md: a file's
	// path or a variable's name, never the value.
	Source string
	// file is an OAuth login's file (loginFormats), read, and refreshed,
	// on each use; value is a variable's value.
	file  string
	value string
	// refresh serialises this process's refreshes; the lock file
	// serialises claudebox's sessions.
	refresh  sync.Mutex
	lockFile string
	tokenURL string
	// roots are the CAs a refresh is checked against (the proxy's, with
	// the host's bundles: TrustCAs); nil, the system's.
	roots func() *x509.CertPool
}

// errNoLogin says there is no credential to use.
var errNoLogin = errors.New("no Claude login and no API key on the host")

// Find picks the credential a session uses, in this order: the separate
// sandbox login, the host's ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY and
// CLAUDE_CODE_OAUTH_TOKEN (Claude Code's own precedence among them), then
// the host's login, ~/.claude/.credentials.json. lookup reads the host's
// environment (and the user's own env settings); tokenURL is the OAuth
// token endpoint. In an interactive session (claude without -p) an
// ANTHROPIC_API_KEY the user refused in Claude Code (its "Use custom API
// key" answered no, in ~/.claude.json) gives way to a login, as Claude
// Code's own interactive precedence has it: the sandbox then asked again,
// and a second no left it logged out.
func Find(home, stateDir string, lookup func(string) (string, bool), tokenURL string, interactive bool) (*Credential, error) {
	lock := filepath.Join(stateDir, "oauth-refresh.lock")
	fileLogin := func(path string) (*Credential, bool) {
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			return nil, false
		}
		return Login(OAuth, path, lock, tokenURL), true
	}
	if c, ok := fileLogin(filepath.Join(stateDir, ".credentials.json")); ok {
		return c, nil
	}
	hostLogin := filepath.Join(home, ".claude", ".credentials.json")
	loginAfterKey := func() bool {
		v, _ := lookup(OAuth.Variable())
		fi, err := os.Stat(hostLogin)
		return v != "" || err == nil && fi.Mode().IsRegular()
	}
	for _, k := range []Kind{AuthToken, APIKey, OAuth} {
		v, ok := lookup(k.Variable())
		if !ok || v == "" || k == APIKey && interactive && loginAfterKey() && keyRefused(home, v) {
			continue
		}
		return &Credential{Kind: k, Source: k.Variable(), value: v}, nil
	}
	if c, ok := fileLogin(hostLogin); ok {
		return c, nil
	}
	return nil, errNoLogin
}

// keyRefused says the user's ~/.claude.json holds key among the API keys
// they refused and not among those they approved, by its last 20
// characters, as Claude Code records and reads them. The file is mapped,
// not read: it grows to tens of megabytes.
func keyRefused(home, key string) bool {
	suffix := key[max(0, len(key)-20):]
	answers := map[string]bool{}
	untrusted.ScanResolved(filepath.Join(home, ".claude.json"), 256<<20, func(b []byte) {
		jsonscan.Members(b, func(name string, value []byte) {
			if name != "customApiKeyResponses" {
				return
			}
			jsonscan.Members(value, func(name string, value []byte) {
				jsonscan.Elements(value, func(e []byte) {
					var s string
					if json.Unmarshal(e, &s) == nil && s == suffix {
						answers[name] = true
					}
				})
			})
		})
	})
	return answers["rejected"] && !answers["approved"]
}

// Expiry is when an OAuth login's access token expires (zero for a
// variable's value, which claudebox cannot know).
func (c *Credential) Expiry() (time.Time, error) {
	if c.file == "" {
		return time.Time{}, nil
	}
	_, t, err := loginFormats(c.Kind).read(c.file)
	return t.expires, err
}

// newPhantom is a random credential of kind k, worthless outside this
// session: 256 bits, shaped like the real thing. An API key's phantom ends
// in a fixed suffix, because Claude Code remembers a key's approval by its
// last 20 characters: one approval then covers every session's phantom.
func newPhantom(k Kind) string {
	if isAgentKey(k) {
		return agentPhantom(k)
	}
	b := make([]byte, 32)
	rand.Read(b)
	switch k {
	case APIKey:
		return "sk-ant-api03-" + hex.EncodeToString(b) + phantomKeySuffix
	case AuthToken:
		return "claudebox-" + hex.EncodeToString(b)
	}
	return "sk-ant-oat01-" + hex.EncodeToString(b)
}

// phantomKeySuffix ends every phantom API key: the last 20 characters,
// which is what Claude Code records when the user approves a key.
const phantomKeySuffix = "-claudebox-phantom00"

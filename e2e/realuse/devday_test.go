package realuse

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestSandboxSSHPushAlias: with --with-ssh on the filtered network, git
// push to a ~/.ssh/config alias (Host gitbox) reaches a real sshd on the
// host's loopback through the relay (git's ssh has claudebox's
// ProxyCommand), authenticated by the host's ssh-agent and checked
// against the host's known_hosts; the pushed commit is in the repository
// on the host. (ssh finds its config and known_hosts through the password
// database's home, which for the test's user is not $HOME: -F and
// UserKnownHostsFile name them.)
func TestSandboxSSHPushAlias(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	srv := filepath.Join(h.Base, "srv")
	os.MkdirAll(srv, 0o755)
	h.Chown()
	h.Run(srv, nil, "git", "init", "-q", "--bare", "repo.git")
	ssh := filepath.Join(h.Home, ".ssh")
	pub, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	port, knownHost := harness.StartSSHD(t, h, srv, string(pub))
	name := harness.UnprivilegedUser
	if u, err := user.Current(); err == nil && h.UID < 0 {
		name = u.Username
	}
	h.Write(filepath.Join(ssh, "known_hosts"), knownHost)
	h.Write(filepath.Join(ssh, "config"), fmt.Sprintf("Host gitbox\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  UserKnownHostsFile %s\n", port, name, filepath.Join(ssh, "known_hosts")))
	// The server's account is the user's, not a git host's git: named.
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), fmt.Sprintf("allow-hosts = [\"127.0.0.1:%d\"]\nssh-users = [%q]\n", port, name))
	proj := filepath.Join(h.Home, "code", "pushed")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "remote", "add", "origin", "gitbox:repo.git")

	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		export GIT_SSH_COMMAND="$GIT_SSH_COMMAND -F $HOME/.ssh/config -o BatchMode=yes"
		git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "made inside"
		timeout 60 git push -q origin HEAD:refs/heads/main 2>&1 && echo PUSHED
		git rev-parse HEAD
	`)
	if !strings.Contains(out, "PUSHED") {
		t.Fatalf("git push inside:\n%s", out)
	}
	head := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", "HEAD"))
	if got := strings.TrimSpace(h.Run(srv, nil, "git", "--git-dir=repo.git", "rev-parse", "main")); got != head {
		t.Errorf("the host's repository has main at %s, want the commit made inside, %s", got, head)
	}
}

// goProxy serves one module, example.test/greet v1.0.0, by Go's module
// proxy protocol on the host's loopback; it returns its port and a count
// of the requests it answered.
func goProxy(t *testing.T) (port string, requests *atomic.Int64) {
	t.Helper()
	const prefix = "example.test/greet@v1.0.0/"
	mod := "module example.test/greet\n\ngo 1.22\n"
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	for name, body := range map[string]string{
		"go.mod":   mod,
		"greet.go": "package greet\n\nfunc Hello() string { return \"HELLO-FROM-THE-MODULE\" }\n",
	} {
		w, err := zw.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"/example.test/greet/@v/list":        "v1.0.0\n",
		"/example.test/greet/@v/v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"/example.test/greet/@v/v1.0.0.mod":  mod,
		"/example.test/greet/@v/v1.0.0.zip":  zipped.String(),
	}
	requests = new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), requests
}

// treeSum is a digest of every path, mode and content under dir.
func treeSum(dir string) string {
	sum := sha256.New()
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(sum, "%s error\n", p)
			return nil
		}
		fi, _ := e.Info()
		b, _ := os.ReadFile(p)
		fmt.Fprintf(sum, "%s %v %x\n", p, fi.Mode(), sha256.Sum256(b))
		return nil
	})
	return fmt.Sprintf("%x", sum.Sum(nil))
}

// TestSandboxCachesGoModules: a Go project's first session downloads its
// dependency from a module proxy (on the host's loopback, reached through
// the filtered network's proxy); its second session, with no network at
// all, builds from the project's caches: the module and the compiled
// package, the proxy asked nothing. The host's own ~/go is byte-identical,
// another project's session finds no such module, and --gc, once the
// project is gone, removes its caches.
func TestSandboxCachesGoModules(t *testing.T) {
	goDir := filepath.Dir(harness.RequireTool(t, "go", "install Go"))
	h := harness.NewHost(t)
	port, requests := goProxy(t)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "allow-hosts = [\"goproxy.test:"+port+"\", \"127.0.0.1:"+port+"\"]\n")
	h.Write(filepath.Join(h.Home, "go", "pkg", "mod", "cache", "download", "host-entry"), "the host's own module cache\n")
	hostGo := treeSum(filepath.Join(h.Home, "go"))
	env := []string{
		"PATH=" + h.Bin + ":" + goDir + ":/usr/bin:/bin", "GOTOOLCHAIN=local",
		"GOPROXY=http://goproxy.test:" + port, "GOSUMDB=off",
		"CLAUDEBOX_RESOLVE=goproxy.test=127.0.0.1",
	}
	a := filepath.Join(h.Home, "code", "a")
	b := filepath.Join(h.Home, "code", "b")
	for _, p := range []string{a, b} {
		h.GitRepo(p)
		h.Write(filepath.Join(p, "go.mod"), "module example.com/hello\n\ngo 1.22\n\nrequire example.test/greet v1.0.0\n")
		h.Write(filepath.Join(p, "main.go"), "package main\n\nimport \"example.test/greet\"\n\nfunc main() { println(greet.Hello()) }\n")
	}
	h.Run(b, nil, "cp", filepath.Join(a, "go.mod"), filepath.Join(b, "go.mod"))

	out := h.Run(a, env, "claudebox", "--shell", "-c", "go mod tidy && go build -o /tmp/hello . && /tmp/hello 2>&1")
	if !strings.Contains(out, "HELLO-FROM-THE-MODULE") || requests.Load() == 0 {
		t.Fatalf("the first session (%d requests to the proxy):\n%s", requests.Load(), out)
	}
	asked := requests.Load()
	// go build -v names each package it compiles: none, the module's
	// package and the program's come from the build cache.
	out = h.Run(a, env, "claudebox", "--network=none", "--shell", "-c", "go build -v -o /tmp/hello . 2>&1 && /tmp/hello 2>&1")
	if strings.TrimSpace(out) != "HELLO-FROM-THE-MODULE" || requests.Load() != asked {
		t.Errorf("the second session, without a network (%d requests more):\n%s", requests.Load()-asked, out)
	}
	h.Run(b, nil, "cp", filepath.Join(a, "go.sum"), filepath.Join(b, "go.sum"))
	out = h.Run(b, env, "claudebox", "--network=none", "--shell", "-c", "test -e ~/go/pkg/mod/example.test && echo SEEN; go build -o /tmp/hello . 2>&1 && echo BUILT; true")
	if strings.Contains(out, "SEEN") || strings.Contains(out, "BUILT") {
		t.Errorf("another project's session finds the first's module:\n%s", out)
	}
	if treeSum(filepath.Join(h.Home, "go")) != hostGo {
		t.Error("the host's ~/go changed")
	}
	os.RemoveAll(a)
	h.RunBoth(h.Home, "claudebox", "--gc")
	if state := filepath.Join(h.Home, ".claudebox"); paths.Exists(instance.CachesDir(state, a)) || !paths.Exists(instance.CachesDir(state, b)) {
		t.Error("--gc did not remove the caches of the project gone, or removed another's")
	}
}

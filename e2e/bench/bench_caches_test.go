package bench

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// npmRegistry serves n packages (dep-000, dep-001, …, version 1.0.0, a
// few lines each) by npm's registry protocol on the host's loopback, and
// writes a project in dir that depends on all of them, with its lock file
// and an .npmrc naming the registry (no audit, no update check: nothing
// but the packages is asked for). It returns a count of the requests.
func npmRegistry(b testing.TB, h *harness.Host, dir string, n int) *atomic.Int64 {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	registry := "http://" + ln.Addr().String() + "/"
	files := map[string][]byte{}
	deps := map[string]string{}
	lock := map[string]any{"": map[string]any{"name": "app", "version": "1.0.0", "dependencies": deps}}
	for i := range n {
		name := fmt.Sprintf("dep-%03d", i)
		tgz := npmTarball(b, map[string]string{
			"package.json": fmt.Sprintf(`{"name": %q, "version": "1.0.0", "main": "index.js"}`, name),
			"index.js":     fmt.Sprintf("module.exports = () => %q;\n", name),
		})
		tarball := registry + name + "/-/" + name + "-1.0.0.tgz"
		sha := sha1.Sum(tgz)
		sri := sha512.Sum512(tgz)
		integrity := "sha512-" + base64.StdEncoding.EncodeToString(sri[:])
		packument, _ := json.Marshal(map[string]any{
			"name":      name,
			"dist-tags": map[string]string{"latest": "1.0.0"},
			"versions": map[string]any{"1.0.0": map[string]any{
				"name": name, "version": "1.0.0",
				"dist": map[string]string{"tarball": tarball, "shasum": fmt.Sprintf("%x", sha), "integrity": integrity},
			}},
		})
		files["/"+name] = packument
		files["/"+name+"/-/"+name+"-1.0.0.tgz"] = tgz
		deps[name] = "1.0.0"
		lock["node_modules/"+name] = map[string]string{"version": "1.0.0", "resolved": tarball, "integrity": integrity}
	}
	requests := new(atomic.Int64)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })

	pkg, _ := json.MarshalIndent(map[string]any{"name": "app", "version": "1.0.0", "dependencies": deps}, "", "  ")
	lockFile, _ := json.MarshalIndent(map[string]any{"name": "app", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": lock}, "", "  ")
	h.Write(filepath.Join(dir, "package.json"), string(pkg)+"\n")
	h.Write(filepath.Join(dir, "package-lock.json"), string(lockFile)+"\n")
	h.Write(filepath.Join(dir, ".npmrc"), "registry="+registry+"\naudit=false\nfund=false\nupdate-notifier=false\n")
	return requests
}

// npmTarball is a package's .tgz: its files under package/.
func npmTarball(b testing.TB, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			b.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

// BenchmarkNpmCISession is an `npm ci` of a project with 100 small
// dependencies from a registry on the host's loopback (allowed by
// address; npm goes through the filtered network's proxy), in a new
// session each time: cold, with the project's caches emptied, so npm
// downloads every package; warm, from the project's ~/.npm kept from the
// session before, asking the registry nothing; and on the host with its
// own warm ~/.npm, the mark to meet.
func BenchmarkNpmCISession(b *testing.B) {
	harness.RequireTool(b, "npm", "install Node.js and npm")
	h := harness.NewHost(b)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	requests := npmRegistry(b, h, proj, 100)
	var registry string
	for _, line := range strings.Split(h.Run(proj, nil, "cat", ".npmrc"), "\n") {
		if r, ok := strings.CutPrefix(line, "registry=http://"); ok {
			registry = strings.TrimSuffix(r, "/")
		}
	}
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "allow-hosts = [\""+registry+"\"]\n")
	// Inside, loopback addresses are in NO_PROXY: the session's own.
	ci := []string{"--shell", "-c", "NO_PROXY= no_proxy= npm ci --silent && test -f node_modules/dep-099/index.js"}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			h.Run(h.Home, nil, "claudebox", "--gc", "--caches")
			before := requests.Load()
			b.StartTimer()
			h.Run(proj, nil, "claudebox", ci...)
			b.StopTimer()
			if requests.Load()-before < 100 {
				b.Fatalf("the cold session asked the registry %d times", requests.Load()-before)
			}
			b.StartTimer()
		}
	})
	b.Run("warm", func(b *testing.B) {
		h.Run(proj, nil, "claudebox", ci...)
		before := requests.Load()
		for b.Loop() {
			h.Run(proj, nil, "claudebox", ci...)
		}
		if n := requests.Load() - before; n != 0 {
			b.Fatalf("the warm sessions asked the registry %d times", n)
		}
	})
	b.Run("host", func(b *testing.B) {
		h.Run(proj, nil, "npm", "ci", "--silent")
		before := requests.Load()
		for b.Loop() {
			h.Run(proj, nil, "npm", "ci", "--silent")
		}
		if n := requests.Load() - before; n != 0 {
			b.Fatalf("the host's warm runs asked the registry %d times", n)
		}
	})
}

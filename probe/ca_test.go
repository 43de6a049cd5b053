package probe

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
)

const testCert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// TestCAs: a CA variable's file passes when it is certificates only, a
// regular file, outside the home or where the sandbox sees it; a file that
// also holds a key (a secret), a directory, a relative path, the home's
// hidden part and claudebox's state are left out, each with its reason.
func TestCAs(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "code", "proj")
	state := filepath.Join(home, ".claudebox")
	for name, content := range map[string]string{
		"etc/corp.pem":             "# Corp CA\n" + testCert + testCert,
		"etc/combined.pem":         testCert + "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n",
		"etc/dir/x.pem":            testCert,
		"home/.config/corp/ca.pem": testCert,
		"home/code/proj/ca.pem":    testCert,
		"home/bound/ca.pem":        testCert,
		"home/.claudebox/ca.pem":   testCert,
	} {
		testfs.Write(t, filepath.Join(root, name), content)
	}
	env := map[string]string{
		"SSL_CERT_FILE":       filepath.Join(root, "etc/corp.pem"),
		"NODE_EXTRA_CA_CERTS": filepath.Join(proj, "ca.pem"),
		"REQUESTS_CA_BUNDLE":  filepath.Join(home, "bound/ca.pem"),
		"CURL_CA_BUNDLE":      filepath.Join(root, "etc/combined.pem"),
		"GIT_SSL_CAINFO":      filepath.Join(root, "etc/dir"),
	}
	binds := []mount.BindSpec{{Src: filepath.Join(home, "bound"), Dest: filepath.Join(home, "bound")}}
	ca := caBundles(home, proj, binds, []string{state}, func(n string) string { return env[n] })
	want := []mount.CAFile{
		{Variable: "NODE_EXTRA_CA_CERTS", Path: filepath.Join(proj, "ca.pem"), Real: filepath.Join(proj, "ca.pem"), InHome: true},
		{Variable: "SSL_CERT_FILE", Path: filepath.Join(root, "etc/corp.pem"), Real: filepath.Join(root, "etc/corp.pem")},
		{Variable: "REQUESTS_CA_BUNDLE", Path: filepath.Join(home, "bound/ca.pem"), Real: filepath.Join(home, "bound/ca.pem"), InHome: true},
	}
	if !reflect.DeepEqual(ca.Files, want) {
		t.Errorf("files:\n%+v\nwant\n%+v", ca.Files, want)
	}
	if len(ca.PEM) != 3 {
		t.Errorf("%d bundles read", len(ca.PEM))
	}
	left := strings.Join(ca.LeftOut, "\n")
	for _, w := range []string{"CURL_CA_BUNDLE=" + env["CURL_CA_BUNDLE"] + ": holds more than PEM certificates", "GIT_SSL_CAINFO=" + env["GIT_SSL_CAINFO"] + ": a directory"} {
		if !strings.Contains(left, w) {
			t.Errorf("left out:\n%s\nlacks %s", left, w)
		}
	}
	for _, c := range []struct{ path, why string }{
		{filepath.Join(home, ".config/corp/ca.pem"), "in your home"},
		{filepath.Join(state, "ca.pem"), "in claudebox's own state"},
		{"etc/corp.pem", "not an absolute path"},
	} {
		ca := caBundles(home, proj, binds, []string{state}, func(n string) string {
			if n == "SSL_CERT_FILE" {
				return c.path
			}
			return ""
		})
		if len(ca.Files) != 0 || len(ca.LeftOut) != 1 || !strings.Contains(ca.LeftOut[0], c.why) {
			t.Errorf("%s: %+v", c.path, ca)
		}
	}
}

// TestCAsOneFileOnce: variables that name one bundle (the system's, set for
// each tool) each pass, and its certificates are read for the proxy once.
func TestCAsOneFileOnce(t *testing.T) {
	root := t.TempDir()
	bundle := filepath.Join(root, "etc", "ca.pem")
	testfs.Write(t, bundle, testCert)
	env := map[string]string{"SSL_CERT_FILE": bundle, "CURL_CA_BUNDLE": bundle, "GIT_SSL_CAINFO": bundle}
	ca := caBundles(filepath.Join(root, "home"), filepath.Join(root, "home", "proj"), nil, nil, func(n string) string { return env[n] })
	if len(ca.Files) != 3 || len(ca.PEM) != 1 {
		t.Errorf("three variables naming one bundle: %d files passed, %d read for the proxy; want 3 and 1", len(ca.Files), len(ca.PEM))
	}
}

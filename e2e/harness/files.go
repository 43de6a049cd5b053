package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
)

// Snapshot describes path on the host exactly: absent, a symlink and its
// target, a file's mode and bytes, or a directory with every entry in it.
func Snapshot(path string) string {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return "absent"
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return "symlink " + target
	case fi.IsDir():
		entries, _ := os.ReadDir(path)
		var b strings.Builder
		fmt.Fprintf(&b, "dir %v\n", fi.Mode())
		for _, e := range entries {
			fmt.Fprintf(&b, "%s: %s\n", e.Name(), Snapshot(filepath.Join(path, e.Name())))
		}
		return b.String()
	default:
		data, _ := os.ReadFile(path)
		return fmt.Sprintf("file %v %q", fi.Mode(), data)
	}
}

func Snapshots(paths []string) map[string]string {
	s := map[string]string{}
	for _, p := range paths {
		s[p] = Snapshot(p)
	}
	return s
}

// NoPlaceholders checks that the placeholders a launch made under dir are
// gone: the supervisor removes them before it exits.
func NoPlaceholders(t *testing.T, dir string) {
	t.Helper()
	var left []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && instance.IsStandIn(p, fi) {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("placeholders left on the host after the session: %q", left)
	}
}

func CompareSnapshots(t *testing.T, before map[string]string) {
	t.Helper()
	var paths []string
	for p := range before {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if after := Snapshot(p); after != before[p] {
			t.Errorf("%s changed on the host:\nbefore: %s\nafter:  %s", p, before[p], after)
		}
	}
}

func TmuxTarget(tmux func(...string) string, target string) func(...string) string {
	return func(args ...string) string {
		if len(args) > 0 && args[0] == "capture-pane" {
			args = append(args, "-t", target)
		}
		return tmux(args...)
	}
}

// TreeDigest is a digest of every path, mode, link and content under dir.
func TreeDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		} else if d.Type()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			fmt.Fprintln(h, l)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TreeListing is every regular file under dir as path=content lines.
func TreeListing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			r, _ := filepath.Rel(dir, p)
			lines = append(lines, r+"="+string(b))
		}
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// SelfSignedPEM is a new self-signed CA certificate, PEM-encoded.
func SelfSignedPEM(t testing.TB) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corp CA"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))) + "\n"
}

package probe

import (
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// caVariables name a CA bundle the host's tools trust: a corporate CA
// that re-signs what leaves the network. The tools inside see the
// upstream's certificates through CONNECT, so they need it too.
var caVariables = []string{"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"}

// caLimit is the largest CA bundle read (the system's is about 200 KiB).
const caLimit = 16 << 20

// CA is what the host's CA variables name: the files passed in, their
// certificates (each file's once, read now: the supervisor's proxy trusts these, never
// what a file holds later), and why any other was left out.
type CA struct {
	Files   []mount.CAFile
	PEM     [][]byte
	LeftOut []string
}

// caBundles reads the CA bundles the host's variables name. A bundle passes
// when it is a regular file of certificates only (no private key, never a
// directory) and, in the home, only where the sandbox already sees it (the
// project, or a bind of yours at the same path): the home's other parts
// stay hidden, and claudebox's state is never shown.
func caBundles(home string, project string, binds []mount.BindSpec, state []string, getenv func(string) string) CA {
	var ca CA
	// Variables often name one bundle (a system's, set for each tool):
	// it is read and checked once.
	type read struct {
		data caData
		err  error
	}
	done := map[string]read{}
	passed := map[string]bool{}
	for _, name := range caVariables {
		path := getenv(name)
		if path == "" {
			continue
		}
		r, ok := done[path]
		if !ok {
			r.data, r.err = readCA(path, home, project, binds, state)
			done[path] = r
		}
		data, err := r.data, r.err
		if err != nil {
			ca.LeftOut = append(ca.LeftOut, name+"="+path+": "+err.Error())
			continue
		}
		ca.Files = append(ca.Files, mount.CAFile{Variable: name, Path: filepath.Clean(path), Real: data.real, InHome: paths.Within(data.real, home) || paths.Within(filepath.Clean(path), home)})
		if !passed[data.real] {
			passed[data.real] = true
			ca.PEM = append(ca.PEM, data.pem)
		}
	}
	return ca
}

type caData struct {
	real string
	pem  []byte
}

func readCA(path, home, project string, binds []mount.BindSpec, state []string) (caData, error) {
	if !filepath.IsAbs(path) {
		return caData{}, errors.New("not an absolute path")
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return caData{}, errors.New("does not exist")
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return caData{}, err
	case fi.IsDir():
		return caData{}, errors.New("a directory, not a file of certificates")
	case !fi.Mode().IsRegular():
		return caData{}, errors.New("not a regular file")
	case fi.Size() > caLimit:
		return caData{}, errors.New("larger than a CA bundle")
	}
	if paths.UnderAny(real, state) {
		return caData{}, errors.New("in claudebox's own state")
	}
	for _, p := range []string{filepath.Clean(path), real} {
		if paths.Within(p, home) && !seen(p, project, binds) {
			return caData{}, errors.New("in your home, which the sandbox does not see there; --ro-bind its directory to pass it")
		}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return caData{}, err
	}
	if !onlyCertificates(data) {
		return caData{}, errors.New("holds more than PEM certificates")
	}
	return caData{real: real, pem: data}, nil
}

// seen says p in the home is visible inside at its own path: in the
// project, or in a bind at its own path.
func seen(p, project string, binds []mount.BindSpec) bool {
	return paths.Within(p, project) || slices.ContainsFunc(binds, func(b mount.BindSpec) bool { return b.Src == b.Dest && paths.Within(p, b.Src) })
}

// onlyCertificates says data is PEM certificates and nothing else: a file
// that also holds a key is a secret, not a CA bundle.
func onlyCertificates(data []byte) bool {
	n := 0
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			// Text between the blocks (a bundle's labels) is skipped.
			return n > 0
		}
		if block.Type != "CERTIFICATE" && block.Type != "TRUSTED CERTIFICATE" {
			return false
		}
		n++
	}
}

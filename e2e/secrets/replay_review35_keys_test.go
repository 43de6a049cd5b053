package secrets

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview35KeyAmongCertificatesOtherArmours: of a shown /etc
// directory, a file every user may read was left out for a private key
// only where it held the words "PRIVATE KEY": a PuTTY key kept beside
// the certificates (site.ppk) and a PEM key written in base64, as a
// kubeconfig's client-key-data keeps it, crossed. The attack, from
// inside: read them. Proof: neither is inside; the certificate still is.
func TestReplayReview35KeyAmongCertificatesOtherArmours(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "R35puttyPrivLinesQ2pLm4x9WZk3wQp9LmT2vXr7BQpwZkLmTvXr"
	ppk := "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBaaaa\nPrivate-Lines: 1\n" + secret + "\nPrivate-MAC: 00\n"
	encoded := base64.StdEncoding.EncodeToString([]byte("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7R35encodedKeyBody\n-----END PRIVATE KEY-----\n"))
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "ssl", "certs", "site.ppk"), ppk)
	h.Write(filepath.Join(stage, "ssl", "certs", "client-key.yaml"), "client-key-data: "+encoded+"\n")
	h.Write(filepath.Join(stage, "ssl", "certs", "r35-site.crt"), harness.SelfSignedPEM(t))
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("cat", "/etc/ssl/certs/site.ppk", "/etc/ssl/certs/client-key.yaml"); !strings.Contains(host, secret) || !strings.Contains(host, encoded) {
		t.Fatalf("the user cannot read the staged keys on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -rl -e "+secret+" -e "+encoded[:40]+" /etc/ssl; grep -q CERTIFICATE /etc/ssl/certs/r35-site.crt && echo R35-CERT-SHOWN; true")
	t.Log(out)
	if strings.Contains(out, "site.ppk") || strings.Contains(out, "client-key.yaml") {
		t.Errorf("a private key among /etc's certificates, in another armour than PEM's, is readable inside")
	}
	if !strings.Contains(out, "R35-CERT-SHOWN") {
		t.Errorf("inside, want the certificate")
	}
}

package probe

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// TestUsersOwnPrivateKey: of a shown /etc directory, a private key every
// user may read is left out, alone or beside its certificate in one
// file; a certificate and a file merely naming a key are not.
func TestUsersOwnPrivateKey(t *testing.T) {
	certs := filepath.Join(t.TempDir(), "ssl", "certs")
	os.MkdirAll(certs, 0o755)
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	cert := "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexampleexampleexampleexampleexample\n-----END CERTIFICATE-----\n"
	for name, content := range map[string]string{"site.key": key, "site.pem": cert + key, "site.crt": cert, "README": "Put the PRIVATE KEY in /etc/ssl/private.\n"} {
		if err := os.WriteFile(filepath.Join(certs, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := usersOwn(certs)
	if len(got) != 2 || got[0].Path != filepath.Join(certs, "site.key") || got[1].Path != filepath.Join(certs, "site.pem") {
		t.Errorf("usersOwn = %v, want site.key and site.pem", got)
	}
}

// TestUsersOwnPrivateKeyOtherArmours: a private key kept as PuTTY keeps
// one, or a PEM key written in base64 (as a kubeconfig's client-key-data
// keeps it), every user's to read among the certificates, is left out as
// a PEM key is: credential.PrivateKey finds each, and only the words
// "PRIVATE KEY" were looked for.
func TestUsersOwnPrivateKeyOtherArmours(t *testing.T) {
	certs := filepath.Join(t.TempDir(), "ssl", "certs")
	os.MkdirAll(certs, 0o755)
	pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	for name, content := range map[string]string{
		"site.ppk":        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIBaaaa\nPrivate-Lines: 1\nAAAAIAaaaa\nPrivate-MAC: 00\n",
		"client-key.yaml": "client-key-data: " + base64.StdEncoding.EncodeToString([]byte(pem)) + "\n",
		"site.crt":        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUexampleexampleexampleexampleexample\n-----END CERTIFICATE-----\n",
	} {
		if err := os.WriteFile(filepath.Join(certs, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := usersOwn(certs)
	if len(got) != 2 || got[0].Path != filepath.Join(certs, "client-key.yaml") || got[1].Path != filepath.Join(certs, "site.ppk") {
		t.Errorf("usersOwn = %v, want client-key.yaml and site.ppk", got)
	}
}

// TestUsersOwnPrivateKeyInBundle: a key in a large certificates' bundle
// is found wherever it lies in its first maxEtcCopy bytes; one past them
// is not read, as before.
func TestUsersOwnPrivateKeyInBundle(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	for _, c := range []struct {
		at   int
		want bool
	}{
		{0, true},
		{200 << 10, true},
		{maxEtcCopy - len(key), true},
		{maxEtcCopy - 15, false}, // its first "PRIVATE KEY" past the bytes read
	} {
		certs := filepath.Join(t.TempDir(), "ssl", "certs")
		os.MkdirAll(certs, 0o755)
		b := append(bytes.Repeat([]byte("x"), c.at), key...)
		if err := os.WriteFile(filepath.Join(certs, "bundle.pem"), b[:min(len(b), maxEtcCopy)], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := len(usersOwn(certs)) == 1; got != c.want {
			t.Errorf("a key at %d: left out %v, want %v", c.at, got, c.want)
		}
	}
}

// TestHoldsAnyAcrossReads: a mark is found wherever it lies in the first
// maxEtcCopy bytes, across two of the scan's reads too, the shorter and
// the longer of two looked for.
func TestHoldsAnyAcrossReads(t *testing.T) {
	short, long := []byte("PRIVATE KEY"), []byte("PuTTY-User-Key-File-")
	for _, c := range []struct {
		mark []byte
		at   int
		want bool
	}{
		{short, 0, true},
		{short, 64<<10 - 5, true}, // across the first read's end
		{short, 64<<10 - 10, true},
		{short, 64<<10 - 11, true},
		{long, 64<<10 - 15, true},
		{long, 64<<10 - 19, true},
		{short, 2*(64<<10) - 23, true}, // across the second's, which reads 19 bytes less
		{short, maxEtcCopy - len(short), true},
		{short, maxEtcCopy - len(short) + 1, false},
		{long, maxEtcCopy - len(long) + 1, false},
	} {
		path := filepath.Join(t.TempDir(), "f")
		b := append(bytes.Repeat([]byte("x"), c.at), c.mark...)
		if err := os.WriteFile(path, append(b, "xxxx"...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := holdsAny(int(f.Fd()), [][]byte{short, long}); got != c.want {
			t.Errorf("%s at %d: found %v, want %v", c.mark, c.at, got, c.want)
		}
		f.Close()
	}
}

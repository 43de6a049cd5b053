package probe

import (
	"bytes"
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

// TestHoldsWordsAcrossReads: the words are found wherever they lie in
// the first maxEtcCopy bytes, across two of the scan's reads too.
func TestHoldsWordsAcrossReads(t *testing.T) {
	words := []byte("PRIVATE KEY")
	for _, c := range []struct {
		at   int
		want bool
	}{
		{0, true},
		{64<<10 - 5, true}, // across the first read's end
		{64<<10 - 10, true},
		{64<<10 - 11, true},
		{2*(64<<10) - 14, true}, // across the second's, which reads 10 bytes less
		{maxEtcCopy - len(words), true},
		{maxEtcCopy - len(words) + 1, false},
	} {
		path := filepath.Join(t.TempDir(), "f")
		b := append(bytes.Repeat([]byte("x"), c.at), words...)
		if err := os.WriteFile(path, append(b, "xxxx"...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := holdsWords(int(f.Fd()), words); got != c.want {
			t.Errorf("the words at %d: found %v, want %v", c.at, got, c.want)
		}
		f.Close()
	}
}

package probe

import (
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

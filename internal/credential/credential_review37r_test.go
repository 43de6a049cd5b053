package credential

import (
	"bytes"
	"testing"
	"time"
)

// TestLongLineJudgedInTime: a line that says a program's name and its
// option again and again is judged in a time that grows as the line
// does. Read to the command's end at each option, for each name before
// it, "sshpass -p " said 80 times (880 bytes) cost InCode 16 s, and a
// skill's or a plugin's file of such lines held each launch that judged
// it for ever; "vault ", "echo x | sudo -S " and ".login(" cost the
// square of the line's length. A password each judge finds is still
// found.
func TestLongLineJudgedInTime(t *testing.T) {
	judges := []func([]byte) bool{InCode, InDocument, InSettings, InScript}
	// The lines, and how long each is made: a call's search costs least.
	lines := map[string]int{"sshpass -p ": 64 << 10, `exec.Command("sshpass" -p`: 64 << 10, "lftp -u ": 64 << 10, "mysql -p ": 64 << 10, "vault ": 64 << 10, "htpasswd -b ": 64 << 10, "echo x | sudo -S ": 64 << 10, ".login(": 1 << 20, "auth=(": 1 << 20}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for line, size := range lines {
			data := bytes.Repeat([]byte(line), size/len(line))
			for _, judge := range judges {
				judge(data)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the judges of long lines of a program's name and its option said again and again have not ended after a minute")
	}
	for _, s := range []string{
		`exec.Command("sshpass", "-p", "R37rShortPw9", "ssh", "host")`,
		"sshpass -p $PW ssh a; sshpass -p R37rShortPw9 ssh host",
		"lftp -u ci,R37rShortPw9 ftp.example.com",
		"mysql -uroot -pR37rShortPw9 db",
		`requests.get(url, auth=("ci", "R37rShortPw9"))`,
		`smtp.login("ops@example.com", "R37rShortPw9")`,
		"echo R37rShortPw9 | sudo -S true",
		"vault login hvs.R37rVaultTokenQ2pLm4x9WZk3w",
		"htpasswd -b .htpasswd ci R37rShortPw9",
	} {
		if !InCode([]byte(s)) {
			t.Errorf("InCode(%q) = false, want true", s)
		}
	}
}

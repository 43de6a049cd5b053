package credential

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLongLineJudgedInLinearTime: a line that says a program's name and
// its option again and again is judged in a time that grows as the line
// does. Read to the command's end at each option, for each name before
// it, "sshpass -p " said 80 times (880 bytes) cost InCode 16 s, and a
// skill's or a plugin's file of such lines held each launch that judged
// it for ever; "vault ", "echo x | sudo -S " and ".login(" cost the
// square of the line's length. Each judge's processor time (its thread's
// own, which other processes' load does not add to) on a line eight times
// as long is at most three times eight times its time on the short one: a
// square would be sixty-four. A password each judge finds is still found.
func TestLongLineJudgedInLinearTime(t *testing.T) {
	judges := map[string]func([]byte) bool{"InCode": InCode, "InDocument": InDocument, "InSettings": InSettings, "InScript": InScript}
	for _, line := range []string{"sshpass -p ", `exec.Command("sshpass" -p`, "lftp -u ", "mysql -p ", "vault ", "htpasswd -b ", "echo x | sudo -S ", ".login(", "auth=("} {
		for name, judge := range judges {
			judgedLinearly(t, name, func(b []byte) { judge(b) }, 4<<10, line)
		}
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

// judgedLinearly fails t where judge, given unit said over eight times
// short bytes, takes more than three times eight times its time on short
// bytes of it: a judge that reads its text again at each place (a
// square) would take sixty-four. Its time is its thread's processor
// time, which other processes' load does not add to, the least of three
// runs (the first may meet cold caches); below 100 µs a short text's
// time is the clock's and the call's.
func judgedLinearly(t *testing.T, name string, judge func([]byte), short int, unit string) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cost := func(data []byte) time.Duration {
		least := time.Duration(1<<63 - 1)
		for range 3 {
			began := threadTime()
			judge(data)
			least = min(least, threadTime()-began)
		}
		return least
	}
	const times, floor = 8, 100 * time.Microsecond
	small := cost(bytes.Repeat([]byte(unit), short/len(unit)))
	large := cost(bytes.Repeat([]byte(unit), times*short/len(unit)))
	if large > 3*times*max(small, floor) {
		t.Errorf("%s of %q said again and again: %v for %d KiB, %v for %d KiB", name, unit, small, short>>10, large, times*short>>10)
	}
}

// threadTime is the processor time the calling thread has used.
func threadTime() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

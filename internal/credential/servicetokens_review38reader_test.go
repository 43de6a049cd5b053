package credential

import (
	"bytes"
	"testing"
	"time"
)

// TestServiceTokenReadOnce: a line that says a shape's prefix again and
// again, its body's alphabet running past each word (a base64's +, a
// dotted token's .), was read from each start to its end: 64 KiB of
// "dp.st." cost 8 s, a skill's bundle of 16 MiB days, every launch. The
// hostile lines of 1 MiB are judged within a minute, and a token after
// one is still found.
func TestServiceTokenReadOnce(t *testing.T) {
	units := []string{"whsec_a+", "glc_a+", "sntrys_a/", "dp.st.", "dp.ct.x.", "ops_a.", "SG.a."}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, unit := range units {
			serviceToken(bytes.Repeat([]byte(unit), (1<<20)/len(unit)))
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("hostile lines of 1 MiB not judged within a minute")
	}
	for _, unit := range units {
		data := append(bytes.Repeat([]byte(unit), 1000), " key: whsec_Zk3wQp9LmT2vXa8bN4cR7yU1 "...)
		if !serviceToken(data) {
			t.Errorf("a token after %q said again and again not found", unit)
		}
	}
}

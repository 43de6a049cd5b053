package credential

import (
	"bytes"
	"testing"
	"time"
)

// TestContainersJudgedInTime: a settings text that starts a list or a
// table of credentials again and again is judged in a time that grows as
// the text does. Each start was read for its values up to 4 KiB past it,
// whatever an earlier start had read: 16 KiB of "tokens: [" cost 2.6 s,
// and a toolchain's settings file, judged up to 1 MiB, held the launch
// for minutes. A list or a table of credentials is still found.
func TestContainersJudgedInTime(t *testing.T) {
	starts := []string{`"tokens": [`, `"secrets": {"a": `, "tokens:\n", "- tokens:\n ", "[tokens]\n", "[secrets]\nx = ", "tokens: [x, "}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, s := range starts {
			InSettings(bytes.Repeat([]byte(s), (1<<20)/len(s)))
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the judge of lists and tables of credentials started again and again has not ended after a minute")
	}
	for _, s := range []string{
		`{"tokens": {"jira": "Zq8vR37cT0kenJ1raX2"}}`,
		"tokens:\n  jira: Zq8vR37cT0kenJ1raX2\n",
		"[credentials]\njira = \"Zq8vR37cT0kenJ1raX2\"\n",
		`{"tokens": [` + `{"name": "a"}, ` + `"Zq8vR37cT0kenJ1raX2"]}`,
	} {
		if !InSettings([]byte(s)) {
			t.Errorf("InSettings(%q) = false, want true", s)
		}
	}
}

package credential

import (
	"bytes"
	"runtime"
	"testing"
)

// A cookie file's line is read as eight parts at most: judged on text
// over 16 KiB since ff0e391, one line of 16 MiB of tabs was split whole,
// a slice of 384 MiB (24 bytes a tab), 4.7 s. The memory it takes is
// counted, not its time.
func TestCookieJarLineBounded(t *testing.T) {
	tabs := bytes.Repeat([]byte("\t"), 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if cookieJar(tabs) {
		t.Error("a line of tabs taken for a cookie")
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("cookieJar allocated %d bytes on 1 MiB of tabs, want at most 1 MiB", got)
	}
	jar := []byte("# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1767225600\tsession\tabc123def456\n")
	if !cookieJar(jar) {
		t.Error("a cookie file's line not found")
	}
	if cookieJar([]byte(".example.com\tTRUE\t/\tTRUE\t1767225600\tsession\tabc\textra\n")) {
		t.Error("a line of eight fields taken for a cookie")
	}
}

package credential

import (
	"bytes"
	"testing"
	"time"
)

// TestURLQueriesReadOnce: each :// is read from once, not again within
// what the URL before it covers (its host and path, which lead to the
// same query, or its query): a line of x:// said again and again was
// read to its end from each, the square of its length (64 KiB a second,
// a bundle of 16 MiB hours, judged at every launch as a skill's code).
// A URL after another's end is still read, and a key in its query found.
func TestURLQueriesReadOnce(t *testing.T) {
	for _, c := range []struct {
		data string
		want int
	}{
		{string(bytes.Repeat([]byte("x://?"), 1000)), 1},
		{string(bytes.Repeat([]byte("x://"), 1000)), 0},
		{"https://a.example/p?k=v https://b.example/?key=R37rUrlKeyQ2pLm4x9W", 2},
		{"see https://a.example/x/y#frag", 1},
	} {
		n := 0
		for range urlQueries([]byte(c.data)) {
			n++
		}
		if n != c.want {
			t.Errorf("urlQueries of %.40q… gave %d queries, want %d", c.data, n, c.want)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, line := range []string{"x://", "x://?"} {
			data := bytes.Repeat([]byte(line), (2<<20)/len(line))
			InCode(data)
			InDocument(data)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("InCode and InDocument of 2 MiB of x:// said again and again have not ended after a minute")
	}
	if !InCode([]byte(`fetch("https://a.example/p?k=v https://api.example/v1?appid=R37rUrlKeyQ2pLm4x9W")`)) {
		t.Error("a key in the query of a URL after another's end was not found")
	}
}

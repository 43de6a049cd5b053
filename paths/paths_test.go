package paths

import "testing"

func TestExpandHome(t *testing.T) {
	for p, want := range map[string]string{
		"~":        "/home/al",
		"~/":       "/home/al",
		"~/x/../y": "/home/al/y",
		"~bob/x":   "~bob/x",
		"/abs/~/x": "/abs/~/x",
		"rel/x":    "rel/x",
	} {
		if got := ExpandHome(p, "/home/al"); got != want {
			t.Errorf("ExpandHome(%q) = %q, want %q", p, got, want)
		}
	}
}

// Within is by whole path components: a sibling sharing a prefix is not
// inside (a guard check on /h/p would otherwise cover /h/p2).
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		path, dir string
		want      bool
	}{
		{"/h/p", "/h/p", true},
		{"/h/p/a/b", "/h/p", true},
		{"/h/p/a", "/h/p/", true},
		{"/h/p2", "/h/p", false},
		{"/h/p2/a", "/h/p", false},
		{"/h", "/h/p", false},
		{"/anything", "/", true},
	} {
		if got := Within(c.path, c.dir); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.path, c.dir, got, c.want)
		}
	}
}

package mount

import (
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// The project's caches are shown read-write where their tools look, from
// the project's own directory, but where another mount is: the user's bind
// of the host's cache keeps its place, a read-only toolchain holding one
// is not pierced, a project lying in one keeps its mount. That directory
// is one bind, each cache a link into it: bwrap reads the whole mount
// table again at each bind. Without a directory (turned off) there are
// none.
func TestBuildCaches(t *testing.T) {
	in := Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Cwd: "/h/.gradle/caches/p",
		Project: instance.Project{Root: "/h/.gradle/caches/p", Checkout: "/h/.gradle/caches/p"},
		Host: Host{
			Own:   []Mount{{Kind: RoBind, Src: "/h/.cargo", Dest: "/h/.cargo", Role: Tools, Why: "a toolchain"}},
			Binds: []Mount{{Kind: Bind, Src: "/h/.npm", Dest: "/h/.npm", Role: Requested, Why: "--bind"}},
		},
		Command: []string{"sh"},
		Caches:  "/h/.claudebox/caches/x",
	}
	p := Build(in)
	var mounted []string
	binds := 0
	for _, m := range p.Mounts {
		switch {
		case m.Role != Caches:
		case m.Kind == Bind && m.Src == "/h/.claudebox/caches/x" && m.Dest == CachesInside:
			binds++
		case m.Kind == Symlink && m.Src == CachesInside+"/"+cacheName(m.Dest) && binds == 1:
			mounted = append(mounted, m.Dest)
		default:
			t.Errorf("cache mount %+v", m)
		}
	}
	if binds != 1 {
		t.Errorf("the caches' directory bound %d times, want once", binds)
	}
	if want := []string{"/h/.cache", "/h/go/pkg/mod", "/h/.m2/repository"}; !slices.Equal(mounted, want) {
		t.Errorf("caches mounted at %v, want %v", mounted, want)
	}
	if got := p.CacheNames(); !slices.Equal(got, []string{"cache", "go-mod", "maven"}) {
		t.Errorf("CacheNames = %v", got)
	}
	for _, c := range p.Caches {
		if (c.Src == "") == (c.Skipped == "") {
			t.Errorf("%s: mounted from %q, skipped because %q", c.Name, c.Src, c.Skipped)
		}
	}
	in.Caches = ""
	if p := Build(in); len(p.Caches) != 0 || len(p.CacheNames()) != 0 {
		t.Errorf("caches turned off, yet %v", p.Caches)
	}
}

// cacheName is the cache's name for the place it is mounted.
func cacheName(dest string) string {
	for _, c := range ToolCaches {
		if "/h/"+c.Path == dest {
			return c.Name
		}
	}
	return "?"
}

// The folder holding the project is an empty tmpfs made read-only after
// the mounts in it, but where it must stay as it is: the home, /tmp, a
// system directory, one the user binds or a toolchain is in.
func TestBuildBesideProject(t *testing.T) {
	build := func(checkout string, binds []Mount, gitDirs ...string) []Mount {
		p := Build(Inputs{
			Home: "/h", StateDir: "/h/.claudebox", Cwd: checkout, Command: []string{"sh"},
			Project: instance.Project{Root: checkout, Checkout: checkout, GitDirs: gitDirs},
			Host:    Host{Binds: binds},
		})
		var ms []Mount
		for i, m := range p.Mounts {
			if strings.HasPrefix(m.Why, "the project's folder") || m.Kind == RemountRO || m.Role == Requested {
				if m.Kind == RemountRO && i != len(p.Mounts)-1 {
					t.Errorf("%s is made read-only before the last mount", m.Dest)
				}
				ms = append(ms, m)
			}
		}
		return ms
	}
	if ms := build("/h/code/p", nil); len(ms) != 2 || ms[0].Kind != Tmpfs || ms[1].Kind != RemountRO {
		t.Errorf("under the home: %+v", ms)
	}
	if ms := build("/srv/x/p", nil); len(ms) != 2 {
		t.Errorf("outside the home: %+v", ms)
	}
	for _, c := range []string{"/h/p", "/tmp/p", "/usr/src/p", "/p"} {
		if ms := build(c, nil); len(ms) != 0 {
			t.Errorf("%s: %+v", c, ms)
		}
	}
	if ms := build("/h/code/.git/wt/p", nil, "/h/code/.git"); len(ms) != 0 {
		t.Errorf("inside a git directory: %+v", ms)
	}
	if ms := build("/h/code/p", []Mount{{Kind: RoBind, Src: "/h/code", Dest: "/h/code", Role: Requested}}); len(ms) != 1 || ms[0].Kind != RoBind {
		t.Errorf("under a bind of the user's: %+v", ms)
	}
}

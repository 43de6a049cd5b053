package mount

import (
	"path/filepath"

	"github.com/claudebox/claudebox/paths"
)

// ToolCache is a directory where tools keep what they download or build,
// relative to $HOME.
type ToolCache struct {
	// Name is its directory in the project's caches (instance.CachesDir).
	Name string
	Path string
	What string
}

// ToolCaches are the caches each project keeps between its sessions, at
// the tools' default places: what a build downloads or compiles survives
// the session, in a directory of this project's own. The host never reads
// them, so a cache the sandbox poisons reaches no one but the project's
// next sessions.
var ToolCaches = []ToolCache{
	{"cache", ".cache", "~/.cache: Go's build cache, pip's, uv's, yarn's, …"},
	{"go-mod", "go/pkg/mod", "Go's module cache"},
	{"npm", ".npm", "npm's cache"},
	{"cargo-registry", ".cargo/registry", "cargo's registry"},
	{"cargo-git", ".cargo/git", "cargo's git checkouts"},
	{"maven", ".m2/repository", "Maven's repository"},
	{"gradle", ".gradle/caches", "Gradle's caches"},
}

// Cache is one of the project's caches as the plan mounts it, or why not.
type Cache struct {
	ToolCache
	// Src is its directory on the host; "" when it is not shown.
	Src string
	// Dest is where the tool looks, inside.
	Dest string
	// Skipped says why it is not mounted: another mount is there (the
	// user's own bind of the host's cache, a toolchain, the project).
	Skipped string
}

// CachesInside is where the project's caches' directory is shown inside:
// each cache where its tool looks is a link into it. One bind for them
// all: bwrap reads the whole mount table again for each bind, so each
// costs 0.2-0.3 ms, more as the table grows.
const CachesInside = "/run/claudebox/caches"

// addCaches shows the project's caches in dir, each where its tool looks,
// but where another mount overlaps it: a user who binds the host's cache
// keeps it, and a read-only mount cannot take a link.
func (p *Plan) addCaches(dir string, project []string) {
	shown := false
	for _, c := range ToolCaches {
		pc := Cache{ToolCache: c, Dest: filepath.Join(p.Home, c.Path)}
		for _, m := range p.Mounts {
			// A private tmpfs above takes a mount point; anything else
			// there is another's place.
			if paths.Within(m.Dest, pc.Dest) || paths.Within(pc.Dest, m.Dest) && m.Kind != Tmpfs {
				pc.Skipped = m.Dest + " is mounted there (" + m.Why + ")"
				break
			}
		}
		for _, d := range project {
			if pc.Skipped == "" && (paths.Within(d, pc.Dest) || paths.Within(pc.Dest, d)) {
				pc.Skipped = "the project is there"
			}
		}
		if pc.Skipped == "" {
			if !shown {
				p.add(Caches, Bind, dir, CachesInside, "this project's tool caches, kept between its sessions, each linked where its tool looks")
				shown = true
			}
			pc.Src = filepath.Join(dir, c.Name)
			p.add(Caches, Symlink, filepath.Join(CachesInside, c.Name), pc.Dest, "this project's "+c.What+", kept between its sessions")
		}
		p.Caches = append(p.Caches, pc)
	}
}

// CacheNames are the caches the plan mounts, for the launch to create.
func (p Plan) CacheNames() []string {
	var names []string
	for _, c := range p.Caches {
		if c.Src != "" {
			names = append(names, c.Name)
		}
	}
	return names
}

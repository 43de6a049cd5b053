// Package toolchain works out what a PATH entry under $HOME needs shown,
// read-only, for its programs to run inside: the version manager's layout,
// where its links and #! lines lead, widened to the toolchain's root.
package toolchain

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// toolLayouts are what known version managers' entries need beyond the
// entry itself and what its links and #! lines lead to: their shims and
// proxies pick a version from files the entry does not point at. Paths are
// relative to $HOME; each is shown when it exists. Caches (~/.cargo/registry,
// ~/go/pkg) are not here: they stay the user's --bind.
var toolLayouts = map[string][]string{
	".cargo/bin":              {".rustup/toolchains", ".rustup/settings.toml"},
	"go/bin":                  {"sdk"},
	".pyenv/shims":            {".pyenv"},
	".pyenv/bin":              {".pyenv"},
	".asdf/shims":             {".asdf", ".tool-versions"},
	".asdf/bin":               {".asdf", ".tool-versions"},
	".local/share/mise/shims": {".local/share/mise", ".config/mise", ".tool-versions"},
	".volta/bin":              {".volta/tools"},
	".bun/bin":                {".bun/install/global"},
}

// layoutNames say which manager a known layout belongs to, for a root's why.
var layoutNames = map[string]string{
	".cargo/bin": "rustup's toolchains", "go/bin": "the Go SDKs of golang.org/dl",
	".pyenv/shims": "pyenv's versions", ".pyenv/bin": "pyenv's versions",
	".asdf/shims": "asdf's installs", ".asdf/bin": "asdf's installs",
	".local/share/mise/shims": "mise's installs and configuration", ".volta/bin": "volta's tools",
	".bun/bin": "bun's global packages",
}

// Probe works out, for each PATH entry under $HOME, what to show
// so that its programs run: the entry; where its programs' symlinks and #!
// interpreters lead, widened to the toolchain's root (the directory above a
// bin/ at least two levels below $HOME, or an npm package); and the known
// layouts above. It never looks into what the sandbox can write (visible
// already, and a link planted there must not widen the sandbox): the
// project and the read-write binds. Entries it cannot make work are
// problems, for --check.
func Probe(home, pathEnv string, project instance.Project, binds []mount.BindSpec, state []string, secrets map[string]bool) (ts []mount.Toolchain, problems []mount.PathProblem) {
	writable := bind.Writable(project, binds)
	// refusal says why a path is not shown: it is or lies in a secret,
	// claudebox's state, or (SourceRefusal's rest) holds a socket.
	refusal := func(real string) string {
		for d := real; d != home && paths.Within(d, home); d = filepath.Dir(d) {
			if secrets[d] {
				return "it lies in " + d + ", which the sandbox hides"
			}
		}
		return bind.SourceRefusal(real, false, home, state)
	}
	seen := map[string]bool{}
	for _, entry := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(entry) || seen[filepath.Clean(entry)] {
			continue
		}
		entry = filepath.Clean(entry)
		seen[entry] = true
		real, err := filepath.EvalSymlinks(entry)
		if err != nil {
			if paths.Within(entry, home) {
				problems = append(problems, mount.PathProblem{Entry: entry, Reason: "it does not exist"})
			}
			continue
		}
		if !paths.Within(real, home) || real == home || paths.UnderAny(real, writable) {
			continue
		}
		if reason := refusal(real); reason != "" {
			problems = append(problems, mount.PathProblem{Entry: entry, Reason: reason})
			continue
		}
		t := mount.Toolchain{Entry: entry, Roots: []mount.Root{{Path: toolRoot(home, filepath.Join(real, "x")), Why: "on your PATH, read-only"}}}
		if t.Roots[0].Path != real {
			t.Roots[0].Why = "the toolchain of " + entry + ", on your PATH, read-only"
		}
		rel, _ := filepath.Rel(home, real)
		for _, p := range toolLayouts[rel] {
			if p := filepath.Join(home, p); paths.Exists(p) {
				t.Roots = append(t.Roots, mount.Root{Path: p, Why: "what " + entry + " runs: " + layoutNames[rel] + ", read-only"})
			}
		}
		for _, target := range entryTargets(real) {
			if !paths.Within(target, home) || paths.Within(target, real) {
				continue
			}
			t.Roots = append(t.Roots, mount.Root{Path: toolRoot(home, target), Why: "what " + entry + "'s programs lead to, read-only"})
		}
		t.Roots = slices.DeleteFunc(outermost(t.Roots), func(r mount.Root) bool {
			reason := refusal(r.Path)
			if reason != "" {
				problems = append(problems, mount.PathProblem{Entry: entry, Reason: r.Path + ", which a program there needs, is not shown: " + reason})
			}
			return reason != ""
		})
		var roots []mount.Root
		for _, r := range t.Roots {
			roots = append(roots, runParts(r)...)
		}
		t.Roots = roots
		ts = append(ts, t)
	}
	return ts, problems
}

// runParts are what of a toolchain's root is shown: of a prefix whose
// kind is known (node's, python's: a version, a virtualenv), only the
// entries its programs run with; anything else there is the user's
// configuration (a node prefix's etc/npmrc, where npm keeps a registry's
// token; a virtualenv's pip.conf, an index's password). A root of
// another kind is shown whole.
func runParts(r mount.Root) []mount.Root {
	var keep []string
	pythons, _ := filepath.Glob(filepath.Join(r.Path, "lib", "python*"))
	switch {
	case paths.Exists(filepath.Join(r.Path, "bin", "node")) || paths.Exists(filepath.Join(r.Path, "lib", "node_modules")):
		keep = []string{"bin", "include", "lib", "share"}
	case paths.Exists(filepath.Join(r.Path, "pyvenv.cfg")) || len(pythons) > 0:
		keep = []string{"bin", "include", "lib", "share", "pyvenv.cfg"}
	default:
		return []mount.Root{r}
	}
	var parts []mount.Root
	for _, name := range keep {
		// A link (a virtualenv's lib64 → lib) leads where the bind's
		// source would be followed to: it is not needed, and not shown.
		if fi, err := os.Lstat(filepath.Join(r.Path, name)); err == nil && fi.Mode()&os.ModeSymlink == 0 {
			parts = append(parts, mount.Root{Path: filepath.Join(r.Path, name), Why: r.Why})
		}
	}
	return parts
}

// entryTargets are the real paths the programs in dir lead to: the end of
// each symlink and the #! interpreter of each script (not /usr/bin/env's
// argument: a program found on PATH is its own entry's).
func entryTargets(dir string) []string {
	des, _ := os.ReadDir(dir)
	var targets []string
	for _, de := range des {
		path := filepath.Join(dir, de.Name())
		if de.Type()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				continue
			}
			targets = append(targets, real)
			path = real
		} else if !de.Type().IsRegular() {
			continue
		}
		if interp := shebang(path); filepath.IsAbs(interp) {
			if real, err := filepath.EvalSymlinks(interp); err == nil {
				targets = append(targets, real)
			}
		}
	}
	slices.Sort(targets)
	return slices.Compact(targets)
}

// shebang returns the interpreter a script's #! line names, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, ok := bytes.CutPrefix(buf[:n], []byte("#!"))
	if !ok {
		return ""
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// toolRoot widens a program's real path (for an entry, a path in it) to what it runs with: the version
// directory above its bin/ (~/.nvm/versions/node/v20, ~/.pyenv/versions/3.12,
// a pipx or uv venv) when that lies at least two levels below $HOME (not
// ~/.local or ~/.cargo, which hold much else); the npm package holding it;
// else the file alone.
func toolRoot(home, path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "bin" {
		if rel, _ := filepath.Rel(home, filepath.Dir(dir)); strings.Count(rel, "/") >= 1 {
			return filepath.Dir(dir)
		}
		return dir
	}
	for d, i := dir, 0; i < 4 && d != home && paths.Within(d, home); d, i = filepath.Dir(d), i+1 {
		parent := filepath.Dir(d)
		if strings.HasPrefix(filepath.Base(parent), "@") {
			parent = filepath.Dir(parent)
		}
		if filepath.Base(parent) == "node_modules" && paths.Exists(filepath.Join(d, "package.json")) {
			return d
		}
	}
	return path
}

// outermost drops the roots inside another, and repeats, in path order
// (a directory sorts right before what it holds once "/" sorts first).
func outermost(roots []mount.Root) []mount.Root {
	slices.SortStableFunc(roots, func(a, b mount.Root) int {
		return strings.Compare(strings.ReplaceAll(a.Path, "/", "\x00"), strings.ReplaceAll(b.Path, "/", "\x00"))
	})
	var out []mount.Root
	for _, r := range roots {
		if len(out) == 0 || !paths.Within(r.Path, out[len(out)-1].Path) {
			out = append(out, r)
		}
	}
	return out
}

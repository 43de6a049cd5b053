package audit

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// What a build tool compiles and runs by where it lies, no file of the
// project naming it, and git shows only as a new file among the sources:
// Gradle's build scripts (*.gradle, *.gradle.kts), which it evaluates
// for every project its settings include (a settings.gradle.kts
// including each folder of modules/ takes a new one) and applies as
// precompiled plugins, its buildSrc (its scripts and settings at its
// top, its sources below src/) and the sources of a build its settings
// include, a folder below the top with settings of its own (includeBuild
// "build-logic", the layout Gradle advises in place of buildSrc), which
// it builds and puts on the build scripts' classpath at any task of the
// project, as an IDE opening the folder loads the build; sbt's *.sbt,
// wherever a project of the build lies, and its build definition, the
// project/ beside a build.sbt or holding sbt's build.properties (its
// *.scala and *.java) and the build of that build (project/project/),
// which sbt compiles and runs at its start and as Metals or IntelliJ
// imports the build; and node-gyp's binding.gyp, whose <!(…) commands
// npm runs through node-gyp rebuild at the install of a package that has
// one, as a workspace's member (packages/*) is, with no script naming
// it, and pnpm's package.json5 and package.yaml, which it reads as a
// package.json (packageManifestRuns), whole. Judged as a makefile's parts: git shows a change of one it tracks.
func buildDefinition(dir, name string, exists func(string) bool) bool {
	if name == "binding.gyp" || name == "package.json5" || name == "package.yaml" || strings.HasSuffix(name, ".sbt") || strings.HasSuffix(name, ".gradle") || strings.HasSuffix(name, ".gradle.kts") {
		return true
	}
	if path.Base(dir) == "buildSrc" {
		return true
	}
	// Asked of every file the walk reads: the paths below are joined
	// only for one below a src/.
	if strings.Contains(dir, "/src") {
		if strings.Contains("/"+dir+"/", "/buildSrc/src/") {
			return true
		}
		if build, _, ok := strings.Cut(dir+"/", "/src/"); ok && (exists(path.Join(build, "settings.gradle.kts")) || exists(path.Join(build, "settings.gradle"))) {
			return true
		}
	}
	if path.Base(dir) != "project" || !strings.HasSuffix(name, ".scala") && !strings.HasSuffix(name, ".java") {
		return false
	}
	parent := path.Dir(dir)
	return path.Base(parent) == "project" || exists(path.Join(parent, "build.sbt")) || exists(path.Join(dir, "build.properties"))
}

// packageManifestRuns says whether the package.json name in the
// directory fd, dir from the walk's root, has npm, pnpm or yarn run code
// it alone chooses at an install of its workspace (npm ci, the command
// the exit names to install node_modules again, among them): a script of
// the install's lifecycle, a dependency fetched from a git repository or
// a URL of its choosing (whose prepare the install runs), or from a path
// but a folder of the project, an override's too, or a program it names
// (bin, directories.bin), which the install links into node_modules/.bin,
// where it takes the place of a dependency's by the same name that the
// project's scripts run (a member's jest ran at the host's npm test); or
// a package's name another one has (packageNameTaken), whose place the
// install gives it in node_modules; or cannot be read as JSON. A
// workspace takes a new folder its glob matches (packages/*) for one of
// its packages, whose manifest git shows only as a new file. A folder a
// path dependency leads to is judged where it lies; a version from the
// registry is the registry's.
func (w *walker) packageManifestRuns(fd int, dir, name string) bool {
	b, err := readAt(fd, name, maxManifest)
	if err != nil || w.manifestsRead.Add(int64(len(b))) > maxManifests {
		return true
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return true
	}
	// npm names a package that has no name by its folder.
	pkg, ok := doc["name"]
	if !ok {
		pkg = path.Base(dir)
	}
	if s, ok := pkg.(string); !ok || w.packageNameTaken(dir, s) {
		return true
	}
	if scripts, ok := doc["scripts"]; ok {
		s, ok := scripts.(map[string]any)
		if !ok {
			return true
		}
		for _, run := range installScripts {
			if _, ok := s[run]; ok {
				return true
			}
		}
	}
	if _, ok := doc["bin"]; ok {
		return true
	}
	if _, ok := doc["directories"]; ok {
		return true
	}
	for _, key := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides", "resolutions", "pnpm"} {
		if v, ok := doc[key]; ok && !registrySpecs(v, dir, w.folder) {
			return true
		}
	}
	return false
}

// packageNameTaken says whether pkg, the name of a new package.json in
// dir, is no name of npm's own shape or is one node finds another
// package by from dir: a package in a node_modules of a folder above it
// (but a link to dir), or a dependency a package.json above it or
// beside its folder (another member of packages/*) names (an install
// then links the new package in its place: a member named left-pad that
// the workspace's root, or another member, depends on ran at the host's
// npm test, as the project's code required left-pad). Each folder's
// names read once a walker.
func (w *walker) packageNameTaken(dir, pkg string) bool {
	if !packageName(pkg) {
		return true
	}
	if names := w.memoNames(path.Dir(dir)+"/*", func() map[string]bool { return w.membersDependOn(path.Dir(dir)) }); names == nil || names[pkg] {
		return true
	}
	for d := path.Dir(dir); ; d = path.Dir(d) {
		if w.otherPackage(path.Join(d, "node_modules", pkg), dir) {
			return true
		}
		if names := w.memoNames(d, func() map[string]bool { return w.dependencyNames(path.Join(d, "package.json")) }); names == nil || names[pkg] {
			return true
		}
		if d == "." || d == "/" {
			return false
		}
	}
}

// memoNames is what names gives for key, asked once a walker.
func (w *walker) memoNames(key string, names func() map[string]bool) map[string]bool {
	got, ok := w.dependedOn[key]
	if !ok {
		got = names()
		if w.dependedOn == nil {
			w.dependedOn = map[string]map[string]bool{}
		}
		w.dependedOn[key] = got
	}
	return got
}

// maxMembers bounds the folders beside a new package.json whose own
// package.json membersDependOn reads.
const maxMembers = 1000

// membersDependOn are the names the package.json git tracks of each
// folder in parent depends on (dependencyNames), nil past maxMembers
// folders or where one cannot be read: a new member's dependency on
// another new one is the session's own, as git shows it.
func (w *walker) membersDependOn(parent string) map[string]bool {
	names := map[string]bool{}
	n := 0
	err := untrusted.EachEntry(w.root, parent, func(e fs.DirEntry) {
		if names == nil || !e.IsDir() {
			return
		}
		if n++; n > maxMembers {
			names = nil
			return
		}
		rel := path.Join(parent, e.Name(), "package.json")
		if !w.tracked(rel) {
			return
		}
		member := w.dependencyNames(rel)
		if member == nil {
			names = nil
			return
		}
		maps.Copy(names, member)
	})
	if err != nil {
		return nil
	}
	return names
}

// otherPackage says whether something lies at rel, a package's place in
// a node_modules, but a link to dir: the session's own npm install links
// a new member there.
func (w *walker) otherPackage(rel, dir string) bool {
	if _, err := untrusted.Lstat(w.root, rel); err != nil {
		return false
	}
	to, err := untrusted.Readlink(w.root, rel)
	return err != nil || path.Join(path.Dir(rel), to) != dir
}

// dependencyNames are the names of the packages the package.json at rel
// depends on, in any table, but by a workspace's version (workspace:),
// which names a package of the workspace; empty where there is none,
// nil where it cannot be read (a FIFO, one past the manifests' bound, no
// JSON).
func (w *walker) dependencyNames(rel string) map[string]bool {
	names := map[string]bool{}
	b, err := untrusted.ReadFile(w.root, rel, maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return names
	}
	var doc map[string]any
	if err != nil || w.manifestsRead.Add(int64(len(b))) > maxManifests || json.Unmarshal(b, &doc) != nil {
		return nil
	}
	for _, key := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "bundleDependencies", "bundledDependencies", "overrides", "resolutions"} {
		switch t := doc[key].(type) {
		case map[string]any:
			for name, spec := range t {
				if s, ok := spec.(string); !ok || !strings.HasPrefix(s, "workspace:") {
					names[name] = true
				}
			}
		case []any:
			for _, name := range t {
				if s, ok := name.(string); ok {
					names[s] = true
				}
			}
		}
	}
	return names
}

// packageName says whether pkg has the shape npm gives a package's name:
// lower-case letters, digits, - . _ and ~, not first . or _, in a scope
// (@scope/name) or not, at most 214 characters.
func packageName(pkg string) bool {
	if len(pkg) == 0 || len(pkg) > 214 {
		return false
	}
	if scope, rest, ok := strings.Cut(pkg, "/"); ok {
		return len(scope) > 1 && scope[0] == '@' && namePart(scope[1:]) && namePart(rest)
	}
	return namePart(pkg)
}

func namePart(s string) bool {
	if s == "" || s[0] == '.' || s[0] == '_' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// installScripts are the scripts npm, pnpm and yarn run of a package of
// the workspace as they install it.
var installScripts = []string{"preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare", "prepublish", "dependencies", "pnpm:devPreinstall"}

// registrySpecs says whether every version a dependency table (or an
// override's, nested) of the manifest in dir names is the registry's or
// a folder of the project's: a range, a tag, an alias (npm:), a
// workspace's or a catalog's, a path (file:, link:, portal:, ./x)
// relative to dir that stays below the walk's root and leads to a
// folder there, whose package.json the walk judges; not a git
// repository (git+…, github:, user/repo), a tarball's URL, or another
// path: the session's new member named a package in the instance, which
// the sandbox writes and no audit walks, by its host path or one out of
// the project, and a tarball beside it (npm unpacks a path ending in
// .tgz and runs what it holds, which the audit does not read).
func registrySpecs(v any, dir string, folder func(string) bool) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, spec := range v {
			if !registrySpecs(spec, dir, folder) {
				return false
			}
		}
		return true
	case string:
		for _, p := range []string{"npm:", "workspace:", "catalog:"} {
			if strings.HasPrefix(v, p) {
				return true
			}
		}
		if p, ok := specPath(v); ok {
			// ~ is the home's.
			return !strings.HasPrefix(p, "~") && pathInRoot(dir, p) && folder(filepath.Join(dir, p))
		}
		return !strings.ContainsAny(v, ":/")
	case bool, float64, nil:
		return true
	}
	return false
}

// specPath gives the path a dependency's version names, as npm reads
// one: after file:, link: or portal:, or one that begins with ., / or ~/
// (~1.2 is a range).
func specPath(v string) (string, bool) {
	for _, p := range []string{"file:", "link:", "portal:"} {
		if s, ok := strings.CutPrefix(v, p); ok {
			return s, true
		}
	}
	if strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") {
		return v, true
	}
	return "", false
}

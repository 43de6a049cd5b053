package audit

import (
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// What git ignores it does not show, so a rule added to a .gitignore
// during the session can hide what the session wrote beside it (a
// GNUmakefile, which make prefers to the Makefile, and the .gitignore
// itself). And a file git does not track shows no change at all: a
// makefile the user keeps untracked, rewritten, runs at the next make.

// taskFiles are the files a task runner reads where it starts and runs
// the commands of: make's (in its order), just's (whose names it matches
// whatever their case), Task's and rake's.
var taskFiles = map[string]bool{
	"GNUmakefile": true, "makefile": true, "Makefile": true,
	"Taskfile.yml": true, "taskfile.yml": true, "Taskfile.yaml": true, "taskfile.yaml": true,
	"Taskfile.dist.yml": true, "taskfile.dist.yml": true, "Taskfile.dist.yaml": true, "taskfile.dist.yaml": true,
	"Rakefile": true, "rakefile": true, "Rakefile.rb": true, "rakefile.rb": true,
}

// TaskFile says whether name is one of taskFiles, or just's.
func TaskFile(name string) bool {
	return taskFiles[name] || strings.EqualFold(name, "justfile") || strings.EqualFold(name, ".justfile")
}

// makeFragment says whether name is a task file's part (a makefile's
// *.mk or Makefile.<name>, just's *.just, rake's *.rake), which a task
// file includes, often from where git ignores it (-include local.mk,
// -include Makefile.local), or rake loads from rakelib/ unasked, the
// dependency files a makefile includes from its build directory (cc
// -MMD's *.d, automake's .deps/*.Po and *.Plo), and the build files a
// generator writes there, which make and ninja run as they stand
// (CMake's CMakeFiles/Makefile2, <target>.dir/build.make and *.cmake,
// CMake's or Meson's build.ninja): one the session made or changed that
// git does not track runs at the host's next make, and git status shows
// nothing of it.
func makeFragment(name string) bool {
	for _, ext := range fragmentExts {
		if len(name) > len(ext) && strings.HasSuffix(name, ext) {
			return true
		}
	}
	if name == "Makefile2" {
		return true
	}
	for _, m := range []string{"GNUmakefile.", "makefile.", "Makefile."} {
		if len(name) > len(m) && strings.HasPrefix(name, m) {
			return true
		}
	}
	return false
}

// toolConfigs are the files a build tool reads where it runs and obeys
// by running what they say, kept out of git as a developer's own as
// often as in it: Bazel's .bazelrc and user.bazelrc (--run_under, the
// server's JVM options), bazelisk's .bazeliskrc (where it downloads
// Bazel from) and .bazelversion (a fork's Bazel, by its name), Gradle's
// gradle.properties (org.gradle.jvmargs' -javaagent, org.gradle.java.home),
// Android's local.properties (sdk.dir, whose tools the build runs), sbt's
// .jvmopts and .sbtopts, CMake's presets (CMakeUserPresets.json, which
// CMake's documentation says never to commit: a preset's cache variables
// set a compiler launcher that runs at every compile), PHPUnit's
// configuration (phpunit.xml, the local override of the phpunit.xml.dist
// git tracks: PHP requires its bootstrap, which runs any <?php … ?> in
// it, the configuration itself included), prove's .proverc (options
// and test files prove takes before its own: --exec=/bin/sh runs a test
// file, the .proverc itself, as shell), Gradle's wrapper properties (the
// distributionUrl ./gradlew unpacks and runs, a file: URL into the
// project as well as any), Psalm's psalm.xml (its autoloader, which
// Psalm requires), PHP_CodeSniffer's phpcs.xml (its autoload and
// installed_paths), tox's tox.ini (the commands tox runs), and pytest's
// conftest.py, which pytest imports wherever it collects tests (an
// editor's test discovery runs it as the folder opens), and its
// configuration, pytest.ini, pytest 9's pytest.toml and setup.cfg, which
// pytest, pylint, flake8, mypy and coverage read where they start
// (addopts' -p loads a plugin, pythonpath puts the project on its path,
// --debug writes pytest's log to any file: a session's tests/setup.cfg
// had the host's pytest --collect-only overwrite ~/.bashrc; pylint's
// init-hook is Python), and those tools' own files, which say as much:
// pylint's pylintrc.toml (its .pylintrc.toml and coverage's .coveragerc
// are .<tool>rc names), mypy's mypy.ini and .mypy.ini (its plugins,
// Python it imports, by a path too), flake8's .flake8 (its local
// plugins' paths), and Python's startup modules, sitecustomize.py and
// usercustomize.py, which every python3 imports from a directory on its
// path (PYTHONPATH=$PWD/src: the host's next python3 anywhere ran one
// the session wrote there), and rust-analyzer's rust-analyzer.toml,
// which it reads from the project as the editor opens the folder (its
// build scripts' and check's override commands), and pnpm's
// pnpm-workspace.yaml, where pnpm reads its settings, not from .npmrc
// (nodeOptions, whose --import of a data: URL runs code in every script
// pnpm starts, scriptShell, pnpmfile, the configDependencies whose
// pnpmfile it loads), and the configurations tools read through ERB or
// run the commands of, which git shows only as new files: RuboCop's
// .rubocop.yml (ERB, its require and plugins: Ruby it loads, as the Ruby
// LSP's RuboCop runs as a Ruby file opens), RSpec's .rspec (ERB, and
// --require), golangci-lint's .golangci.{yml,yaml,toml,json} (a custom
// linter's .so it loads, as an editor's lint on save runs it) and
// nodemon's nodemon.json (its exec and events' commands), and cargo's
// build.rs, the build script cargo finds beside a crate's manifest by
// its name and rust-analyzer builds and runs as the editor opens the
// folder (a session's build.rs beside a tracked manifest, git status
// showing only a new file), and Ansible's ansible.cfg, which it reads
// where it starts (its vault_password_file, which it runs where it is
// executable, its inventory scripts, its plugins' paths), and the build
// launchers' own: Pants' .pants.bootstrap, which its launcher sources as
// shell at every pants command, and its pants.toml and .pants.rc (the
// in-repository plugins it loads), Buck's .buckconfig and its local
// override .buckconfig.local, and Hatch's hatch.toml (the commands its
// environments run as they are made). Judged as a makefile's parts: git
// shows a change of one it tracks.
var toolConfigs = map[string]bool{
	".bazelrc": true, "user.bazelrc": true, ".bazeliskrc": true, ".bazelversion": true,
	"gradle.properties": true, "gradle-wrapper.properties": true, "local.properties": true, ".jvmopts": true, ".sbtopts": true,
	"CMakePresets.json": true, "CMakeUserPresets.json": true,
	"phpunit.xml": true, "phpunit.xml.dist": true, "phpunit.dist.xml": true, ".proverc": true, "tox.ini": true,
	"psalm.xml": true, "psalm.xml.dist": true, "phpcs.xml": true, "phpcs.xml.dist": true, ".phpcs.xml": true, ".phpcs.xml.dist": true,
	"conftest.py": true, "pytest.ini": true, ".pytest.ini": true, "pytest.toml": true, ".pytest.toml": true, "setup.cfg": true,
	"pylintrc.toml": true, "mypy.ini": true, ".mypy.ini": true, ".flake8": true,
	"sitecustomize.py": true, "usercustomize.py": true,
	"rust-analyzer.toml": true, "pnpm-workspace.yaml": true,
	".rubocop.yml": true, ".rspec": true, "nodemon.json": true,
	".golangci.yml": true, ".golangci.yaml": true, ".golangci.toml": true, ".golangci.json": true,
	"build.rs": true, "ansible.cfg": true,
	".pants.bootstrap": true, "pants.toml": true, ".pants.rc": true, ".buckconfig": true, ".buckconfig.local": true, "hatch.toml": true,
}

// jjConfig says whether name, in the directory dir, is what Jujutsu
// (jj) reads a repository's or a workspace's configuration by, in a .jj
// that git ignores whole (a colocated repository's .jj/.gitignore): the
// repository's config.toml, which jj before 0.38 obeys where it stands
// and later ones move, unasked, into the user's own configuration where
// no config-id names one yet (its pager, its diff formatter, its fix
// tools and signing program are commands jj runs), the config-id that
// says which of the user's configurations jj takes, the workspace's
// config and config id, the store's git_target (the git repository jj
// fetches and pushes with, by git, obeying its configuration), and a
// workspace's repo file, which names the repository it shares. What
// jj keeps there as data (its operations, its working copy's state)
// is not: a session's jj writes it.
func jjConfig(dir, name string) bool {
	switch path.Base(dir) {
	case ".jj":
		return name == "repo" || name == "workspace-config.toml" || name == "workspace-config-id"
	case "repo":
		return path.Base(path.Dir(dir)) == ".jj" && (name == "config.toml" || name == "config-id")
	case "store":
		return name == "git_target" && path.Base(path.Dir(dir)) == "repo" && path.Base(path.Dir(path.Dir(dir))) == ".jj"
	}
	return false
}

// pyprojectConfiguresTools says whether the pyproject.toml name in the
// directory fd configures a tool, or cannot be read as TOML: pytest,
// pylint, mypy and coverage take their settings from its [tool] table
// where they start, as from setup.cfg (toolConfigs), where its
// [project] and [build-system] act only as the package is built. One
// over maxManifest, or past maxManifests parsed by the walk (read, the
// bytes counted), is taken for one that does.
func pyprojectConfiguresTools(fd int, name string, read *atomic.Int64) bool {
	doc, ok := readManifest(fd, name, read)
	if !ok {
		return true
	}
	_, ok = doc["tool"]
	return ok
}

// cargoManifestRuns says whether the Cargo.toml name in the directory fd
// has cargo run code the manifest alone chooses as rust-analyzer loads
// the folder (cargo check of every crate, build scripts and proc macros
// built and run), or cannot be read as TOML: a build script by any path
// (build = "b.txt"; build.rs, the default, is judged by its name), a
// proc macro, a dependency fetched from a git repository or a registry
// of the manifest's choosing, a [patch] or [replace] of one. A workspace
// takes a new folder its members' glob matches (crates/*) for one of its
// crates, whose manifest git shows only as a new file. A path dependency
// passes only where it lies in the project, to be judged there (a link
// out of it is moved aside itself): by an absolute path or one out of
// the project, the session's new crate named one in the instance, which
// the sandbox writes and no audit walks; so does a target's source and
// the workspace's root it names (targetsInRoot). A version from
// crates.io is the registry's. dir is the manifest's directory, from the
// walk's root.
func cargoManifestRuns(fd int, dir, name string, read *atomic.Int64) bool {
	doc, ok := readManifest(fd, name, read)
	if !ok {
		return true
	}
	if _, ok := doc["patch"]; ok {
		return true
	}
	if _, ok := doc["replace"]; ok {
		return true
	}
	if pkg, ok := doc["package"].(map[string]any); ok {
		if build, ok := pkg["build"]; ok && build != false {
			return true
		}
	}
	if lib, ok := doc["lib"].(map[string]any); ok {
		for _, key := range []string{"proc-macro", "proc_macro"} {
			if v, ok := lib[key]; ok && v != false {
				return true
			}
		}
	}
	if pkg, ok := doc["package"].(map[string]any); ok {
		if ws, ok := pkg["workspace"]; ok && !pathInRoot(dir, ws) {
			return true
		}
	}
	if !targetsInRoot(doc, dir) {
		return true
	}
	tables := []any{doc}
	if targets, ok := doc["target"].(map[string]any); ok {
		for _, t := range targets {
			tables = append(tables, t)
		}
	}
	if ws, ok := doc["workspace"].(map[string]any); ok {
		tables = append(tables, ws)
	}
	for _, t := range tables {
		t, ok := t.(map[string]any)
		if !ok {
			return true
		}
		for _, kind := range []string{"dependencies", "dev-dependencies", "dev_dependencies", "build-dependencies", "build_dependencies"} {
			v, ok := t[kind]
			if !ok {
				continue
			}
			deps, ok := v.(map[string]any)
			if !ok {
				return true
			}
			for _, dep := range deps {
				d, ok := dep.(map[string]any)
				if !ok {
					continue
				}
				if d["git"] != nil || d["registry"] != nil || d["registry-index"] != nil {
					return true
				}
				if p, ok := d["path"]; ok && !pathInRoot(dir, p) {
					return true
				}
			}
		}
	}
	return false
}

// targetsInRoot says whether every target of the manifest doc in dir
// (its lib, binaries, tests, benchmarks and examples) has its source
// where a path names it in the project: cargo test runs a lib's and a
// test's, cargo run a binary's, wherever the manifest names them, and a
// new crate's lib or test named a file the session wrote in the
// instance.
func targetsInRoot(doc map[string]any, dir string) bool {
	targets := []any{doc["lib"]}
	for _, kind := range []string{"bin", "test", "bench", "example"} {
		if v, ok := doc[kind]; ok {
			list, ok := v.([]any)
			if !ok {
				return false
			}
			targets = append(targets, list...)
		}
	}
	for _, t := range targets {
		if t == nil {
			continue
		}
		t, ok := t.(map[string]any)
		if !ok {
			return false
		}
		if p, ok := t["path"]; ok && !pathInRoot(dir, p) {
			return false
		}
	}
	return true
}

// pathInRoot says whether p, a path a manifest in dir names, is a
// relative one that stays below the walk's root.
func pathInRoot(dir string, p any) bool {
	s, ok := p.(string)
	if !ok || filepath.IsAbs(s) {
		return false
	}
	rel := filepath.Join(dir, s)
	return rel != ".." && !strings.HasPrefix(rel, "../")
}

// readManifest parses the TOML file name in the directory fd, and says
// whether it could: one over maxManifest, or past maxManifests parsed by
// the walk (read, the bytes counted), is not.
func readManifest(fd int, name string, read *atomic.Int64) (map[string]any, bool) {
	b, err := readAt(fd, name, maxManifest)
	if err != nil || read.Add(int64(len(b))) > maxManifests {
		return nil, false
	}
	var doc map[string]any
	if toml.Unmarshal(b, &doc) != nil {
		return nil, false
	}
	return doc, true
}

// maxManifest bounds what of one pyproject.toml or Cargo.toml the exit
// parses, and maxManifests what of all a walk's: a TOML parser takes
// seconds over a MiB of a table's dotted name ([a.a.a….a]): a session's
// two dozen such files of 1 MiB, each parsed, added 39 s to its end, and
// nothing bounded how many it parsed. A package's own manifest is a few
// KiB.
const maxManifest, maxManifests = 64 << 10, 256 << 10

// startupPackage says whether name, in the directory dir, is a Python
// startup module's as a package (sitecustomize/__init__.py), which
// python3 imports as it imports sitecustomize.py.
func startupPackage(dir, name string) bool {
	base := path.Base(dir)
	return name == "__init__.py" && (base == "sitecustomize" || base == "usercustomize")
}

// toolConfig says whether name is a tool's configuration the tool runs
// what it says of: one of toolConfigs, PHPStan's (any .neon file: its
// bootstrapFiles are PHP it requires, its includes more .neon files,
// phpstan.neon the local override of the phpstan.neon.dist git tracks),
// and, by the convention JavaScript's tools share rather than by a list
// of them, <tool>.config.<ext> and .<tool>rc, .<tool>rc.<ext>
// (eslint.config.mjs, vite.config.ts, jest.config.json, .prettierrc.cjs,
// .babelrc): editors' extensions (ESLint's, Prettier's, Stylelint's,
// Tailwind's, Vitest's) import them as the folder opens, before git
// status is read, and what a JSON or YAML one names as a plugin, a
// parser or a transform by its path, node requires as JavaScript
// whatever its extension; and the test runners' <tool>.conf.<ext>,
// which each imports where it starts (Karma's karma.conf.js,
// WebdriverIO's wdio.conf.ts, Nightwatch's, CodeceptJS', Protractor's).
func toolConfig(name string) bool {
	if toolConfigs[name] || strings.HasSuffix(name, ".neon") || strings.HasSuffix(name, ".neon.dist") {
		return true
	}
	if rcName(name) || versionFile(name) {
		return true
	}
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || !configExts[name[i:]] {
		return false
	}
	stem := name[:i]
	return rcName(stem) || len(stem) > len(".config") && strings.HasSuffix(stem, ".config") || strings.Contains(stem[1:], ".config.") ||
		len(stem) > len(".conf") && strings.HasSuffix(stem, ".conf")
}

// versionFile says whether name is .<tool>-version, the file a version
// manager reads where it starts for the tool it runs there (goenv's
// .go-version, jenv's .java-version, tfenv's .terraform-version, and
// mise's idiomatic version files, which a user enables per tool): mise
// takes a path: version for the tool's installation, whose programs its
// activated shell runs by their names, a go in the project's own
// instance (which the sandbox writes and no audit walks) among them.
// The registry guards those it names (.python-version).
func versionFile(name string) bool {
	tool, ok := strings.CutSuffix(name, "-version")
	return ok && len(tool) > 1 && tool[0] == '.' && !strings.ContainsRune(tool[1:], '.')
}

// rcName says whether name is .<tool>rc: a dot, a tool's name, rc.
func rcName(name string) bool {
	return len(name) > len(".rc") && name[0] == '.' && strings.HasSuffix(name, "rc") && !strings.Contains(name[1:], ".")
}

// configExts are the extensions of the configuration files
// JavaScript's tools load: modules they import, and the data formats
// that name modules.
var configExts = map[string]bool{
	".js": true, ".cjs": true, ".mjs": true, ".ts": true, ".cts": true, ".mts": true,
	".json": true, ".json5": true, ".jsonc": true, ".yaml": true, ".yml": true, ".toml": true,
}

// fragmentExts are the extensions of task files' parts.
var fragmentExts = []string{".mk", ".just", ".rake", ".d", ".Po", ".Plo", ".make", ".cmake", ".ninja"}

// ignoreRule is a pattern of a .gitignore, as git reads it: a glob
// matched against the path below the .gitignore's directory when it holds
// a slash (anchored), against the name otherwise; dirOnly for one that
// ended in a slash.
type ignoreRule struct {
	glob     string
	anchored bool
	dirOnly  bool
}

// parseIgnore reads a .gitignore's rules. A negation (!) is left out: the
// rules are read to find what they may hide, and more is safer.
func parseIgnore(b []byte) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if !strings.HasSuffix(line, "\\ ") {
			line = strings.TrimRight(line, " ")
		}
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if line[0] == '\\' {
			line = line[1:]
		}
		r := ignoreRule{}
		if s, ok := strings.CutSuffix(line, "/"); ok {
			line, r.dirOnly = s, true
		}
		if strings.Contains(line, "/") {
			line, r.anchored = strings.TrimPrefix(line, "/"), true
		}
		if line == "" {
			continue
		}
		r.glob = line
		rules = append(rules, r)
	}
	return rules
}

// matches says whether the rule hides rel (below the .gitignore's
// directory), a directory if dir.
func (r ignoreRule) matches(rel string, dir bool) bool {
	if r.dirOnly && !dir {
		return false
	}
	if !r.anchored {
		return globMatch(r.glob, path.Base(rel))
	}
	return globParts(strings.Split(r.glob, "/"), strings.Split(rel, "/"))
}

// globParts matches a pattern's parts with a path's, ** for any number of
// parts.
func globParts(pattern, parts []string) bool {
	if len(pattern) == 0 {
		return len(parts) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(parts); i++ {
			if globParts(pattern[1:], parts[i:]) {
				return true
			}
		}
		return false
	}
	return len(parts) > 0 && globMatch(pattern[0], parts[0]) && globParts(pattern[1:], parts[1:])
}

// globMatch matches one part as git's wildmatch does, near enough: a
// pattern Go's path.Match cannot read matches (more is safer).
func globMatch(pattern, name string) bool {
	pattern = strings.ReplaceAll(pattern, "[!", "[^")
	pattern = strings.ReplaceAll(pattern, "**", "*")
	ok, err := path.Match(pattern, name)
	return ok || err != nil
}

// newlyIgnored looks, below each .gitignore the session wrote, for what
// its rules hide that the session created or changed and git does not
// track: each is a finding (a directory whole, if it is new, or its new
// entries, if it is not).
func (w *walker) newlyIgnored(ignores []string) {
	for _, rel := range ignores {
		b, err := untrusted.ReadFile(w.root, rel, 1<<20)
		if err != nil {
			continue // git reads no .gitignore it cannot open without a symlink
		}
		rules := parseIgnore(b)
		if len(rules) == 0 {
			continue
		}
		w.ignoredBelow(filepath.Dir(rel), "", rules, false, 0)
	}
}

// ignoredBelow walks base/sub (relative to the root); hidden says that a
// directory above is ignored, so all of it is.
func (w *walker) ignoredBelow(base, sub string, rules []ignoreRule, hidden bool, depth int) {
	dir := filepath.Join(base, sub)
	if depth > maxDepth || len(dir) > MaxPathLen {
		return
	}
	entries, err := untrusted.ReadDir(w.root, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || depsAt(w.root, dir, name) || w.guarded[w.abs(filepath.Join(dir, name))] {
			continue
		}
		rel := filepath.Join(dir, name)
		below := filepath.Join(sub, name)
		isDir := e.IsDir()
		match := hidden
		for _, r := range rules {
			match = match || r.matches(below, isDir)
		}
		var st unix.Stat_t
		if unix.Lstat(w.abs(rel), &st) != nil {
			continue
		}
		changed := w.new(&st)
		if isDir {
			if _, old := w.start.files.inode(rel); match && changed && !old {
				w.found(rel)
				continue
			}
			w.ignoredBelow(base, below, rules, match, depth+1)
			continue
		}
		if match && changed && !w.tracked(rel) {
			w.found(rel)
		}
	}
}

// Untracked returns those of paths (absolute, below root) that no index
// names, of the repository holding each nearest: git status shows an
// untracked file the same before and after a change.
func Untracked(root string, paths []string) []string {
	w := &walker{root: root, indexNames: newIndexNames()}
	var out []string
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) && !w.tracked(rel) {
			out = append(out, p)
		}
	}
	return out
}

// tracked says whether rel is an entry of the index of the repository
// whose work tree holds it nearest, a .git directory's.
func (w *walker) tracked(rel string) bool {
	dir, ok := w.repoAbove(filepath.Dir(rel))
	if !ok {
		return false
	}
	gitDir := filepath.Join(dir, ".git")
	if w.gitKind(gitDir) != unix.S_IFDIR {
		return w.trackedInWorktree(w.abs(rel))
	}
	name, _ := filepath.Rel(dir, rel)
	return w.indexNames.of(w.abs(gitDir))[name]
}

// repoAbove is the nearest directory at or above dir (relative to the
// root) with a .git, and whether there is one, each directory looked up
// once an audit: tracked looks above every file it is asked of, and
// 1,000 files 250 levels deep had each level looked up again, the path
// built anew (the audit took 30 s).
func (w *walker) repoAbove(dir string) (string, bool) {
	if w.repos == nil {
		w.repos = map[string]string{}
	}
	if repo, ok := w.repos[dir]; ok {
		return repo, repo != ""
	}
	repo := ""
	if w.gitKind(filepath.Join(dir, ".git")) != 0 {
		repo = dir
	} else if dir != "." && dir != "/" {
		repo, _ = w.repoAbove(filepath.Dir(dir))
	}
	w.repos[dir] = repo
	return repo, repo != ""
}

// gitKind is the kind (S_IFMT) of what stands at gitDir, relative to the
// root, 0 for nothing.
func (w *walker) gitKind(gitDir string) uint32 {
	var st unix.Stat_t
	if unix.Lstat(w.abs(gitDir), &st) != nil {
		return 0
	}
	return st.Mode & unix.S_IFMT
}

// indexNames are the entries of the indexes read to tell what is tracked,
// by git directory: each read once in a walk, whichever of its walkers
// asks, and under indexReading, so that the walkers side by side never
// hold an index each (an index may take 256 MiB).
type indexNames struct {
	lock  sync.Mutex
	byDir map[string]map[string]bool
}

func newIndexNames() *indexNames { return &indexNames{byDir: map[string]map[string]bool{}} }

// of are the entries of the index of the git directory gitDir.
func (n *indexNames) of(gitDir string) map[string]bool {
	n.lock.Lock()
	defer n.lock.Unlock()
	if names, ok := n.byDir[gitDir]; ok {
		return names
	}
	names := map[string]bool{}
	if d, err := openRoot(gitDir); err == nil {
		indexReading.Lock()
		if b, err := readAt(int(d.Fd()), "index", maxIndex); err == nil {
			eachEntry(b, hashLen(int(d.Fd())), func(e indexEntry) { names[string(e.name)] = true })
		}
		indexReading.Unlock()
		d.Close()
	}
	n.byDir[gitDir] = names
	return names
}

package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/internal/dirent"
	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// pluginCredentials finds, among the entries of ~/.claude shown
// read-only, where a credential of the user's git remotes lies: in the
// git repositories below any of them (a marketplace's clone, a plugin's,
// their submodules, a skill cloned from a private repository, ~/.claude
// itself kept in git: each one's config), and for a private plugin
// marketplace, its URL, token and all, in the files of plugins/
// (known_marketplaces.json). Each such file is shown
// as a private read-only copy without the credential instead (own), and
// leaves the entries; a file of plugins/ that cannot be read whole, or a
// directory that cannot be looked through whole, is not shown. What was
// left out is named (leftOut).
func pluginCredentials(home, project string, entries, frozen []string) (kept []string, own []mount.Mount, leftOut []string) {
	plugins := filepath.Join(home, ".claude", "plugins")
	tilde := func(p string) string { return tildePath(p, home) }
	for _, f := range frozen {
		if copies, dropped, ok := gitDirItself(f, mount.ClaudeConfig, tilde); ok {
			own, leftOut = append(own, copies...), append(leftOut, dropped...)
		}
	}
	for _, e := range entries {
		if fi, err := os.Stat(e); err == nil && fi.IsDir() {
			copies, dropped, whole := cloneCredentials(e, e, mount.ClaudeConfig, tilde)
			if leftOut = append(leftOut, dropped...); whole {
				kept, own = append(kept, e), append(own, copies...)
			}
			continue
		}
		if filepath.Dir(e) != plugins {
			kept = append(kept, e)
			continue
		}
		// A copy of what the launch read, with or without a credential:
		// a marketplace the host adds during the session, token and all,
		// is written into the host's file, which is not shown.
		m, note, shown := launchCopy(e, mount.ClaudeConfig, tilde)
		if shown && installedPlugins[filepath.Base(e)] {
			m.Content, shown = pluginsOfProject(m.Content, project)
		}
		if shown {
			own = append(own, m)
		}
		if note != "" {
			leftOut = append(leftOut, note)
		}
	}
	return kept, own, leftOut
}

// installedPlugins are the files where Claude Code records the plugins
// installed, with, for one installed in a project's or a local scope,
// that project's path.
var installedPlugins = map[string]bool{"installed_plugins.json": true, "installed_plugins_v2.json": true}

// pluginsOfProject is the list of installed plugins b with only the
// installations of the user's scope and of project's folders: another's
// projectPath names another of the user's projects. An empty file is
// copied as it is; a list that does not read as one is not shown (ok
// false).
func pluginsOfProject(b, project string) (string, bool) {
	if strings.TrimSpace(b) == "" {
		return b, true
	}
	d := json.NewDecoder(strings.NewReader(b))
	d.UseNumber()
	var top map[string]any
	if d.Decode(&top) != nil {
		return "", false
	}
	plugins, _ := top["plugins"].(map[string]any)
	for name, v := range plugins {
		installs, _ := v.([]any)
		plugins[name] = slices.DeleteFunc(installs, func(i any) bool {
			install, ok := i.(map[string]any)
			if !ok {
				return true
			}
			at, scoped := install["projectPath"]
			path, _ := at.(string)
			return scoped && !agent.BearsOn(path, project)
		})
	}
	out, err := json.MarshalIndent(top, "", "  ")
	return string(out), err == nil
}

// launchCopy is a private read-only copy, at path, of the file the
// launch read there, without the credentials in its URLs (a private
// marketplace's or extension's https://oauth2:TOKEN@…, a path's segment
// not known to be a word or a version, a query: /marketplace add of a
// raw file's URL with ?private_token=): what the host
// writes there during the session is not shown. note names what was left
// out, "" when nothing was; a file that cannot be read whole (over 1 MiB,
// not a regular file) is not shown (ok false).
func launchCopy(path string, role mount.Role, tilde func(string) string) (m mount.Mount, note string, ok bool) {
	b, _, err := untrusted.ReadResolved(path, 1<<20)
	if err != nil {
		return mount.Mount{}, "all of " + tilde(path) + " (claudebox cannot read it whole to leave out a credential)", false
	}
	redacted, user := claudesettings.WithoutURLCredentials(b)
	redacted, segment := credential.WithoutURLPath(redacted)
	redacted, query := credential.WithoutURLQuery(redacted)
	why := "a private copy of what the launch read"
	if user || segment || query {
		why, note = "a private copy without the credentials in its URLs", "the credentials in URLs in "+tilde(path)
	}
	return mount.Mount{Kind: mount.RoBindData, Dest: path, Content: string(redacted), Why: why, Role: role}, note, true
}

// cloneCredentials hides, in dir (shown inside at dest), every git
// directory (an empty directory stands over it, own), naming those whose
// configuration may hold a credential (leftOut): a clone's configuration
// keeps its remote's URL, token and all, and the host's git writes it
// while the session runs (git config renames a new file over the old,
// which would take a private copy's mount with it); what Claude Code
// reads of a clone is its files, not its git directory. whole is false
// when dir cannot be looked through whole, and then it is not to be shown
// (leftOut says so).
func cloneCredentials(dir, dest string, role mount.Role, tilde func(string) string) (own []mount.Mount, leftOut []string, whole bool) {
	gitDirs, files, whole := gitDirs(dir)
	if !whole {
		return nil, []string{"all of " + tilde(dest) + " (" + notLookedThrough + ")"}, false
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		inside := filepath.Join(dest, rel)
		own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: inside, Why: "empty: " + credentialFileWhy, Role: role})
		leftOut = append(leftOut, credentialFileNote(tilde(inside)))
	}
	for _, g := range gitDirs {
		rel, _ := filepath.Rel(dir, g)
		inside := filepath.Join(dest, rel)
		own = append(own, mount.Mount{Kind: mount.Tmpfs, Dest: inside, Why: "a clone's git directory, hidden: its configuration may hold a credential, and the host's git rewrites it", Role: role})
		if configHoldsCredential(filepath.Join(g, "config")) {
			leftOut = append(leftOut, "all of "+tilde(inside)+" (a clone's git directory, whose configuration may hold a credential)")
		}
	}
	return own, leftOut, true
}

// configHoldsCredential says a clone's configuration may hold a
// credential, or cannot be read whole to say it holds none: only for the
// launch's notice, as the whole git directory is hidden.
func configHoldsCredential(config string) bool {
	b, err := untrusted.ReadFile(filepath.Dir(config), filepath.Base(config), 1<<20)
	return err != nil && !errors.Is(err, fs.ErrNotExist) || gitSecret(b)
}

// The bounds of gitDirs' walk of each directory shown: deep enough for
// plugins/cache/<marketplace>/<plugin>/<version>/.git, and for a hook's
// virtualenv or a skill's node_modules in ~/.claude, which a walk that
// gave up would hide whole; the count bounds its cost.
const (
	gitDirsDepth = 32
	gitDirsCount = 4000
)

// notLookedThrough says why a directory gitDirs could not look through
// whole is not shown.
const notLookedThrough = "claudebox cannot look through it whole for git directories, which may hold a credential: over 32 levels or 4,000 directories"

// packageDirs are the directories a package manager fills with packages
// (npm's, pip's, and Debian's pip's dist-packages), of thousands of directories, none of them a clone:
// only their packages' first levels are looked through, where a package
// cloned in place keeps its .git, and the packages they hold in turn.
var packageDirs = map[string]bool{"node_modules": true, "site-packages": true, "dist-packages": true}

// libraryDirs are, in a lib/, the directories an interpreter keeps its
// standard library and its installed packages in (Ruby's lib/ruby: its
// version's library, gems, site_ruby), looked through as packageDirs
// are, its installed gems' first levels too (gems/3.3.0/gems/x/.git): a
// Ruby installed below /usr/local lost to the judges its uri/generic.rb,
// json/common.rb and rubygems/uri.rb, whose examples write a URL with a
// user and a password, and require "uri" failed inside. Not Perl's
// lib/perl5, whose site_perl holds an administrator's own modules.
var libraryDirs = map[string]bool{"ruby": true}

// packageLevels are the levels of a package directory looked through:
// node_modules, @scope, the scoped package, each read for a .git among
// its entries.
const packageLevels = 3

// isGitDir says the directory path, of entries des, is a git directory:
// one named .git, a bare repository (HEAD and objects in it), a
// worktree's (HEAD and commondir).
func isGitDir(path string, des []os.DirEntry) bool {
	names := map[string]bool{}
	for _, de := range des {
		names[de.Name()] = true
	}
	return filepath.Base(path) == ".git" || names["HEAD"] && (names["objects"] || names["commondir"])
}

// credentialFile says a file of what the user's setup shows (a skill, a
// plugin, a local marketplace) is named as credentials are kept
// (bind.CredentialFile: a skill's .env, its OAuth token.json or
// credentials.json, a key), and is no script: it is not shown.
//
// Code named so is no credential (tokenizer.go, csrf_token.html), nor a
// bundle of certificates (certifi's cacert.pem in a skill's virtualenv),
// which is public: a .pem read whole and found to hold certificates and
// nothing else is shown.
func credentialFile(path string) bool {
	return namedCredentialFile(path) || settingsHoldCredential(path)
}

// namedCredentialFile says a file is named as credentials are kept, as
// credentialFile says, whatever it holds.
func namedCredentialFile(path string) bool {
	name := filepath.Base(path)
	ext := strings.ToLower(filepath.Ext(name))
	if !bind.CredentialFile(name) || slices.Contains(scriptExtensions, ext) || slices.Contains(codeExtensions, ext) {
		return false
	}
	if ext == ".pem" || ext == ".crt" {
		b, err := untrusted.ReadFile(filepath.Dir(path), name, 1<<20)
		return err != nil || !onlyCertificates(b)
	}
	return true
}

// settingsExtensions are the names of settings files, which a skill or
// a plugin reads its settings from, a credential among them whatever its
// file's name (config.yaml's password: …), and of the lock files and
// module lists its tools read beside them (uv.lock, go.sum, go.mod); a
// file without one may be settings too (an auth file written as .netrc
// is).
var settingsExtensions = []string{".yaml", ".yml", ".json", ".jsonc", ".json5", ".toml", ".ini", ".cfg", ".conf", ".properties", ".xml", ".lock", ".sum", ".mod"}

// settingsFileLimit bounds what of a settings file is read to judge it:
// a larger one is no settings a person wrote (a schema, a lock file, a
// bundle), and the expressions cost a long line about 2 ms a KiB on a
// loaded 2-core machine (a minified one is a line).
const settingsFileLimit = 16 << 10

// codeFileLimit bounds what of a script, a source file, or settings or
// prose over settingsFileLimit is read to judge it (credential.InCode,
// about 3 ms a MiB on a 2-core machine at load 3): a bundler writes the
// variables a bundle was built with into it, a token among them, so a
// bundle is judged too; a larger file is not shown, unjudged.
const codeFileLimit = 16 << 20

// settingsHoldCredential says the file at path is settings
// (settingsExtensions, or a name without one) or prose
// (documentExtensions) with a credential written in it, a script or
// source with one no code writes by chance (credential.InCode), or is of
// a kind not known to hold none. Prose over settingsFileLimit is judged
// as code is and for its labels' values (credential.InLargeDocument),
// settings as code is and for a key given a credential
// (credential.InLargeSettings), up to codeFileLimit; a larger one of
// these kinds is taken to hold one, and one that cannot be read is not
// judged. What is of no known kind (a
// Telegram client's .session, Terraform's .tfvars, direnv's .envrc, a
// backup's .bak) is shown only as text of at most settingsFileLimit
// judged as settings are: anything may be kept in a file of a kind
// claudebox does not know, an account's key among them.
func settingsHoldCredential(path string) bool {
	return verdict.Judge("settings", filepath.Dir(path), filepath.Base(path), settingsJudge(path))
}

// settingsJudge is how settingsHoldCredential judges the file at path
// by its content: a binary one by its kind (credential.InBinary: shown
// only where its first bytes say it is of a kind known to hold none, an
// archive by what it holds, each file in it as textHolds judges one),
// whatever its name (a skill's Client.class and sdk.jar with a token
// built in were shown by their names, a data file with no extension
// that is a SQLite database as text holding none); text as textHolds
// judges it, one that cannot be read not judged but where its kind is
// not known.
func settingsJudge(path string) func(verdict.File) bool {
	name := filepath.Base(path)
	unknown := unknownKind(name)
	return func(f verdict.File) bool {
		if head := f.Head(credential.BinaryHead); credential.Binary(head) {
			return credential.InBinary(name, head, f.Read, textHolds)
		}
		if knownHarmless(name) {
			return false
		}
		limit := int64(codeFileLimit)
		if unknown {
			limit = settingsFileLimit
		}
		b, err := f.Read(limit)
		if err != nil {
			return unknown || errors.Is(err, untrusted.ErrTooLarge)
		}
		return textHolds(name, b)
	}
}

// manualPage says text b is a manual page: troff's source with a
// title's line (.TH, mdoc's .Dd or .Dt), or one that stands for another
// page (.so).
func manualPage(b []byte) bool {
	return bytes.HasPrefix(b, []byte(".so ")) || slices.ContainsFunc([]string{".TH ", ".Dd ", ".Dt "}, func(p string) bool {
		return bytes.HasPrefix(b, []byte(p)) || bytes.Contains(b, []byte("\n"+p))
	})
}

// knownHarmless says a file's name alone says it holds no credential:
// an asset's, a package's manifest.
func knownHarmless(name string) bool {
	return packageManifests[name] || slices.Contains(assetExtensions, strings.ToLower(filepath.Ext(name)))
}

// unknownKind says a file's name is of no kind known: an extension that
// is none of settings', prose's, scripts' or code's.
func unknownKind(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext != "" && !slices.Contains(settingsExtensions, ext) && !slices.Contains(documentExtensions, ext) &&
		!slices.Contains(scriptExtensions, ext) && !slices.Contains(codeExtensions, ext)
}

// textHolds says text b, the content of a file named name (on disk or
// in an archive), holds a credential, judged by its kind: prose as
// prose (credential.InDocument), over settingsFileLimit as large prose
// (credential.InLargeDocument: as code is, and for its lines that give a
// label of a secret its value, and a cookie file's); a
// script or source as code (credential.InCode, a shell's script as one
// too), and for a token drawn at random given to a name
// (credential.InCodeByName: a skill's CF = "…"); settings, or a name without an extension, as settings
// (credential.InSettings), over settingsFileLimit as large settings
// (credential.InLargeSettings: around each key that names a credential
// alone); of a kind not known, as settings, and only where it is UTF-8
// of at most settingsFileLimit, but a manual page (manualPage: tool.1,
// git-log.1.gz, larger than that), a vendor's prose, judged as code is
// (judged as prose, the 21,434 pages of this machine's /usr/share/man,
// gzipped, held a first launch 69 s where they lay in /usr/local/share).
// An asset's or a package's manifest, by its name alone, holds none.
func textHolds(name string, b []byte) bool {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case knownHarmless(name):
		return false
	case unknownKind(name) && manualPage(b):
		return credential.InCode(b)
	case slices.Contains(documentExtensions, ext):
		if len(b) > settingsFileLimit {
			return credential.InLargeDocument(b)
		}
		return credential.InDocument(b)
	case slices.Contains(scriptExtensions, ext) || slices.Contains(codeExtensions, ext):
		return credential.InCode(b) || credential.InCodeByName(b) || shellScript(ext, b) && credential.InScript(b)
	case unknownKind(name):
		return len(b) > settingsFileLimit || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 || credential.InSettings(b)
	case len(b) > settingsFileLimit:
		return credential.InLargeSettings(b)
	}
	return credential.InSettings(b)
}

// assetExtensions are the names of what a skill or a plugin shows or
// runs that is no one's settings and no text a credential is written
// into: images, fonts, sound and video, documents it fills in, compiled
// code, and the schemas and markup its tools read.
var assetExtensions = []string{
	".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tif", ".tiff", ".avif", ".svg",
	".ttf", ".otf", ".woff", ".woff2", ".eot",
	".mp3", ".wav", ".ogg", ".flac", ".mp4", ".webm", ".mov",
	".pdf", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp",
	".pyc", ".so", ".wasm", ".node", ".class", ".jar", ".dll", ".dylib", ".o", ".a", ".lockb",
	".xsd", ".dtd", ".xsl", ".xslt",
}

// packageManifests are the files that name a package and what it
// depends on, which no one keeps a credential in, and whose versions read
// as a URL's user and password ("npm:fdir@1.2.0", "patch:x@npm%3A1"):
// judged by their names alone.
var packageManifests = map[string]bool{"package.json": true, "composer.json": true, "deno.json": true, "jsr.json": true, "bower.json": true}

// documentExtensions are the names of prose (a command, a skill's
// instructions, its references), which shows a credential it holds
// (credential.InDocument): a webhook's URL, a bearer token in a curl.
var documentExtensions = []string{".md", ".markdown", ".mdx", ".txt", ".rst"}

// codeExtensions are the names of source files and markup, which a name
// with "token" or "secret" in it leaves source: what a credential is kept
// in is data (.json, .yaml, .txt, .env, a key's own extension). Among
// them the libraries Perl, Vim, Emacs, Tcl and CMake load, and assembly,
// which as kinds not known were not shown past settingsFileLimit.
var codeExtensions = []string{
	".go", ".rs", ".java", ".kt", ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".m", ".jsx", ".tsx", ".vue", ".svelte", ".css", ".scss", ".less", ".html", ".htm", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".dart", ".r", ".jl", ".zig", ".nim", ".pyi",
	".pm", ".pod", ".t", ".vim", ".el", ".elc", ".lisp", ".tcl", ".tm", ".cmake", ".s", ".asm",
}

// shellScript says a file of extension ext holding b is a shell's
// script, in which a literal given to a name (export DB_PASSWORD=x, fish's
// set -x) is one as in a hook's command, not code's by chance.
func shellScript(ext string, b []byte) bool {
	if slices.Contains(shellExtensions, ext) {
		return true
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return bytes.HasPrefix(line, []byte("#!")) && bytes.Contains(line, []byte("sh"))
}

// shellExtensions are those of scriptExtensions that a shell runs.
var shellExtensions = []string{".sh", ".bash", ".zsh", ".fish"}

// credentialFileWhy says why such a file is not shown.
const credentialFileWhy = "named as credentials are kept (a key, a token, an .env), settings with one written in them, or data of a kind not known to hold none"

// credentialFileNote names a file left out as credentialFile says.
func credentialFileNote(path string) string {
	return "all of " + path + " (" + credentialFileWhy + ")"
}

// gitDirs are the git directories in dir (isGitDir) that lie in no
// other, and the files in it outside them named as credentials are kept
// (credentialFile). No link is followed. whole is false when the walk
// went past its bounds or could not read a directory: what it did not
// see may hold one.
func gitDirs(dir string) (dirs, files []string, whole bool) {
	return gitDirsJudged(dir, func(dirfd int, dir, name string) bool {
		return verdict.JudgeAt("settings", dirfd, dir, name, settingsJudge(name))
	})
}

// gitDirsJudged is gitDirs with holds judging the content of each file
// outside a package manager's packages (name in the directory open at
// dirfd, whose path is dir), whose names alone are judged. Each
// directory is read through a descriptor of its own, and each file it
// judges is looked up through it: a /usr/local of global npm packages
// and documentation is thousands of files a launch looks at.
func gitDirsJudged(dir string, holds func(dirfd int, dir, name string) bool) (dirs, files []string, whole bool) {
	// levels is how many levels below a directory are still read: 0, all
	// of them; in a package directory, what packageLevels leaves.
	type queued struct {
		path   string
		levels int
	}
	buf := dirent.Buffer()
	defer dirent.Release(buf)
	// look reads the directory d, adding what it finds; false where it
	// cannot be read. left are the files left out so far: a directory's
	// are known before its __pycache__'s, a level below, are judged.
	var next []queued
	left := map[string]bool{}
	look := func(d queued) bool {
		fd, err := unix.Open(d.path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		defer unix.Close(fd)
		entries, ok := sortedEntries(fd, *buf)
		if !ok {
			return false
		}
		has := func(name string) bool {
			_, found := slices.BinarySearchFunc(entries, name, func(e dirEntry, name string) int { return strings.Compare(e.name, name) })
			return found
		}
		if filepath.Base(d.path) == ".git" || has("HEAD") && (has("objects") || has("commondir")) {
			// A git directory (isGitDir): what lies in it is hidden with it.
			dirs = append(dirs, d.path)
			return true
		}
		for _, e := range entries {
			switch {
			case e.typ != unix.DT_DIR:
				// A package manager's packages are no one's settings:
				// only their names are judged.
				if e.typ == unix.DT_REG && (bind.CredentialFile(e.name) && namedCredentialFile(filepath.Join(d.path, e.name)) || d.levels == 0 && (bytecodeOfHidden(dir, d.path, e.name, left, holds) || holds(fd, d.path, e.name))) {
					files = append(files, filepath.Join(d.path, e.name))
					left[filepath.Join(d.path, e.name)] = true
				}
			case e.name == ".git":
				dirs = append(dirs, filepath.Join(d.path, ".git"))
			case packageDirs[e.name]:
				next = append(next, queued{filepath.Join(d.path, e.name), packageLevels})
			case libraryDirs[e.name] && filepath.Base(d.path) == "lib":
				// Its gems are three levels further: gems/3.3.0/gems/x.
				next = append(next, queued{filepath.Join(d.path, e.name), packageLevels + 3})
			case d.levels != 1:
				next = append(next, queued{filepath.Join(d.path, e.name), max(d.levels-1, 0)})
			}
		}
		return true
	}
	level, looked := []queued{{dir, 0}}, 0
	for depth := 0; len(level) > 0; depth++ {
		if depth > gitDirsDepth {
			return nil, nil, false
		}
		next = nil
		for _, d := range level {
			if looked++; looked > gitDirsCount || !look(d) {
				return nil, nil, false
			}
		}
		level = next
	}
	return dirs, files, true
}

// bytecodeOfHidden says name in dir is Python's compiled form of a
// source left out (left), which holds the same literals, or of none:
// __pycache__/X.TAG.pyc, of X.py in the directory above (which Python
// uses only while X.py is there), or X.pyc beside X.py, Python 2's. The
// host's Python writes it as it runs the source: a skill's config.py
// was left out for its API key, and its bytecode, shown as compiled
// code, held the key.
//
// A walk that begins at a __pycache__ (root: a PATH directory's and a
// toolchain's top are judged apart from their directories, each walked
// on its own) knows no verdict of the source above it, and judges it
// (holds): ~/bin's helper module settings.py was not shown, its
// bytecode in ~/bin/__pycache__ was, password and all.
func bytecodeOfHidden(root, dir, name string, left map[string]bool, holds func(dirfd int, dir, name string) bool) bool {
	if !strings.HasSuffix(name, ".pyc") {
		return false
	}
	if filepath.Base(dir) != "__pycache__" {
		return left[filepath.Join(dir, strings.TrimSuffix(name, "c"))]
	}
	module, _, _ := strings.Cut(name, ".")
	srcDir := filepath.Dir(dir)
	src := filepath.Join(srcDir, module+".py")
	if _, err := os.Lstat(src); err != nil || left[src] {
		return true
	}
	if dir != root {
		return false
	}
	fd, err := unix.Open(srcDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	defer unix.Close(fd)
	return holds(fd, srcDir, module+".py")
}

// A dirEntry is a directory's entry as its listing says: its name, and
// its type (unix.DT_*), read without following a link where the listing
// does not say.
type dirEntry struct {
	name string
	typ  uint8
}

// sortedEntries are the entries of the directory open at fd, sorted by
// name as os.ReadDir sorts them, read into buf; false where it cannot be
// read whole.
func sortedEntries(fd int, buf []byte) ([]dirEntry, bool) {
	var entries []dirEntry
	for {
		read, err := dirent.Read(fd, buf)
		if err != nil {
			return nil, false
		}
		if len(read) == 0 {
			break
		}
		for name, typ := range read.All() {
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if dirent.StatAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				typ = modeType(st.Mode)
			}
			entries = append(entries, dirEntry{string(name), typ})
		}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	return entries, true
}

// modeType is the listing's type (unix.DT_*) of a file of mode m.
func modeType(m uint32) uint8 {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_UNKNOWN
}

// gitDirItself hides dir whole when it is a git directory itself (a bare
// repository), which the walks of its entries, each shown alone, do not
// see.
func gitDirItself(dir string, role mount.Role, tilde func(string) string) (own []mount.Mount, leftOut []string, ok bool) {
	if des, _ := os.ReadDir(dir); !isGitDir(dir, des) {
		return nil, nil, false
	}
	own, leftOut, _ = cloneCredentials(dir, dir, role, tilde)
	return own, leftOut, true
}

// frozenView is what the sandbox gets of a directory shown entry by entry
// as the launch found it (showFrozen).
type frozenView struct {
	frozen  []string         // the directories so shown, outermost first
	entries []string         // their files and directories, each bound read-only
	links   []mount.HostPath // their links, made again as they are
	own     []mount.Mount    // over the git directories in them, empty ones
	leftOut []string
}

// showFrozen shows dir entry by entry as the launch found it, in a
// read-only directory of the sandbox's, so that what the host clones or
// writes there during the session (a clone's token in its configuration),
// which the launch did not look through, is not shown; each entry's git
// directories hidden, and an entry claudebox cannot look through whole
// not shown (named). A dir that is itself a git directory is hidden
// whole.
func showFrozen(dir string, role mount.Role, tilde func(string) string) frozenView {
	f := frozenView{frozen: []string{dir}}
	var ok bool
	if f.own, f.leftOut, ok = gitDirItself(dir, role, tilde); ok {
		return f
	}
	entries, links, creds := frozenEntries(dir)
	f.links = links
	for _, c := range creds {
		f.leftOut = append(f.leftOut, credentialFileNote(tilde(c)))
	}
	for _, e := range entries {
		if isDir(e) {
			own, leftOut, whole := cloneCredentials(e, e, role, tilde)
			if f.leftOut = append(f.leftOut, leftOut...); !whole {
				continue
			}
			f.own = append(f.own, own...)
		}
		f.entries = append(f.entries, e)
	}
	return f
}

// setupCredentials does for the directories the user's Claude Code setup
// names outside ~/.claude (a local marketplace, a plugin's directory:
// often a clone of a private repository) what pluginCredentials does for
// ~/.claude's: the git configurations in them that may hold a credential
// are shown as private copies without it (own), and a directory that
// cannot be looked through whole is not shown (unshown).
func setupCredentials(home string, setup []bind.Own) (kept []bind.Own, own []mount.Mount, leftOut []string, unshown []mount.Unshown) {
	tilde := func(p string) string { return tildePath(p, home) }
	for _, o := range setup {
		if fi, err := os.Stat(o.Src); err != nil || !fi.IsDir() {
			kept = append(kept, o)
			continue
		}
		copies, dropped, whole := cloneCredentials(o.Src, o.Dest, mount.HostFiles, tilde)
		if !whole {
			unshown = append(unshown, mount.Unshown{Path: o.Dest, What: strings.TrimSuffix(o.Why, ", read-only"), Reason: notLookedThrough})
			continue
		}
		kept, own, leftOut = append(kept, o), append(own, copies...), append(leftOut, dropped...)
	}
	return kept, own, leftOut, unshown
}

// Package toolchain works out what a PATH entry under $HOME needs shown,
// read-only, for its programs to run inside: the version manager's layout,
// where its links and #! lines lead, widened to the toolchain's root.
package toolchain

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// toolLayouts are what known version managers' entries need beyond the
// entry itself and what its links and #! lines lead to: their shims and
// proxies pick a version from files the entry does not point at. Paths are
// relative to $HOME; each is shown when it exists. Of a manager's root
// only what its programs run with is named, never the root whole: what
// else the user or a plugin keeps there (a token, mise's records of the
// configurations it trusts, asdf's downloads) is not shown. Caches
// (~/.cargo/registry, ~/go/pkg) are not here: they stay the user's --bind.
// rustup's settings, mise's configuration and ~/.tool-versions are
// private copies (configCopies), not roots. Of bun's global install only
// its packages: bun add -g runs there and reads a project's settings
// beside them (a bunfig.toml's or an .npmrc's registry token, an .env).
var toolLayouts = map[string][]string{
	".cargo/bin":              {".rustup/toolchains"},
	"go/bin":                  {"sdk"},
	".pyenv/shims":            pyenvParts,
	".pyenv/bin":              pyenvParts,
	".rbenv/shims":            rbenvParts,
	".rbenv/bin":              rbenvParts,
	".asdf/shims":             asdfParts,
	".asdf/bin":               asdfParts,
	".local/share/mise/shims": {".local/share/mise/installs", ".local/share/mise/plugins", ".local/share/mise/shims"},
	".volta/bin":              {".volta/tools"},
	".bun/bin":                {".bun/install/global/node_modules"},
}

// The parts of pyenv's, rbenv's and asdf's roots their shims run: the
// manager's own scripts, its plugins (git directories left out by
// notRun), the installed versions, the global version's file.
var (
	pyenvParts = []string{".pyenv/bin", ".pyenv/libexec", ".pyenv/plugins", ".pyenv/pyenv.d", ".pyenv/shims", ".pyenv/versions", ".pyenv/version"}
	rbenvParts = []string{".rbenv/bin", ".rbenv/libexec", ".rbenv/plugins", ".rbenv/rbenv.d", ".rbenv/shims", ".rbenv/versions", ".rbenv/version"}
	asdfParts  = []string{".asdf/asdf.sh", ".asdf/bin", ".asdf/lib", ".asdf/libexec", ".asdf/plugins", ".asdf/installs", ".asdf/shims"}
)

// configLayouts are the configuration files a known layout's shims read
// for the version they pick, each shown as a private copy of what is
// known harmless in it (configCopies).
var configLayouts = map[string][]string{
	".cargo/bin":              {".rustup/settings.toml"},
	".asdf/shims":             {".tool-versions"},
	".asdf/bin":               {".tool-versions"},
	".local/share/mise/shims": {".config/mise", ".tool-versions"},
}

// layoutNames say which manager a known layout belongs to, for a root's why.
var layoutNames = map[string]string{
	".cargo/bin": "rustup's toolchains", "go/bin": "the Go SDKs of golang.org/dl",
	".pyenv/shims": "pyenv's versions", ".pyenv/bin": "pyenv's versions",
	".asdf/shims": "asdf's installs", ".asdf/bin": "asdf's installs",
	".rbenv/shims": "rbenv's versions", ".rbenv/bin": "rbenv's versions",
	".local/share/mise/shims": "mise's installs", ".volta/bin": "volta's tools",
	".bun/bin": "bun's global packages",
}

// Probe works out, for each PATH entry under $HOME, what to show
// so that its programs run: the entry; where its programs' symlinks and #!
// interpreters lead, widened to the toolchain's root (the directory above a
// bin/ at least two levels below $HOME, or an npm package); and the known
// layouts above. It never looks into what the sandbox can write (visible
// already, and a link planted there must not widen the sandbox): the
// project and the read-write binds. Entries it cannot make work are
// problems, for --check. hidden are the paths in the roots that are left
// out of their mounts, as secrets are: what their programs do not run
// with (notRun). copies are the private copies of the configuration
// the layouts' shims read (configCopies). programs are the directories
// of programs shown (programDirs), whose directories inside the caller
// judges as an installed directory's.
func Probe(home, pathEnv string, project instance.Project, binds []mount.BindSpec, state []string, secrets map[string]bool) (ts []mount.Toolchain, problems []mount.PathProblem, hidden []string, copies []mount.Mount, programs []string) {
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
	seen, copied := map[string]bool{}, map[string]bool{}
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
		// The entry, widened to its toolchain's root when it is a bin/ or
		// in an npm package; never a path in it.
		root := toolRoot(home, filepath.Join(real, "x"))
		if paths.Within(root, real) {
			root = real
		}
		t := mount.Toolchain{Entry: entry, Roots: []mount.Root{{Path: root, Why: "on your PATH, read-only"}}}
		// The roots a bin/ widened to, shown by their layout only.
		// linked are the roots a program's link or #! line leads to.
		widened, linked := map[string]bool{}, map[string]bool{}
		if root != real {
			t.Roots[0].Why = "the toolchain of " + entry + ", on your PATH, read-only"
			widened[root] = filepath.Base(real) == "bin"
		}
		rel, _ := filepath.Rel(home, real)
		for _, p := range toolLayouts[rel] {
			if p := filepath.Join(home, p); paths.Exists(p) {
				t.Roots = append(t.Roots, mount.Root{Path: p, Why: "what " + entry + " runs: " + layoutNames[rel] + ", read-only"})
			}
		}
		for _, p := range configLayouts[rel] {
			if p := filepath.Join(home, p); !copied[p] && refusal(p) == "" {
				copied[p] = true
				copies = append(copies, configCopies(p, refusal)...)
			}
		}
		for _, target := range entryTargets(real) {
			if !paths.Within(target, home) || paths.Within(target, real) {
				continue
			}
			r := toolRoot(home, target)
			widened[r] = widened[r] || filepath.Base(filepath.Dir(target)) == "bin" && r == filepath.Dir(filepath.Dir(target))
			linked[r] = true
			t.Roots = append(t.Roots, mount.Root{Path: r, Why: "what " + entry + "'s programs lead to, read-only"})
		}
		t.Roots = slices.DeleteFunc(outermost(t.Roots), func(r mount.Root) bool {
			reason := refusal(r.Path)
			if reason != "" {
				problems = append(problems, mount.PathProblem{Entry: entry, Reason: r.Path + ", which a program there needs, is not shown: " + reason})
			}
			return reason != ""
		})
		for _, r := range t.Roots {
			hidden = append(hidden, notRun(r.Path)...)
			for _, dir := range programDirs(r.Path, real, widened[r.Path], linked[r.Path]) {
				hidden = append(hidden, NotPrograms(dir)...)
				programs = append(programs, dir)
			}
			if widened[r.Path] && !isPrefix(r.Path) {
				hidden = append(hidden, notLayout(r.Path)...)
				if VendorToolchain(r.Path) {
					hidden = append(hidden, VendorConfHidden(r.Path)...)
				} else {
					hidden = append(hidden, layoutCredentials(r.Path)...)
				}
			}
			// A file a link leads to (~/.local/bin/backup to a dotfiles
			// repository's script) is judged as the entry's own are.
			if fi, err := os.Lstat(r.Path); err == nil && linked[r.Path] && fi.Mode().IsRegular() && !program(filepath.Dir(r.Path), fi) {
				hidden = append(hidden, r.Path)
			}
		}
		ts = append(ts, t)
	}
	return ts, problems, hidden, copies, programs
}

// maxScriptRead bounds what of a program on PATH is read whole at once to
// look for a credential written in it: a larger file is read only for
// its #! line, and a script (an installer with its payload after it) up
// to maxLargeScript; a binary is not read further.
const maxScriptRead = 256 << 10

// maxLargeScript bounds what of a large script on PATH is read to judge
// it: a larger one is not shown, unjudged.
const maxLargeScript = 16 << 20

// NotPrograms are the files of a PATH entry of the user's or an
// administrator's (dir, the entry itself, not a toolchain's root it
// widens to: ~/bin, ~/.local/bin, /usr/local/bin) that the sandbox is not
// shown: what is no program (not executable: a token.txt, an .env the
// scripts source, which no PATH lookup runs), and a script with a
// credential written in it (`export GITHUB_TOKEN=ghp_…`, a webhook's
// URL), as a hook's script of the same text is not shown.
func NotPrograms(dir string) []string {
	des, _ := os.ReadDir(dir)
	var out []string
	for _, de := range des {
		fi, err := de.Info()
		if err != nil || !de.Type().IsRegular() {
			continue
		}
		if !program(dir, fi) {
			out = append(out, filepath.Join(dir, de.Name()))
		}
	}
	return out
}

// program says the regular file fi in dir is one a PATH lookup runs and
// may be shown: executable, and no script with a credential written in it.
func program(dir string, fi os.FileInfo) bool {
	return fi.Mode()&0o111 != 0 && !scriptHoldsCredential(dir, fi.Name())
}

// programDirs are the directories of programs of root, a root of the PATH
// entry real (widened when a bin/ widened to it, linked when a program's
// link or #! line leads there), whose files NotPrograms judges: the entry
// itself; a bin/ or sbin/ a program's link leads to (~/tools/bin); a
// widened root's bin/ and sbin/ (a link into ~/code/ops/bin), as the
// entry's own (before, only the entry was judged: a token.txt beside a
// linked program was readable). A node or python prefix's are its
// package manager's, as the rest of it (notRun); a version manager's
// layout is its own (toolLayouts).
func programDirs(root, real string, widened, linked bool) []string {
	switch {
	case root == real:
		return []string{real}
	case isPrefix(root):
		return nil
	case widened:
		var dirs []string
		for _, d := range []string{"bin", "sbin"} {
			if fi, err := os.Lstat(filepath.Join(root, d)); err == nil && fi.IsDir() {
				dirs = append(dirs, filepath.Join(root, d))
			}
		}
		return dirs
	}
	if fi, err := os.Lstat(root); err == nil && linked && fi.IsDir() && (filepath.Base(root) == "bin" || filepath.Base(root) == "sbin") && !isPrefix(filepath.Dir(root)) {
		return []string{root}
	}
	return nil
}

// notLayout are the entries of a toolchain's root that a bin/ on PATH
// widened to, when it is no node or python prefix (~/work/devtools above
// ~/work/devtools/bin, an SDK's directory), that the sandbox is not
// shown: what is not its layout. Of its directories, those layoutDirs
// names (its git directory notRun leaves out already); of its files, its
// programs (as NotPrograms judges them) and toolFiles. So a checkout of
// one's own tools keeps its .env, its config/, its secrets/ and its notes
// outside.
func notLayout(root string) []string {
	des, _ := os.ReadDir(root)
	var out []string
	for _, de := range des {
		name := de.Name()
		switch {
		case name == ".git", de.Type()&os.ModeSymlink != 0:
		case strings.HasPrefix(name, "."):
			out = append(out, filepath.Join(root, name))
		case de.IsDir():
			if !layoutDirs[name] && !strings.HasPrefix(name, "erts-") {
				out = append(out, filepath.Join(root, name))
			}
		case de.Type().IsRegular():
			fi, err := de.Info()
			program := err == nil && fi.Mode()&0o111 != 0 && !scriptHoldsCredential(root, name)
			if !program && !toolFile(name) {
				out = append(out, filepath.Join(root, name))
			}
		default:
			out = append(out, filepath.Join(root, name))
		}
	}
	return out
}

// layoutDirs are the directories of a toolchain's root its programs run
// with: a prefix's (bin, lib, libexec, share, include, man), a JDK's
// (conf, jmods, legal; JDK 8's jre, where its java finds the JVM), Go's
// (src, pkg, misc, api, doc, test), Maven's boot (mvn's class loader),
// Erlang/OTP's releases (beside its erts-VERSION, where erl runs). Not etc,
// where a prefix keeps its settings (npm's global npmrc with a registry's
// token), nor a directory of one's own (config, secrets, notes).
var layoutDirs = map[string]bool{
	"bin": true, "sbin": true, "lib": true, "lib32": true, "lib64": true, "libexec": true, "share": true, "include": true, "man": true,
	"conf": true, "jmods": true, "legal": true, "jre": true,
	"src": true, "pkg": true, "misc": true, "api": true, "doc": true, "test": true,
	"boot": true, "releases": true,
}

// VendorToolchain says root is a toolchain as its vendor lays it out, whose
// layout's files are the vendor's: a JDK (its release naming
// JAVA_VERSION), Go (its go.env, or a VERSION naming go), Erlang/OTP (an
// erts-VERSION), Maven (its boot and bin/mvn), GHC (its lib/ghc-VERSION,
// as ghcup installs it), Flutter (the Dart SDK in its bin/cache), CUDA
// (its version.json naming cuda, /usr/local/cuda's), or a
// language's standard library where its programs find it (Rust's
// lib/rustlib, Ruby's lib/ruby, Julia's lib/julia, Dart's lib/_internal,
// OCaml's lib/ocaml, an opam switch's, which opam env puts on PATH):
// thousands of files each, which its programs run with. Judged as a root
// of one's own, past maxLayoutFiles a directory of them is not shown,
// and the toolchain does not run inside (an opam switch's 25,000 files
// in lib/ took 9 s to judge, and lib/ was hidden).
func VendorToolchain(root string) bool {
	head := func(name string) []byte {
		b, _ := untrusted.ReadFile(root, name, 4096)
		return b
	}
	erts, _ := filepath.Glob(filepath.Join(root, "erts-*"))
	ghc, _ := filepath.Glob(filepath.Join(root, "lib", "ghc-*"))
	return bytes.Contains(head("release"), []byte("JAVA_VERSION=")) || paths.Exists(filepath.Join(root, "go.env")) ||
		bytes.HasPrefix(head("VERSION"), []byte("go")) || len(erts) > 0 || len(ghc) > 0 ||
		paths.Exists(filepath.Join(root, "boot")) && paths.Exists(filepath.Join(root, "bin", "mvn")) ||
		isDir(filepath.Join(root, "bin", "cache", "dart-sdk")) || bytes.Contains(head("version.json"), []byte(`"cuda"`)) ||
		slices.ContainsFunc([]string{"rustlib", "ruby", "julia", "_internal", "ocaml"}, func(lib string) bool { return isDir(filepath.Join(root, "lib", lib)) })
}

// isDir says path is a directory, not through a link.
func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// maxLayoutFiles bounds the files of a root of one's own judged for a
// credential; past it, what was not judged is not shown.
const maxLayoutFiles = 20000

// layoutCredentials are the files of the layout's directories of root,
// a root of one's own that a bin/ on PATH widened to (~/code/ops above
// ~/code/ops/bin: no vendor's toolchain), that the sandbox is not shown:
// each named as credentials are kept (bind.CredentialFile) or whose text
// has one written in it, judged as a setting's or a source's (its lib/'s
// export DEPLOY_TOKEN=…, its conf/'s password = …, its doc/'s runbook's
// bearer token were readable); a file of text over 1 MiB, which is not
// read to judge it; past maxLayoutFiles, the directories not judged
// whole. A binary file is judged by its kind (credential.InBinary: its
// lib/'s state.sqlite with a deploy token was shown unread).
func layoutCredentials(root string) []string {
	des, _ := os.ReadDir(root)
	var dirs []string
	for _, de := range des {
		if de.IsDir() && layoutDirs[de.Name()] {
			dirs = append(dirs, filepath.Join(root, de.Name()))
		}
	}
	return judgedFiles(dirs, func(dir, name string) bool {
		return bind.CredentialFile(name) || layoutFileHoldsCredential(dir, name) || bytecodeOfHidden(dir, name)
	})
}

// VendorConfHidden are the files of a vendor's toolchain (root, as
// VendorToolchain says) in its directories of settings, conf/ and etc/,
// that the sandbox is not shown, the rest of its layout being shown
// whole: each named as credentials are kept, or judged as a vendor's
// settings are (credential.InVendorSettings, its comments as examples),
// a binary one by its kind; text over 1 MiB, unread; past
// maxLayoutFiles, the directories not judged whole. An organization's
// Maven keeps its repositories' passwords in conf/settings.xml, and a
// JDK's conf/management/jmxremote.password the JMX agent's, which were
// readable with the rest of the toolchain.
func VendorConfHidden(root string) []string {
	var dirs []string
	for _, name := range []string{"conf", "etc"} {
		if isDir(filepath.Join(root, name)) {
			dirs = append(dirs, filepath.Join(root, name))
		}
	}
	return judgedFiles(dirs, func(dir, name string) bool {
		return bind.CredentialFile(name) || verdict.Judge("vendor-conf", dir, name, func(f verdict.File) bool {
			if head := f.Head(credential.BinaryHead); credential.Binary(head) {
				return credential.InBinary(name, head, f.Read, vendorTextHolds)
			}
			b, err := f.Read(maxLayoutText)
			return err != nil || vendorTextHolds(name, b)
		})
	})
}

// judgedFiles are the regular files below dirs (no link followed, no git
// directory entered) that holds says are not shown, and each of dirs
// that cannot be judged whole: deeper than 16 levels, or past
// maxLayoutFiles files in all (one the user cannot read is passed over:
// it is no more readable inside).
func judgedFiles(dirs []string, holds func(dir, name string) bool) []string {
	var out []string
	budget := maxLayoutFiles
	var walk func(dir string, depth int) bool
	walk = func(dir string, depth int) bool {
		des, err := os.ReadDir(dir)
		if err != nil || depth > 16 {
			return err != nil
		}
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			switch {
			case de.Name() == ".git", de.Type()&os.ModeSymlink != 0:
			case de.IsDir():
				if !walk(p, depth+1) {
					return false
				}
			case de.Type().IsRegular():
				if budget--; budget < 0 {
					return false
				}
				if holds(dir, de.Name()) {
					out = append(out, p)
				}
			}
		}
		return true
	}
	for _, d := range dirs {
		if budget < 0 || !walk(d, 0) {
			out = append(out, d)
		}
	}
	return out
}

// bytecodeOfHidden says name in dir is Python's compiled form of a
// source layoutCredentials leaves out, which holds the same literals, or
// of none: __pycache__/X.TAG.pyc, of X.py in the directory above (which
// Python uses only while X.py is there), or X.pyc beside X.py, Python
// 2's. The host's Python writes it as it runs the source: a checkout's
// lib/settings.py was left out for its password, and its bytecode,
// shown as a binary file, held it.
func bytecodeOfHidden(dir, name string) bool {
	if !strings.HasSuffix(name, ".pyc") {
		return false
	}
	srcDir, src := dir, strings.TrimSuffix(name, "c")
	if filepath.Base(dir) == "__pycache__" {
		module, _, _ := strings.Cut(name, ".")
		srcDir, src = filepath.Dir(dir), module+".py"
		if _, err := os.Lstat(filepath.Join(srcDir, src)); err != nil {
			return true
		}
	}
	return bind.CredentialFile(src) || paths.Exists(filepath.Join(srcDir, src)) && layoutFileHoldsCredential(srcDir, src)
}

// layoutFileHoldsCredential says the file name in dir, of a root of one's
// own, is text with a credential written in it, or text too large to
// judge.
func layoutFileHoldsCredential(dir, name string) bool {
	return verdict.Judge("layout-file", dir, name, func(f verdict.File) bool {
		if head := f.Head(credential.BinaryHead); credential.Binary(head) {
			return credential.InBinary(name, head, f.Read, layoutTextHolds)
		}
		b, err := f.Read(maxLayoutText)
		return errors.Is(err, untrusted.ErrTooLarge) || err == nil && layoutTextHolds(name, b)
	})
}

// maxLayoutText bounds what of a text file of a toolchain's layout is
// read to judge it: a larger one is not shown, unjudged.
const maxLayoutText = 1 << 20

// layoutTextHolds says text of a root of one's own (a file, or one in an
// archive there) holds a credential, judged as settings and as code are,
// or is too large to judge.
func layoutTextHolds(_ string, b []byte) bool {
	return len(b) > maxLayoutText || credential.InSettings(b) || credential.InCode(b)
}

// vendorTextHolds says text of a vendor's settings (a file, or one in an
// archive there) holds a credential (credential.InVendorSettings), or is
// too large to judge.
func vendorTextHolds(_ string, b []byte) bool {
	return len(b) > maxLayoutText || credential.InVendorSettings(b)
}

// toolFile says a file of that name at a toolchain's root is part of its
// layout: what its programs read (Go's VERSION and go.env, a JDK's
// release) or its licence.
func toolFile(name string) bool {
	switch name {
	case "VERSION", "go.env", "release":
		return true
	}
	return strings.HasPrefix(name, "LICENSE") || strings.HasPrefix(name, "NOTICE") || strings.HasPrefix(name, "COPYING")
}

// scriptHoldsCredential says the file name in dir is a script with a
// credential written in it, or one too large to judge: one with a #!
// line, or any text (no NUL in its first 8 KiB), which a shell runs as a
// script all the same (execvp falls back to /bin/sh: ~/bin/deploy
// with no #! line and its export DEPLOY_TOKEN=… was shown as a binary
// program is, unread); a binary by its kind (credential.InBinary: a
// program, an executable jar holding none).
func scriptHoldsCredential(dir, name string) bool {
	return verdict.Judge("path-script", dir, name, func(f verdict.File) bool {
		if head := f.Head(credential.BinaryHead); string(f.Head(2)) != "#!" && credential.Binary(head) {
			return credential.InBinary(name, head, f.Read, layoutTextHolds)
		}
		b, err := f.Read(maxScriptRead)
		if errors.Is(err, untrusted.ErrTooLarge) {
			b, err = f.Read(maxLargeScript)
			return errors.Is(err, untrusted.ErrTooLarge) || err == nil && credential.InScript(b)
		}
		return err == nil && credential.InScript(b)
	})
}

// prefixParts are the entries of a node or python prefix (a version
// directory, a virtualenv) that its programs run with, and its notices.
// The rest is the user's configuration: npm's global etc/npmrc (where
// npm config set --global keeps a registry's token), a pip.conf (an
// index's password).
var prefixParts = []string{"bin", "include", "lib", "lib64", "libexec", "share", "pyvenv.cfg", "envs", "README.md", "LICENSE", "CHANGELOG.md"}

// maxPrefixLook bounds the directories looked through for prefixes below
// one root.
const maxPrefixLook = 2000

// isPrefix says dir is a node or python prefix.
func isPrefix(dir string) bool {
	if paths.Exists(filepath.Join(dir, "bin", "node")) || paths.Exists(filepath.Join(dir, "lib", "node_modules")) || paths.Exists(filepath.Join(dir, "pyvenv.cfg")) {
		return true
	}
	pythons, _ := filepath.Glob(filepath.Join(dir, "lib", "python*"))
	return len(pythons) > 0
}

// notRun are the paths at or below a toolchain's root that its programs
// do not run with, left out of its mount: of each node or python prefix
// there, three levels down at most (mise's installs/node/20, volta's
// tools/image/node/20) and in its envs/, what prefixParts does not name;
// every git directory there (asdf's and mise's plugins are clones).
// A prefix is so laid out entry by entry, its etc/ named even when
// missing: what the host adds to it during the session is not shown.
func notRun(root string) []string {
	var hidden []string
	budget := maxPrefixLook
	var look func(dir string, depth int)
	look = func(dir string, depth int) {
		if budget--; budget < 0 {
			return
		}
		des, _ := os.ReadDir(dir)
		prefix := isPrefix(dir)
		if prefix && !paths.Exists(filepath.Join(dir, "etc")) {
			// Named though missing, so that the prefix is laid out entry
			// by entry all the same: the etc/npmrc the host's npm config
			// set --global writes during the session is not shown either.
			hidden = append(hidden, filepath.Join(dir, "etc"))
		}
		if prefix {
			hidden = append(hidden, activationSecrets(filepath.Join(dir, "bin"))...)
		}
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			switch {
			case de.Name() == ".git":
				// A plugin's or the manager's clone: its config holds
				// the remote's URL, a token in it for a private one.
				hidden = append(hidden, p)
			case prefix && de.Name() == "envs" && de.IsDir():
				look(p, 1)
			case prefix && !slices.Contains(prefixParts, de.Name()):
				hidden = append(hidden, p)
			case !prefix && depth > 0 && de.IsDir():
				look(p, depth-1)
			}
		}
	}
	look(root, 3)
	return hidden
}

// activationSecrets are the scripts of bin, a prefix's, with a credential
// written in them (scriptHoldsCredential, executable or not): a
// virtualenv's variables are set there, a tutorial's export SECRET_KEY=…
// appended to bin/activate, virtualenvwrapper's bin/postactivate (they
// were shown with the package manager's programs, unjudged).
func activationSecrets(bin string) []string {
	des, _ := os.ReadDir(bin)
	var out []string
	for _, de := range des {
		if de.Type().IsRegular() && scriptHoldsCredential(bin, de.Name()) {
			out = append(out, filepath.Join(bin, de.Name()))
		}
	}
	return out
}

// configCopies are the private copies of a configuration path a layout's
// shims read for the versions they pick: of ~/.tool-versions its `tool
// version` lines; of rustup's settings.toml the toolchains it names
// (rustupSettings); of mise's configuration directory (at most two levels:
// conf.d/) each TOML file rebuilt from its keys known harmless. Never a
// file as written: a comment (a line turned off, `# DEPLOY_KEY = "…"`, a
// token noted beside a version) has no shape to look for and no tool
// reads it. A file that cannot be read as its tool does is not copied.
// ~/.tool-versions may be a link (a dotfiles manager's), read where it
// leads unless that is refused (a secret).
func configCopies(path string, refusal func(real string) string) []mount.Mount {
	switch filepath.Base(path) {
	case ".tool-versions":
		b, real, err := untrusted.ReadResolved(path, 1<<20)
		if err != nil || refusal(real) != "" {
			return nil
		}
		return []mount.Mount{{Kind: mount.RoBindData, Dest: path, Content: toolVersions(b), Why: "the versions your version managers pick, a private copy of its tool and version lines", Role: mount.Tools}}
	case "settings.toml":
		b, real, err := untrusted.ReadResolved(path, 1<<20)
		content, ok := rustupSettings(b)
		if err != nil || !ok || refusal(real) != "" {
			return nil
		}
		return []mount.Mount{{Kind: mount.RoBindData, Dest: path, Content: content, Why: "the toolchains rustup's proxies run, a private copy of its settings", Role: mount.Tools}}
	}
	var copies []mount.Mount
	var look func(dir string, depth int)
	look = func(dir string, depth int) {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			switch {
			case de.IsDir() && depth > 0:
				look(p, depth-1)
			case de.Type().IsRegular() && filepath.Ext(p) == ".toml":
				b, err := untrusted.ReadFile(dir, de.Name(), 1<<20)
				if content, ok := miseConfig(b); err == nil && ok {
					copies = append(copies, mount.Mount{Kind: mount.RoBindData, Dest: p, Content: content, Why: "mise's configuration, a private copy of its tools, aliases and settings (not its [env], tasks, hooks or comments)", Role: mount.Tools})
				}
			}
		}
	}
	look(path, 1)
	return copies
}

// toolVersions rebuilds a .tool-versions file from its `tool version…`
// lines, each field of a version's characters, comments dropped.
func toolVersions(b []byte) string {
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) >= 2 && !slices.ContainsFunc(fields, func(f string) bool { return !versionLike(f) }) {
			out.WriteString(strings.Join(fields, " ") + "\n")
		}
	}
	return out.String()
}

// versionLike says s is written as a tool's name or version is (20,
// 3.12.1, ref:main, path:~/x, npm:@scope/pkg), nothing else.
func versionLike(s string) bool {
	return s != "" && len(s) <= 200 && !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._-:/@+~", r))
	})
}

// miseConfig rebuilds a mise configuration file from what mise reads in
// it that is known to hold no credential: [tools] (each a version, or the
// versions, not a tool's options: its install_env, postinstall), its
// aliases, [settings] of a switch's or a number's value or a version's
// characters under a name not of a credential, plugins whose URL has no
// user in it, min_version. Its env (the variables it sets, a token among
// them), vars, tasks and hooks are not. ok is false for a file that is
// not TOML or whose copy still holds a credential.
func miseConfig(b []byte) (content string, ok bool) {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return "", false
	}
	kept := map[string]any{}
	keep := func(key string, v any) {
		if m, isTable := v.(map[string]any); !isTable || len(m) > 0 {
			kept[key] = v
		}
	}
	for key, v := range top {
		switch key {
		case "tools":
			keep(key, tableOf(v, func(_ string, v any) any {
				if t, isTable := v.(map[string]any); isTable {
					v = t["version"]
				}
				return versions(v)
			}))
		case "alias", "tool_alias":
			keep(key, tableOf(v, func(_ string, v any) any {
				if t := tableOf(v, func(_ string, v any) any { return versions(v) }); len(t) > 0 {
					return t
				}
				return nil
			}))
		case "settings":
			keep(key, settings(v))
		case "plugins":
			keep(key, tableOf(v, func(_ string, v any) any {
				if u, isString := v.(string); isString && !strings.Contains(u, "@") && versionLike(u) {
					return u
				}
				return nil
			}))
		case "min_version":
			if v := versions(v); v != nil {
				kept[key] = v
			}
		}
	}
	out, err := toml.Marshal(kept)
	if err != nil || claudesettings.HasCommandCredential(out) {
		return "", false
	}
	return string(out), true
}

// rustupSettings rebuilds rustup's settings.toml from the keys rustup
// reads there, each of a version's characters: the default toolchain and
// host, the profile, the file's version, and the toolchain each directory
// overrides with. It is written in rustup's own form, every string in
// double quotes. ok is false for a file that is not TOML.
func rustupSettings(b []byte) (content string, ok bool) {
	var top map[string]any
	if toml.Unmarshal(b, &top) != nil {
		return "", false
	}
	var out strings.Builder
	for _, key := range []string{"version", "default_host_triple", "default_toolchain", "profile", "auto_self_update"} {
		if v, isString := top[key].(string); isString && versionLike(v) {
			fmt.Fprintf(&out, "%s = %q\n", key, v)
		}
	}
	overrides := tableOf(top["overrides"], func(_ string, v any) any {
		if s, isString := v.(string); isString && versionLike(s) {
			return s
		}
		return nil
	})
	if len(overrides) > 0 {
		out.WriteString("\n[overrides]\n")
		for _, dir := range slices.Sorted(maps.Keys(overrides)) {
			fmt.Fprintf(&out, "%q = %q\n", dir, overrides[dir])
		}
	}
	return out.String(), true
}

// tableOf is the table v with each value as keep makes it, those it makes
// nil and those under a key not written as a name is dropped; nil when v
// is not a table.
func tableOf(v any, keep func(key string, v any) any) map[string]any {
	t, isTable := v.(map[string]any)
	if !isTable {
		return nil
	}
	kept := map[string]any{}
	for k, v := range t {
		if v := keep(k, v); v != nil && versionLike(k) {
			kept[k] = v
		}
	}
	return kept
}

// versions is v when it is a version or a list of versions, else nil.
func versions(v any) any {
	switch v := v.(type) {
	case string:
		if versionLike(v) {
			return v
		}
	case []any:
		if !slices.ContainsFunc(v, func(e any) bool { s, isString := e.(string); return !isString || !versionLike(s) }) {
			return v
		}
	}
	return nil
}

// credentialName says a setting's name is one a credential is kept under.
// Words, not a regular expression compiled before main: every claudebox
// process (the guard watcher, the relay inside) would pay for it.
func credentialName(key string) bool {
	key = strings.ToLower(key)
	return slices.ContainsFunc([]string{"token", "secret", "key", "pass", "auth", "cred", "url"}, func(w string) bool { return strings.Contains(key, w) })
}

// settings keeps of mise's [settings] (and its tables: [settings.python])
// the switches, numbers and versions-like values whose name is not a
// credential's.
func settings(v any) any {
	return tableOf(v, func(key string, v any) any {
		if credentialName(key) {
			return nil
		}
		switch v := v.(type) {
		case bool, int64, float64:
			return v
		case map[string]any:
			if t := settings(v).(map[string]any); len(t) > 0 {
				return t
			}
			return nil
		}
		return versions(v)
	})
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

// shebang returns the interpreter a script's #! line names, or "". Only
// a regular file is read, opened without waiting: a program on PATH may
// lead into a project, where a session can leave a FIFO.
func shebang(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
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

package probe

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/internal/dirent"
	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/toolchain"
	"github.com/claudebox/claudebox/untrusted"
)

// usersOwnDepth bounds the walk of /etc's entries: a directory deeper is
// hidden whole where not every user may read it, as one unwalked is.
const usersOwnDepth = 32

// maxEtcCopy is the largest file of /etc the sandbox gets a copy of,
// rather than a bind (passwd, hosts, the linker's cache: tens of KiB).
const maxEtcCopy = 1 << 20

// etcShown finds the entries of mount.EtcShown in the system
// configuration etc: those that exist (a link as it is, what it leads to
// is judged where it lies; an entry on the way to which a link lies is
// not one), what of them the user may read and not every user may
// (usersOwn), and the rest of etc's entries, not shown (a directory of
// which some entries are shown is named by the others).
func etcShown(etc string) (shown []mount.HostPath, own []mount.HostEntry, leftOut []string) {
	var entries []string
	for _, rel := range mount.EtcShown {
		found, _ := filepath.Glob(filepath.Join(etc, rel))
		entries = append(entries, found...)
	}
	for _, p := range entries {
		if !realDirs(etc, filepath.Dir(p)) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			if link, err := os.Readlink(p); err == nil {
				shown = append(shown, mount.HostPath{Path: p, Link: link})
			}
		case p == filepath.Join(etc, mount.EtcClaude):
			// A private copy (managedClaudeCopy), not the directory.
		case fi.IsDir() && matchesAny(phpConfigDirs, strings.TrimPrefix(p, etc+"/")):
			// A private copy (phpDirCopy).
		case fi.IsDir(), fi.Mode().IsRegular():
			entry := mount.HostPath{Path: p}
			hidden := usersOwn(p)
			if fi.Mode().IsRegular() && fi.Mode().Perm()&0o004 != 0 && fi.Size() <= maxEtcCopy && len(hidden) == 0 {
				entry.Checked = untrusted.IDOf(fi)
			}
			rel, _ := filepath.Rel(etc, p)
			if entry.Checked == (untrusted.FileID{}) && rebuilt(rel) {
				// Bound, it would cross as it is.
				leftOut = append(leftOut, rel)
				continue
			}
			if fi.Mode().IsRegular() && etcScript(rel) && (entry.Checked == (untrusted.FileID{}) || scriptHoldsCredential(p)) {
				leftOut = append(leftOut, rel)
				continue
			}
			shown = append(shown, entry)
			own = append(own, hidden...)
		}
	}
	slices.SortFunc(own, func(a, b mount.HostEntry) int { return strings.Compare(a.Path, b.Path) })
	var list func(rel string)
	list = func(rel string) {
		names, _ := readDirNames(filepath.Join(etc, rel))
		for _, name := range names {
			r := filepath.Join(rel, name)
			switch entry, above := etcMatch(r); {
			case entry:
			case above:
				list(r)
			default:
				leftOut = append(leftOut, r)
			}
		}
	}
	list("")
	slices.Sort(leftOut)
	return shown, own, leftOut
}

// managedClaudeDirs are what Claude Code reads of the managed policy's
// .claude: skills, commands, agents, rules and output styles.
var managedClaudeDirs = map[string]bool{"skills": true, "commands": true, "agents": true, "rules": true, "output-styles": true}

// managedClaudeCopy reads the managed policy's .claude at dir (in the
// system configuration etc) for its private copy: of its entries, the
// directories of managedClaudeDirs; in them, directories every user may
// enter, files every user may read, links made again as they are. What
// else lies there is left out (leftOut, paths in etc): a file named as
// credentials are kept (credentialFile: a skill's .env, its token.json),
// one with a credential written in it (a script's bearer token, judged
// as a hook's script is), a git directory (a clone's configuration holds
// its remote's token, its objects every file its history had), one of
// managedClaudeDirs itself among them, what only the user's groups may
// read, a directory that cannot be read whole within the bounds of
// ~/.claude's copies, and every other entry. ok is false where dir is
// no directory to copy.
func managedClaudeCopy(etc, dir string) (c mount.DirCopy, leftOut []string, ok bool) {
	out := func(full string) copyFate {
		rel, _ := filepath.Rel(etc, full)
		leftOut = append(leftOut, rel)
		return leaveOut
	}
	w := treeCopy{DirCopy: mount.DirCopy{Path: dir}, policy: copyPolicy{
		levels: dirCopyDepth,
		dir: func(full string, fi fs.FileInfo, des []os.DirEntry, whole bool) copyFate {
			switch {
			case !whole:
				return refuseCopy
			case fi.Mode().Perm()&0o005 != 0o005 || isGitDir(full, des):
				return out(full)
			}
			return copyEntry
		},
		file: func(full string, fi fs.FileInfo, read func() ([]byte, error)) (mount.DirCopyEntry, copyFate) {
			switch {
			case !fi.Mode().IsRegular():
				return mount.DirCopyEntry{}, leaveOut
			case fi.Mode().Perm()&0o004 == 0 || credentialFile(full):
				return mount.DirCopyEntry{}, out(full)
			}
			b, err := read()
			if err != nil || claudesettings.HasCommandCredential(b) {
				return mount.DirCopyEntry{}, out(full)
			}
			return mount.DirCopyEntry{Content: string(b), Executable: fi.Mode()&0o111 != 0}, copyEntry
		},
	}}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o005 != 0o005 {
		return w.DirCopy, nil, false
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return w.DirCopy, nil, false
	}
	for _, de := range des {
		full := filepath.Join(dir, de.Name())
		fi, err := os.Lstat(full)
		switch {
		case err != nil:
			continue
		case !fi.IsDir() || !managedClaudeDirs[de.Name()]:
			out(full)
			continue
		}
		// Judged as a directory below it is: skills that are a bare
		// repository are a git directory too.
		sub, err := w.list(de.Name())
		switch w.policy.dir(full, fi, sub, err == nil) {
		case leaveOut:
		case refuseCopy:
			out(full)
		default:
			entries, sized, dropped := len(w.Entries), w.size, len(leftOut)
			w.Entries = append(w.Entries, mount.DirCopyEntry{Rel: de.Name(), Dir: true})
			if !w.walk(de.Name(), sub, 1) {
				// Not read whole: none of it is shown.
				w.Entries, w.size, leftOut = w.Entries[:entries], sized, leftOut[:dropped]
				out(full)
			}
		}
	}
	return w.DirCopy, leftOut, true
}

// etcMatch says whether rel is an entry of mount.EtcShown (where a
// pattern's * stands for a version, as in Debian's php/8.2/cli), or lies
// above one.
func etcMatch(rel string) (entry, above bool) {
	parts := strings.Split(rel, "/")
	for _, pattern := range etcPatterns() {
		if len(pattern) < len(parts) {
			continue
		}
		matches := true
		for i, part := range parts {
			if !pattern[i].match(part) {
				matches = false
				break
			}
		}
		if matches && len(pattern) == len(parts) {
			entry = true
		} else if matches {
			above = true
		}
	}
	return entry, above
}

// etcPatterns are mount.EtcShown's patterns, split at their slashes once:
// /etc's every entry is matched against each.
var etcPatterns = sync.OnceValue(func() [][]namePattern {
	var out [][]namePattern
	for _, shown := range mount.EtcShown {
		var pattern []namePattern
		for _, part := range strings.Split(shown, "/") {
			pattern = append(pattern, namePattern{part, strings.ContainsAny(part, `*?[\`)})
		}
		out = append(out, pattern)
	}
	return out
})

// namePattern is one name of a path's pattern, as path.Match reads it;
// most are plain names, which match only themselves.
type namePattern struct {
	pattern string
	meta    bool
}

func (n namePattern) match(name string) bool {
	if !n.meta {
		return n.pattern == name
	}
	ok, _ := path.Match(n.pattern, name)
	return ok
}

// rebuilt says rel is an entry of mount.EtcRebuilt.
func rebuilt(rel string) bool { return matchesAny(mount.EtcRebuilt, rel) }

// etcScript says rel (in /etc) is one of the shells' startup scripts
// (mount.EtcScripts), shown only where no credential is written in it.
func etcScript(rel string) bool { return matchesAny(mount.EtcScripts, rel) }

// matchesAny says rel matches one of patterns (path.Match's).
func matchesAny(patterns []string, rel string) bool {
	return slices.ContainsFunc(patterns, func(pattern string) bool {
		ok, _ := path.Match(pattern, rel)
		return ok
	})
}

// realDirs says every directory from etc down to dir is one, not a link.
func realDirs(etc, dir string) bool {
	for ; dir != etc; dir = filepath.Dir(dir) {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readDirNames lists dir's entries, sorted.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// holdsPrivateKey says the file name in the directory open at fd holds a
// private key (credential.PrivateKey, in any armour it knows): one an
// administrator keeps beside its certificate, every user's to read
// (nginx's site.key in ssl/certs, HAProxy's certificate and key in one
// .pem, a PuTTY key, a PEM key in base64 in a kubeconfig's
// client-key-data), crossed with the certificates' directory. Read
// without following a link or waiting on a FIFO, to maxEtcCopy.
//
// The file is first read through a buffer of a pool for the marks every
// key holds one of (credential.PrivateKeyMarks), and only one that holds
// a mark is read whole and judged: the certificates' bundles and Java's
// settings, read whole each, were 700 KB of a launch's fresh heap.
func holdsPrivateKey(fd int, name string) bool {
	kfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	if !holdsAny(kfd, credential.PrivateKeyMarks()) {
		unix.Close(kfd)
		return false
	}
	f := os.NewFile(uintptr(kfd), name)
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxEtcCopy))
	return err == nil && credential.PrivateKey(b)
}

// keyScanBuffers are holdsAny's buffers.
var keyScanBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// holdsAny says the first maxEtcCopy bytes of the file open at kfd hold
// one of marks, read from its start through a buffer of the pool; the
// end of each read is kept before the next, for a mark that spans two.
func holdsAny(kfd int, marks [][]byte) bool {
	p := keyScanBuffers.Get().(*[]byte)
	defer keyScanBuffers.Put(p)
	longest := 0
	for _, m := range marks {
		longest = max(longest, len(m))
	}
	buf, kept := *p, 0
	for at := int64(0); at < maxEtcCopy; {
		n, err := unix.Pread(kfd, buf[kept:kept+int(min(int64(len(buf)-kept), maxEtcCopy-at))], at)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		at += int64(n)
		read := buf[:kept+n]
		for _, m := range marks {
			if bytes.Contains(read, m) {
				return true
			}
		}
		kept = copy(buf, read[max(0, len(read)-longest+1):])
	}
	return false
}

// usersOwn lists what of the system's file or directory path the user
// may read and not every user may: what the user's uid or groups open (a
// TLS key for the group ssl-cert, a service's password file made root:dev
// 0640, a file the user owns) is the user's secret as ~/.ssh is, and only
// what every user reads crosses. A directory not every user may enter is
// listed whole, not walked; what the user cannot read is left out (the
// kernel refuses it inside too), as are links (what they lead to is
// judged where it lies), and certificates alone, which are public (a
// corporate CA a variable names may lie there). A private key every
// user may read is left out too (holdsPrivateKey). Each entry is looked
// at through its directory's descriptor; the list is sorted.
func usersOwn(path string) []mount.HostEntry {
	var own []mount.HostEntry
	var entry func(fd int, p string, depth int)
	// Read into a buffer of the walk's, with no value for each entry
	// (os.File.ReadDir's were a tenth of the launch's fresh heap).
	walk := func(fd int, d string, depth int) {
		defer unix.Close(fd)
		buf := dirent.Buffer()
		defer dirent.Release(buf)
		for {
			read, err := dirent.Read(fd, *buf)
			if err != nil {
				own = append(own, mount.HostEntry{Path: d, Dir: true})
				return
			}
			if len(read) == 0 {
				return
			}
			for name, typ := range read.All() {
				// The directory's own record of a link's type spares a
				// stat (the certificates' and alternatives' hundreds).
				if typ != unix.DT_LNK {
					entry(fd, filepath.Join(d, string(name)), depth)
				}
			}
		}
	}
	// entry looks at p, an entry of the directory open on fd.
	entry = func(fd int, p string, depth int) {
		name := filepath.Base(p)
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if unix.Faccessat(fd, name, unix.X_OK, 0) != nil {
				return
			}
			if st.Mode&0o005 != 0o005 || depth >= usersOwnDepth {
				own = append(own, mount.HostEntry{Path: p, Dir: true})
				return
			}
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				own = append(own, mount.HostEntry{Path: p, Dir: true})
				return
			}
			walk(sub, p, depth+1)
		case unix.S_IFREG:
			if st.Mode&0o004 == 0 && unix.Faccessat(fd, name, unix.R_OK, 0) == nil && !certificates(p) || st.Mode&0o004 != 0 && st.Size <= maxEtcCopy && holdsPrivateKey(fd, name) {
				own = append(own, mount.HostEntry{Path: p})
			}
		}
	}
	// Its directory is only looked up in, which its search permission
	// allows (/etc/pki made 0711 lists nothing to the user, and hid
	// nothing of what is shown of it).
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fi, err := os.Lstat(path)
		return []mount.HostEntry{{Path: path, Dir: err != nil || fi.IsDir()}}
	}
	defer unix.Close(fd)
	entry(fd, path, 0)
	slices.SortFunc(own, func(a, b mount.HostEntry) int { return strings.Compare(a.Path, b.Path) })
	return own
}

// certificates says the file at path is PEM certificates and nothing
// else.
func certificates(path string) bool {
	b, err := untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), 1<<20)
	return err == nil && onlyCertificates(b)
}

// usrLocalHidden are the entries of local (/usr/local: what an
// administrator installs by hand, a deploy script among the programs,
// a deploy.env beside them) the sandbox is not shown: of its PATH entries
// (bin, sbin) what is no program or a script with a credential written
// in it (toolchain.NotPrograms), as of ~/bin; at its top, whatever is no
// directory or link (a file, a socket) and every entry whose name begins
// with a dot (a .vault-token); of every other directory (share, lib,
// include, src, one of an administrator's own) but an installed
// toolchain's (go, an SDK: one with a bin), what a skill's would not
// show (installedFiles); of a toolchain's, what of its top
// (toolchainTopHidden). Nothing when local is not a directory below a
// real /usr.
func usrLocalHidden(local string) []mount.HostEntry {
	if !realDirs(filepath.Dir(local), local) {
		return nil
	}
	des, _ := os.ReadDir(local)
	var hidden []mount.HostEntry
	for _, de := range des {
		path := filepath.Join(local, de.Name())
		switch {
		case strings.HasPrefix(de.Name(), "."):
			hidden = append(hidden, mount.HostEntry{Path: path, Dir: de.IsDir()})
		case de.IsDir() && (de.Name() == "bin" || de.Name() == "sbin"):
			for _, f := range toolchain.NotPrograms(path) {
				hidden = append(hidden, mount.HostEntry{Path: f})
			}
			hidden = append(hidden, programSubdirsHidden(path)...)
		case !de.IsDir() && de.Type()&fs.ModeSymlink == 0:
			hidden = append(hidden, mount.HostEntry{Path: path})
		case de.IsDir() && de.Name() != "etc" && !isDir(filepath.Join(path, "bin")):
			hidden = append(hidden, installedFiles(path)...)
		case de.IsDir() && de.Name() != "etc":
			hidden = append(hidden, toolchainTopHidden(path)...)
		}
	}
	return hidden
}

// toolchainTopHidden are what of dir, a toolchain installed below
// /usr/local (one with a bin: go, an SDK, a server unpacked there, a
// clone of one's tools), the sandbox is not shown: at its top, its git
// directory (a private clone's configuration holds its remote's token),
// what else there begins with a dot, and a file named as credentials are
// kept or with one written in it (the deploy.env its scripts source),
// judged as installedFiles judges one. A vendor's toolchain's directories
// are shown whole (toolchain.VendorToolchain: Go, a JDK, CUDA, thousands
// of files its programs run with) but its settings' conf/ and etc/,
// judged as a vendor's settings (toolchain.VendorConfHidden: Maven's
// conf/settings.xml with an organization's repository password was
// readable); any other's are judged as
// installedFiles judges a directory, whatever their names, so that what
// its programs run with stays (an SDK's platform) and what it keeps
// there with a credential does not (Tomcat's conf/tomcat-users.xml,
// Kafka's config/client.properties, a clone's token below its top were
// readable).
func toolchainTopHidden(dir string) []mount.HostEntry {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	des, _ := os.ReadDir(dir)
	vendor := toolchain.VendorToolchain(dir)
	var hidden []mount.HostEntry
	for _, de := range des {
		path := filepath.Join(dir, de.Name())
		switch {
		case de.Type()&fs.ModeSymlink != 0:
		case strings.HasPrefix(de.Name(), "."):
			hidden = append(hidden, mount.HostEntry{Path: path, Dir: de.IsDir()})
		case de.Type().IsRegular() && (namedCredentialFile(path) || installedHoldsCredential(fd, dir, de.Name())):
			hidden = append(hidden, mount.HostEntry{Path: path})
		case de.IsDir() && !vendor:
			hidden = append(hidden, installedFiles(path)...)
		}
	}
	if vendor {
		for _, p := range toolchain.VendorConfHidden(dir) {
			hidden = append(hidden, mount.HostEntry{Path: p, Dir: isDir(p)})
		}
	}
	return hidden
}

// programSubdirsHidden are what of the directories in dir, a directory
// of programs (~/bin, /usr/local/bin, a bin/ a program's link leads to),
// and of those its links lead to (~/bin/lib linked to a dotfiles
// repository's, shown where it lies), the sandbox is not shown, each
// judged as an installed directory is (installedFiles): no PATH lookup
// runs what they hold, and the programs beside read it (a library they
// source, their data), or a token kept beside them
// (~/bin/conf/credentials.json was readable, shown whole while only the
// directory's own files were judged).
func programSubdirsHidden(dir string) []mount.HostEntry {
	des, _ := os.ReadDir(dir)
	var hidden []mount.HostEntry
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		switch {
		case de.IsDir():
			hidden = append(hidden, installedFiles(p)...)
		case de.Type()&fs.ModeSymlink != 0:
			if real, err := filepath.EvalSymlinks(p); err == nil && isDir(real) {
				hidden = append(hidden, installedFiles(real)...)
			}
		}
	}
	return hidden
}

// installedFiles are what of dir, a directory of /usr/local where an
// administrator installs by hand, the sandbox is not shown, as of a
// skill's (gitDirs): its git directories, the files named as credentials
// are kept, and those outside a package manager's packages with one
// written in them (installedHoldsCredential); dir whole where it cannot
// be looked through whole (over 32 levels or 4,000 directories, packages
// aside).
func installedFiles(dir string) []mount.HostEntry {
	dirs, files, whole := gitDirsJudged(dir, installedHoldsCredential)
	if !whole {
		return []mount.HostEntry{{Path: dir, Dir: true}}
	}
	hidden := make([]mount.HostEntry, 0, len(dirs)+len(files))
	for _, d := range dirs {
		hidden = append(hidden, mount.HostEntry{Path: d, Dir: true})
	}
	for _, f := range files {
		hidden = append(hidden, mount.HostEntry{Path: f})
	}
	return hidden
}

// installedHoldsCredential says a file installed below /usr/local (name
// in the directory open at dirfd, whose path is dir) holds a credential
// as a skill's file would (settingsHoldCredential), a binary one among
// them (shown where its kind is known to hold none: a library, a
// compressed man page holding none, compiled terminfo; a SQLite
// database, a backup's tar.gz, a jar whose properties held a password
// were shown unread). The verdict is kept for the file as it is
// (package verdict), the binary ones' among them: a /usr/local of
// global npm packages is thousands of files, read at each launch
// otherwise.
func installedHoldsCredential(dirfd int, dir, name string) bool {
	return verdict.JudgeAt("installed", dirfd, dir, name, settingsJudge(name))
}

package mount

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// BindSpec is an extra mount the user asked for with --bind or --ro-bind,
// or with the same keys in a config file.
type BindSpec struct {
	// Src is the host path, symlinks resolved, so that what is checked is
	// what bwrap mounts; asked is the path as asked (~ and relative paths
	// expanded), whose links CheckBinds judges.
	Src   string
	asked string
	// Dest is where it appears inside.
	Dest     string
	Writable bool
	// From says where it was asked for: a flag or a file's path.
	From string
}

// Flag is the spec as the flag that asks for it.
func (b BindSpec) Flag() string {
	f := "--ro-bind "
	if b.Writable {
		f = "--bind "
	}
	if b.Src == b.Dest {
		return f + b.Src
	}
	return f + b.Src + ":" + b.Dest
}

// secretPaths, under $HOME, hold credentials, keys, browser profiles and
// shell histories. A bind of a directory above one leaves it out: it shows
// only when bound itself.
var secretPaths = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".my.cnf", ".vault-token",
	".config/gh", ".config/hub", ".config/gcloud", ".config/git/credentials",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".terraform.d/credentials.tfrc.json", ".local/share/keyrings",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history",
}

// statePaths, under $HOME, are Claude Code's and claudebox's own state and
// configuration: other projects' histories, the approval records, the config
// that widens the sandbox. They are never bound, not even when named.
var statePaths = []string{".claude", ".claude.json", ".claudebox", ".config/claudebox"}

// claudeJSONCopy reports whether path is a backup or temporary copy of
// ~/.claude.json, which Claude Code writes beside it (.claude.json.backup,
// .claude.json.tmp.…): other projects' paths and the account, as in the
// original.
func claudeJSONCopy(home, path string) bool {
	return strings.HasPrefix(path, filepath.Join(home, ".claude.json")+".")
}

// StateDirs are statePaths, the caller's private directories (a moved
// $XDG_CONFIG_HOME), and the real paths of any of them that are links.
func StateDirs(home string, private []string) []string {
	var dirs []string
	for _, s := range statePaths {
		dirs = append(dirs, filepath.Join(home, s))
	}
	dirs = append(dirs, private...)
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			dirs = append(dirs, real)
		}
	}
	return dirs
}

// hostRuntime are the host's process, device and socket directories: a
// socket there (D-Bus, docker, an agent) stays connectable through a
// read-only mount, and /proc shows other processes' environments. Nothing
// in them is bound, and a bind that contains them leaves them out.
var hostRuntime = []string{"/proc", "/sys", "/dev", "/run", "/var/run"}

// sharedTemp are the host's shared temporary directories, which hold
// sockets (tmux, X11) among others' files: left out of a bind that
// contains them, and not bound themselves; a directory inside them may be.
var sharedTemp = []string{"/tmp", "/var/tmp"}

// rwHomeRefused are the directories, under $HOME, whose read-write bind
// would let the sandbox change what the host runs at login or on PATH.
var rwHomeRefused = []string{".config", ".local"}

// readOnlyInBind are the entries at the top of a read-write bind that the
// host runs or obeys: executables, git metadata, and the files a project
// guards. They stay read-only inside.
var readOnlyInBind = append([]string{"bin", ".git"}, workTreeNames()...)

// readOnlyHomePaths, under $HOME, are run by the host's shells and tools
// wherever the bind that contains them starts.
var readOnlyHomePaths = []string{".cargo/bin", ".cargo/env", ".cargo/config", ".cargo/config.toml", "go/bin"}

func workTreeNames() []string {
	var names []string
	for _, w := range workTreeGuards {
		names = append(names, w.name)
	}
	return names
}

// BindError is a bind that cannot be made as asked: the bind as written
// (Spec, starting with its flag), what is wrong with it (Problem), and the
// same in words (Reason).
type BindError struct {
	Spec     string
	Writable bool
	Problem  BindProblem
	Reason   string
}

// BindProblem is what is wrong with a bind.
type BindProblem int

const (
	BindSyntax           BindProblem = iota + 1 // not SRC or SRC:DEST
	BindSourceMissing                           // SRC does not exist
	BindSourceUnresolved                        // SRC cannot be resolved
	BindPlantedLink                             // a symlink on the way lies where the sandbox can write
	BindState                                   // SRC holds Claude Code's or claudebox's state
	BindHostRuntime                             // SRC holds the host's processes, devices or sockets
	BindSharedTemp                              // SRC holds other programs' sockets
	BindSocket                                  // SRC holds a socket
	BindWholeHome                               // read-write, SRC holds the whole home
	BindHomeTools                               // read-write, SRC holds programs and settings the host runs
	BindDestInProject                           // DEST is inside the project
	BindDestManaged                             // DEST is claudebox's own mount
	BindDestHidesHome                           // DEST would hide the private home
	BindDestReadOnly                            // DEST does not exist, in a read-only system directory
)

func (e *BindError) Error() string { return e.Spec + ": " + e.Reason }

// ParseBind reads SRC[:DEST] as given to --bind (writable) or --ro-bind.
// A leading ~ is $HOME; a relative path is taken from base (the working
// directory for a flag, the project for a config file); DEST defaults to
// SRC as written. SRC must exist. A colon inside a path cannot be written.
func ParseBind(spec, home, base string, writable bool, from string) (BindSpec, error) {
	flag := "--ro-bind"
	if writable {
		flag = "--bind"
	}
	fail := func(problem BindProblem, reason string) (BindSpec, error) {
		return BindSpec{}, &BindError{Spec: flag + " " + spec, Writable: writable, Problem: problem, Reason: reason}
	}
	src, dest, hasDest := strings.Cut(spec, ":")
	expand := func(p string) string {
		if p = paths.ExpandHome(p, home); filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	if src == "" || hasDest && dest == "" {
		return fail(BindSyntax, "expected SRC or SRC:DEST")
	}
	src = expand(src)
	if !hasDest {
		dest = src
	} else {
		dest = expand(dest)
	}
	real, err := filepath.EvalSymlinks(src)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(BindSourceMissing, src+" does not exist")
	}
	if err != nil {
		return fail(BindSourceUnresolved, err.Error())
	}
	return BindSpec{Src: real, asked: src, Dest: dest, Writable: writable, From: from}, nil
}

// CheckBinds refuses binds that would expose or override what the
// sandbox exists to protect, or make bwrap create a mount point on the
// host. It only reads.
func CheckBinds(binds []BindSpec, home string, project instance.Project, state []string) error {
	if len(binds) == 0 {
		return nil
	}
	managed := managedDests(home, project)
	writable := projectPaths(project)
	for _, b := range binds {
		if b.Writable {
			writable = append(writable, b.Src)
		}
	}
	for _, b := range binds {
		fail := func(problem BindProblem, reason string) error {
			return &BindError{Spec: b.Flag(), Writable: b.Writable, Problem: problem, Reason: reason}
		}
		if link := plantedLink(b.asked, writable); link != "" {
			return fail(BindPlantedLink, link+" is a symlink where the sandbox can write, so the sandbox could have pointed it anywhere")
		}
		if problem, reason := refuseSource(b.Src, b.Writable, home, state); problem != 0 {
			return fail(problem, reason)
		}
		for _, m := range managed {
			if !paths.Within(b.Dest, m) {
				continue
			}
			if slices.Contains(projectPaths(project), m) {
				return fail(BindDestInProject, "the destination "+b.Dest+" is inside the project, which is mounted as it is")
			}
			return fail(BindDestManaged, "the destination "+b.Dest+" is claudebox's own mount")
		}
		if b.Dest != home && paths.Within(home, b.Dest) {
			return fail(BindDestHidesHome, "the destination would hide the private home directory")
		}
		for _, d := range systemDirs {
			if paths.Within(b.Dest, d) {
				if _, err := os.Lstat(b.Dest); err != nil {
					return fail(BindDestReadOnly, b.Dest+" does not exist, and "+d+" is read-only inside")
				}
			}
		}
	}
	return nil
}

// SourceRefusal says why src may not be mounted into the sandbox (read-write
// when writable), or returns "" when it may. The project's own bind obeys
// the same rules. state is StateDirs' result.
func SourceRefusal(src string, writable bool, home string, state []string) string {
	_, reason := refuseSource(src, writable, home, state)
	return reason
}

// refuseSource is SourceRefusal, with what is wrong; 0 when nothing is.
func refuseSource(src string, writable bool, home string, state []string) (BindProblem, string) {
	for _, p := range state {
		if paths.Within(src, p) || claudeJSONCopy(home, src) {
			return BindState, "it holds Claude Code's or claudebox's state"
		}
	}
	for _, r := range hostRuntime {
		if paths.Within(src, r) {
			return BindHostRuntime, "it holds the host's processes, devices or sockets, which the sandbox could reach"
		}
	}
	if slices.Contains(sharedTemp, src) {
		return BindSharedTemp, "it holds other programs' sockets (tmux, X11), which the sandbox could reach"
	}
	if sock := socketIn(src); sock != "" {
		return BindSocket, sock + " is a socket, which the sandbox could connect to"
	}
	if !writable {
		return 0, ""
	}
	if paths.Within(home, src) {
		return BindWholeHome, "read-write, it would expose your whole home directory"
	}
	for _, r := range rwHomeRefused {
		if src == filepath.Join(home, r) {
			return BindHomeTools, "read-write, the sandbox could change programs and settings your session runs"
		}
	}
	return 0, ""
}

// plantedLink returns the first symlink on the way to path that lies in
// one of the directories the sandbox can write (real paths), or "".
func plantedLink(path string, writable []string) string {
	dir := "/"
	for _, c := range strings.Split(strings.TrimPrefix(filepath.Clean(path), "/"), "/") {
		next := filepath.Join(dir, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 && paths.UnderAny(next, writable) {
			return next
		}
		if dir, err = filepath.EvalSymlinks(next); err != nil {
			return ""
		}
	}
	return ""
}

// managedDests are the paths inside that claudebox mounts itself; a user
// bind may contain one (it is left out) but not replace or enter one.
func managedDests(home string, project instance.Project) []string {
	ms := []string{filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json"), "/proc", "/dev", filepath.Dir(sshAgentSocket)}
	return append(ms, projectPaths(project)...)
}

// projectPaths are the project's mounts: its checkout and git directories.
func projectPaths(project instance.Project) []string {
	return append([]string{project.Checkout}, project.GitDirs...)
}

// socketIn returns path, or an entry directly in it, that is a socket:
// connectable through any mount. (Deeper ones are the user's to know of.)
func socketIn(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.Mode()&fs.ModeSocket != 0 {
		return path
	}
	if !fi.IsDir() {
		return ""
	}
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		if e.Type()&fs.ModeSocket != 0 {
			return filepath.Join(path, e.Name())
		}
	}
	return ""
}

// Hidden is a secret that a bind contains and leaves out. Own says the
// bind is claudebox's own read-only mount (git configuration, a toolchain),
// not the user's.
type Hidden struct {
	Path string
	By   BindSpec
	Own  bool
}

// ownBind is a read-only mount claudebox makes of a host path outside the
// system directories: laid out like a user's bind, so that the secrets
// inside it stay hidden. src is a real path.
type ownBind struct {
	src, dest, why string
	role           Role
}

// bindWalk lays user binds out as mounts. A bind that contains something it
// must not show (a secret, claudebox's state, another mount) is replaced by
// binds of its entries, recursively, leaving that out; a symlink entry is
// recreated as the same link. Inside a writable bind, what the host runs
// is mounted read-only over it.
type bindWalk struct {
	home string
	// omitSrc are host paths no bind shows: secrets (and their real paths),
	// state, and the project, which is mounted at its own path.
	omitSrc map[string]string // path → why
	// omitDest are paths inside that other mounts own.
	omitDest []string
	mounts   []Mount
	hidden   []Hidden
	// symlinks are entries of a writable bind that the host runs and that
	// are links: no mount protects a link, so the launch refuses.
	symlinks []string
	// role is that of the bind being laid out.
	role Role
	// obeyed are the real paths the host obeys from the home and PATH.
	obeyed []string
}

// expandBinds lays out the user's binds, then claudebox's own read-only
// ones (which come later in the plan: what the host runs stays read-only
// in a user's read-write bind, and a user's bind inside one of them is
// kept).
// secrets is secretSet's result; what the host obeys from the home and
// PATH stays read-only where it lies in a writable bind.
func expandBinds(home string, project instance.Project, binds []BindSpec, own []ownBind, state []string, secrets map[string]bool, obeyed []hostObeyed) (user, ownMounts []Mount, hidden []Hidden, symlinks []string) {
	if len(binds) == 0 && len(own) == 0 {
		return nil, nil, nil, nil
	}
	w := &bindWalk{home: home, omitSrc: map[string]string{}, omitDest: managedDests(home, project)}
	for _, o := range obeyed {
		w.obeyed = append(w.obeyed, o.path)
	}
	for p := range secrets {
		w.omitSrc[p] = "secret"
	}
	for _, p := range state {
		w.omitSrc[p] = "state"
	}
	for _, r := range append(hostRuntime, sharedTemp...) {
		w.omitSrc[r] = "host"
	}
	for _, p := range projectPaths(project) {
		w.omitSrc[p] = "project"
	}
	for _, b := range binds {
		w.omitDest = append(w.omitDest, b.Dest)
	}
	w.role = Requested
	for _, b := range binds {
		why := "your " + b.Flag()
		if b.From != "" {
			why += " (" + b.From + ")"
		}
		w.walk(b, why, true, b.Src, b.Dest, true)
	}
	user = w.mounts
	w.mounts = nil
	for _, o := range own {
		w.role = o.role
		w.walk(BindSpec{Src: o.src, Dest: o.dest}, o.why, false, o.src, o.dest, true)
	}
	return user, w.mounts, w.hidden, w.symlinks
}

// walk lays out the bind b (the user's when user is set, else claudebox's
// own, read-only) from src at dest. A user's bind shows what it names even
// when that is a secret; claudebox's own never does.
func (w *bindWalk) walk(b BindSpec, why string, user bool, src, dest string, top bool) {
	if (!top || !user) && w.omitted(b, user, src, dest) {
		return
	}
	if w.contains(src, dest) {
		if fi, err := os.Stat(src); err == nil && fi.IsDir() {
			entries, _ := os.ReadDir(src)
			for _, e := range entries {
				s, d := filepath.Join(src, e.Name()), filepath.Join(dest, e.Name())
				switch {
				case e.Type()&fs.ModeSymlink != 0:
					w.link(b, user, s, d, why)
					continue
				case e.Type()&fs.ModeSocket != 0:
					continue
				}
				w.walk(b, why, user, s, d, false)
			}
			return
		}
	}
	if !b.Writable || w.readOnly(b, src) {
		w.mounts = append(w.mounts, Mount{Kind: RoBind, Src: src, Dest: dest, Why: why, Role: w.role})
		return
	}
	w.mounts = append(w.mounts, Mount{Kind: Bind, Src: src, Dest: dest, Why: why, Role: w.role})
	// What the host runs stays read-only, mounted over the writable bind
	// (a mount point cannot be renamed away), so that the rest of it,
	// new files included, still reaches the host.
	var over []string
	if src == b.Src {
		for _, n := range readOnlyInBind {
			over = append(over, filepath.Join(src, n))
		}
	}
	for _, p := range readOnlyHomePaths {
		over = append(over, filepath.Join(w.home, p))
	}
	over = append(over, w.obeyed...)
	for _, p := range over {
		if p == src || !paths.Within(p, src) {
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			// The sandbox could replace the link itself.
			w.symlinks = append(w.symlinks, p)
		default:
			rel, _ := filepath.Rel(src, p)
			w.mounts = append(w.mounts, Mount{Kind: RoBind, Src: p, Dest: filepath.Join(dest, rel), Why: why + ": run by the host, read-only", Role: w.role})
		}
	}
}

// contains reports whether something below src (or dest) must be left
// out, so the bind has to be split.
func (w *bindWalk) contains(src, dest string) bool {
	below := func(p, dir string) bool { return p != dir && paths.Within(p, dir) }
	for p := range w.omitSrc {
		if below(p, src) {
			return true
		}
	}
	for _, p := range w.omitDest {
		if below(p, dest) {
			return true
		}
	}
	return false
}

// readOnly reports whether src, inside the writable bind b, is something
// the host runs or obeys.
func (w *bindWalk) readOnly(b BindSpec, src string) bool {
	if filepath.Dir(src) == b.Src && slices.Contains(readOnlyInBind, filepath.Base(src)) {
		return true
	}
	for _, p := range readOnlyHomePaths {
		if src == filepath.Join(w.home, p) {
			return true
		}
	}
	return slices.Contains(w.obeyed, src)
}

// omitted reports whether an entry of bind b is left out, noting a secret.
func (w *bindWalk) omitted(b BindSpec, user bool, src, dest string) bool {
	if slices.Contains(w.omitDest, dest) || claudeJSONCopy(w.home, src) {
		return true
	}
	reason, ok := w.omitSrc[src]
	if reason == "secret" {
		w.hidden = append(w.hidden, Hidden{Path: src, By: b, Own: !user})
	}
	return ok
}

// link recreates a symlink entry, unless it has a secret's or state's name
// (~/.ssh -> dotfiles/ssh): then it is left out, as its target is.
func (w *bindWalk) link(b BindSpec, user bool, src, dest, why string) {
	if w.omitted(b, user, src, dest) {
		return
	}
	if target, err := os.Readlink(src); err == nil {
		w.mounts = append(w.mounts, Mount{Kind: Symlink, Src: target, Dest: dest, Why: why + ", a link", Role: w.role})
	}
}

// String describes the hidden secret for --dry-run.
func (h Hidden) String() string {
	if h.Own {
		return fmt.Sprintf("%s is hidden under claudebox's read-only mount of %s: bind it yourself to show it", h.Path, h.By.Dest)
	}
	return fmt.Sprintf("%s is hidden under %s: bind it itself to show it", h.Path, h.By.Flag())
}

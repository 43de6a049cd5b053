// Package bind reads the user's --bind and --ro-bind, refuses those that
// would expose or override what the sandbox protects, and lays binds out
// as mounts, split around the secrets, state and other mounts inside them.
package bind

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// secretPaths, under $HOME, are credential stores: they hold credentials,
// keys, logins, browser profiles, shell histories and the agents' other
// projects' sessions. A bind of one, or of a directory that holds one, is
// refused; claudebox's own mounts leave them out. A list cannot keep up
// with the tools people install: binds of ~, ~/.config, ~/.local and
// ~/.local/share, where the next tool keeps its token, are refused too
// (toolStateDirs).
var secretPaths = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".my.cnf", ".vault-token",
	".config/gh", ".config/hub", ".config/gcloud", ".config/git/credentials",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".terraform.d/credentials.tfrc.json", ".local/share/keyrings",
	".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	".bash_history", ".zsh_history", ".zhistory", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".sqlite_history", ".rediscli_history", ".irb_history", ".local/share/fish/fish_history",
	// The agents' logins, and their other projects' sessions and history.
	".codex/auth.json", ".codex/sessions", ".codex/archived_sessions", ".codex/history.jsonl",
	".gemini/oauth_creds.json", ".gemini/google_accounts.json", ".gemini/mcp-oauth-tokens.json", ".gemini/.env",
	".gemini/tmp", ".gemini/history", ".local/share/opencode", ".aider.conf.yml", ".continue/config.json",
	".copilot", ".config/github-copilot", ".config/glab-cli", ".config/rclone", ".config/containers/auth.json",
	".cache/huggingface/token", ".huggingface/token", ".config/huggingface",
	// Cloud and service CLIs.
	".oci", ".config/doctl", ".config/hcloud", ".fly", ".config/flyctl", ".config/netlify",
	".local/share/com.vercel.cli", ".config/op", ".config/Bitwarden CLI", ".pulumi/credentials.json",
	".supabase/access-token", ".config/configstore", ".wrangler", ".config/.wrangler", ".config/ngrok",
	".ngrok2", ".sentryclirc", ".terraformrc", ".config/helm/repositories.yaml",
	// Build tools' credentials.
	".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties", ".ivy2/.credentials",
	".composer/auth.json", ".config/composer/auth.json", ".nuget/NuGet/NuGet.Config", ".config/NuGet/NuGet.Config",
	".yarnrc.yml", ".pki",
}

// toolStateDirs, under $HOME, hold other tools' state and configuration,
// where any tool may keep its credential: a bind of one, or of a directory
// above it, is refused.
var toolStateDirs = []string{"", ".config", ".local", ".local/share"}

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
var readOnlyInBind = append([]string{"bin", ".git"}, guard.WorkTreeNames()...)

// readOnlyHomePaths, under $HOME, are run by the host's shells and tools
// wherever the bind that contains them starts.
var readOnlyHomePaths = []string{".cargo/bin", ".cargo/env", ".cargo/config", ".cargo/config.toml", "go/bin"}

// Error is a bind that cannot be made as asked: the bind as written
// (Spec, starting with its flag), what is wrong with it (Problem), and the
// same in words (Reason).
type Error struct {
	Spec     string
	Writable bool
	Problem  Problem
	Reason   string
	// Narrower are paths the user may bind instead, for a hint.
	Narrower []string
	// From is the file that asks for the bind; "" for the command line.
	From string
}

// Problem is what is wrong with a bind.
type Problem int

const (
	Syntax           Problem = iota + 1 // not SRC or SRC:DEST
	SourceMissing                       // SRC does not exist
	SourceUnresolved                    // SRC cannot be resolved
	PlantedLink                         // a symlink on the way lies where the sandbox can write
	State                               // SRC holds Claude Code's or claudebox's state
	HostRuntime                         // SRC holds the host's processes, devices or sockets
	SharedTemp                          // SRC holds other programs' sockets
	Socket                              // SRC holds a socket
	WholeHome                           // read-write, SRC holds the whole home
	HomeTools                           // read-write, SRC holds programs and settings the host runs
	DestInProject                       // DEST is inside the project
	DestManaged                         // DEST is claudebox's own mount
	DestHidesHome                       // DEST would hide the private home
	DestReadOnly                        // DEST does not exist, in a read-only system directory
	CredentialStore                     // SRC is, or lies in, a credential store
	HoldsCredentials                    // SRC holds a credential store
	ToolState                           // SRC holds other tools' state: ~, ~/.config, ~/.local, ~/.local/share
)

func (e *Error) Error() string { return e.Spec + ": " + e.Reason }

// Parse reads SRC[:DEST] as given to --bind (writable) or --ro-bind.
// A leading ~ is $HOME; a relative path is taken from base (the working
// directory for a flag, the project for a config file); DEST defaults to
// SRC as written. SRC must exist. A colon inside a path cannot be written.
func Parse(spec, home, base string, writable bool, from string) (mount.BindSpec, error) {
	flag := "--ro-bind"
	if writable {
		flag = "--bind"
	}
	fail := func(problem Problem, reason string) (mount.BindSpec, error) {
		return mount.BindSpec{}, &Error{Spec: flag + " " + spec, Writable: writable, Problem: problem, Reason: reason}
	}
	src, dest, hasDest := strings.Cut(spec, ":")
	expand := func(p string) string {
		if p = paths.ExpandHome(p, home); filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	if src == "" || hasDest && dest == "" {
		return fail(Syntax, "expected SRC or SRC:DEST")
	}
	src = expand(src)
	if !hasDest {
		dest = src
	} else {
		dest = expand(dest)
	}
	real, err := filepath.EvalSymlinks(src)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(SourceMissing, src+" does not exist")
	}
	if err != nil {
		return fail(SourceUnresolved, err.Error())
	}
	return mount.BindSpec{Src: real, Asked: src, Dest: dest, Writable: writable, From: from}, nil
}

// Check refuses binds that would expose or override what the
// sandbox exists to protect, or make bwrap create a mount point on the
// host. It only reads.
func Check(binds []mount.BindSpec, home string, project instance.Project, state []string) error {
	if len(binds) == 0 {
		return nil
	}
	managed := managedDests(home, project)
	writable := Writable(project, binds)
	secrets := Secrets(home)
	for _, b := range binds {
		fail := func(problem Problem, reason string) error {
			return &Error{Spec: b.Flag(), Writable: b.Writable, Problem: problem, Reason: reason, From: b.From}
		}
		if link := plantedLink(b.Asked, writable); link != "" {
			return fail(PlantedLink, link+" is a symlink where the sandbox can write, so the sandbox could have pointed it anywhere")
		}
		if problem, reason := refuseSource(b.Src, b.Writable, home, state); problem != 0 {
			return fail(problem, reason)
		}
		if err := refuseSecrets(b, home, secrets, state); err != nil {
			return err
		}
		for _, m := range managed {
			if !paths.Within(b.Dest, m) {
				continue
			}
			if slices.Contains(projectPaths(project), m) {
				return fail(DestInProject, "the destination "+b.Dest+" is inside the project, which is mounted as it is")
			}
			return fail(DestManaged, "the destination "+b.Dest+" is claudebox's own mount")
		}
		if b.Dest != home && paths.Within(home, b.Dest) {
			return fail(DestHidesHome, "the destination would hide the private home directory")
		}
		for _, d := range mount.SystemDirs {
			if paths.Within(b.Dest, d) {
				if _, err := os.Lstat(b.Dest); err != nil {
					return fail(DestReadOnly, b.Dest+" does not exist, and "+d+" is read-only inside")
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
func refuseSource(src string, writable bool, home string, state []string) (Problem, string) {
	for _, p := range state {
		if paths.Within(src, p) || claudeJSONCopy(home, src) {
			return State, "it holds Claude Code's or claudebox's state"
		}
	}
	for _, r := range hostRuntime {
		if paths.Within(src, r) {
			return HostRuntime, "it holds the host's processes, devices or sockets, which the sandbox could reach"
		}
	}
	if slices.Contains(sharedTemp, src) {
		return SharedTemp, "it holds other programs' sockets (tmux, X11), which the sandbox could reach"
	}
	if sock := SocketIn(src); sock != "" {
		return Socket, sock + " is a socket, which the sandbox could connect to"
	}
	if !writable {
		return 0, ""
	}
	if paths.Within(home, src) {
		return WholeHome, "read-write, it would expose your whole home directory"
	}
	for _, r := range rwHomeRefused {
		if src == filepath.Join(home, r) {
			return HomeTools, "read-write, the sandbox could change programs and settings your session runs"
		}
	}
	return 0, ""
}

// refuseSecrets refuses a bind that would show a credential: a credential
// store (or what lies in one), a directory that holds one, or one of the
// directories where any tool keeps its state. What a user names is shown
// whole, so a list of secrets to leave out of it cannot be trusted to
// keep up.
func refuseSecrets(b mount.BindSpec, home string, secrets map[string]bool, state []string) error {
	fail := func(problem Problem, reason string, narrower []string) error {
		return &Error{Spec: b.Flag(), Writable: b.Writable, Problem: problem, Reason: reason, Narrower: narrower, From: b.From}
	}
	stores := sortedSecrets(secrets)
	for _, p := range stores {
		if paths.Within(b.Src, p) {
			return fail(CredentialStore, tilde(p, home)+" is a credential store, which never enters the sandbox", nil)
		}
	}
	for _, d := range toolStateDirs {
		if d := filepath.Join(home, d); paths.Within(d, b.Src) {
			return fail(ToolState, "it holds "+tilde(d, home)+", where other tools keep their state and credentials", narrower(b.Src, home, secrets, state))
		}
	}
	for _, p := range stores {
		if !paths.Within(p, b.Src) {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return fail(HoldsCredentials, "it holds "+tilde(p, home)+", a credential store", narrower(b.Src, home, secrets, state))
		}
	}
	return nil
}

// credentialName is a file name credentials are kept under: a private key,
// a keystore, an env file, a tool's login or token file.
var credentialName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|jks|keystore|kdbx|ovpn|ppk)|\.env(\..+)?|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.vault-token|credentials(\.json|\.toml|\.xml)?|auth\.json|oauth_creds\.json|.*token.*|.*secret.*|.*passw.*|.*service[-_]?account.*\.json)$`)
})

// CredentialFile says a file's name is one credentials are kept under
// (credentialName), and not a template's.
func CredentialFile(name string) bool {
	return mayBeCredentialName(name) && credentialName().MatchString(name) && !harmlessName().MatchString(name)
}

// credentialNameHints are what every name credentialName matches holds,
// in lower case. The expression costs about 8 µs a name on a loaded
// 2-core machine, half of a walk of 25,000 installed files, most of whose
// names hold none.
var credentialNameHints = []string{
	"id_", ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ovpn", ".ppk",
	".env", "netrc", "npmrc", "pypirc", "pgpass", "credentials", "vault-token", "auth.json", "oauth_creds",
	"token", "secret", "passw", "service",
}

// mayBeCredentialName says name holds a hint of credentialName's, or a
// byte past ASCII, which its case folding may match as a letter (the
// Kelvin sign a k).
func mayBeCredentialName(name string) bool {
	lower := strings.ToLower(name)
	for i := range len(name) {
		if name[i] >= 0x80 {
			return true
		}
	}
	return slices.ContainsFunc(credentialNameHints, func(h string) bool { return strings.Contains(lower, h) })
}

// harmlessName is a template of one, which holds none. Both are compiled
// at first use: claudebox's processes that never bind (the guard watcher,
// the relay inside) do not pay.
var harmlessName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)[.-](example|sample|template|dist|tmpl)$`) })

// exposeDepth and exposeEntries bound Exposes's look.
const exposeDepth, exposeEntries = 3, 5000

// Exposes names the first file at or below src (three levels down, a few
// thousand entries at most; not in .git or node_modules) whose name
// credentials are kept under, or returns "": for the approval of a
// repository's bind, which should say so plainly.
func Exposes(src string) string {
	budget := exposeEntries
	var look func(dir string, depth int) string
	look = func(dir string, depth int) string {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if budget--; budget < 0 {
				return ""
			}
			name := e.Name()
			if e.Type().IsRegular() && CredentialFile(name) {
				return filepath.Join(dir, name)
			}
			if e.IsDir() && depth > 1 && name != ".git" && name != "node_modules" {
				if found := look(filepath.Join(dir, name), depth-1); found != "" {
					return found
				}
			}
		}
		return ""
	}
	if fi, err := os.Stat(src); err == nil && fi.Mode().IsRegular() {
		if credentialName().MatchString(filepath.Base(src)) {
			return src
		}
		return ""
	}
	return look(src, exposeDepth)
}

// sortedSecrets is Secrets's result in order, so that a refusal names the
// same store each time.
func sortedSecrets(secrets map[string]bool) []string {
	s := make([]string, 0, len(secrets))
	for p := range secrets {
		s = append(s, p)
	}
	slices.Sort(s)
	return s
}

// narrower are up to three of dir's directories a bind could show
// instead: none a credential store, state, or above one.
func narrower(dir, home string, secrets map[string]bool, state []string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() || dir == home && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if InSecret(p, secrets) || slices.ContainsFunc(state, func(s string) bool { return paths.Within(s, p) || paths.Within(p, s) }) ||
			slices.ContainsFunc(sortedSecrets(secrets), func(s string) bool { return paths.Within(s, p) }) ||
			slices.ContainsFunc(toolStateDirs, func(d string) bool { return paths.Within(filepath.Join(home, d), p) }) {
			continue
		}
		if out = append(out, tilde(p, home)); len(out) == 3 {
			break
		}
	}
	return out
}

// tilde writes a path in the home as ~/….
func tilde(p, home string) string {
	if p == home {
		return "~"
	}
	if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
		return "~/" + rel
	}
	return p
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
	ms := []string{filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json"), "/proc", "/dev", filepath.Dir(mount.SSHAgentSocket)}
	return append(ms, projectPaths(project)...)
}

// Writable are the host paths the sandbox can write: the project's
// checkout and git directories, and the read-write binds' sources.
func Writable(project instance.Project, binds []mount.BindSpec) []string {
	writable := projectPaths(project)
	for _, b := range binds {
		if b.Writable {
			writable = append(writable, b.Src)
		}
	}
	return writable
}

// projectPaths are the project's mounts: its checkout and git directories.
func projectPaths(project instance.Project) []string {
	return append([]string{project.Checkout}, project.GitDirs...)
}

// SocketIn returns path, or an entry directly in it, that is a socket:
// connectable through any mount. (Deeper ones are the user's to know of.)
func SocketIn(path string) string {
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
		sock := filepath.Join(path, e.Name())
		// A session's stand-in for a missing guarded file is a socket
		// nothing was ever bound to, and a mount point inside.
		if e.Type()&fs.ModeSocket != 0 && !(slices.Contains(guard.WorkTreeNames(), e.Name()) && instance.IsPlaceholder(sock)) {
			return sock
		}
	}
	return ""
}

// Own is a read-only mount claudebox makes of a host path outside the
// system directories: laid out like a user's bind, so that the secrets
// inside it stay hidden. src is a real path.
type Own struct {
	Src, Dest, Why string
	Role           mount.Role
	// Frozen shows a directory entry by entry as the launch found it, in
	// a read-only directory of the sandbox's: what the host adds there
	// during the session (a clone, its token in its configuration) is
	// not shown.
	Frozen bool
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
	mounts   []mount.Mount
	hidden   []mount.Hidden
	// symlinks are entries of a writable bind that the host runs and that
	// are links: no mount protects a link, so the launch refuses.
	symlinks []string
	// role is that of the bind being laid out.
	role mount.Role
	// obeyed are the real paths the host obeys from the home and PATH.
	obeyed []string
}

// Layout lays out the user's binds, then claudebox's own read-only
// ones (which come later in the plan: what the host runs stays read-only
// in a user's read-write bind, and a user's bind inside one of them is
// kept).
// secrets is Secrets's result; what the host obeys from the home and
// PATH stays read-only where it lies in a writable bind.
func Layout(home string, project instance.Project, binds []mount.BindSpec, own []Own, state []string, secrets map[string]bool, obeyed []guard.Obeyed) (user, ownMounts []mount.Mount, hidden []mount.Hidden, symlinks []string) {
	if len(binds) == 0 && len(own) == 0 {
		return nil, nil, nil, nil
	}
	w := &bindWalk{home: home, omitSrc: map[string]string{}, omitDest: managedDests(home, project)}
	for _, o := range obeyed {
		w.obeyed = append(w.obeyed, o.Path)
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
	w.role = mount.Requested
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
		w.role = o.Role
		b := mount.BindSpec{Src: o.Src, Dest: o.Dest}
		if fi, err := os.Stat(o.Src); !o.Frozen || err != nil || !fi.IsDir() {
			w.walk(b, o.Why, false, o.Src, o.Dest, true)
			continue
		}
		if w.omitted(b, false, o.Src, o.Dest) {
			continue
		}
		w.mounts = append(w.mounts, mount.Mount{Kind: mount.Tmpfs, Dest: o.Dest, Why: o.Why + ", as the launch found it: what the host adds during the session is not shown", Role: o.Role})
		w.entries(b, o.Why, false, o.Src, o.Dest)
		w.mounts = append(w.mounts, mount.Mount{Kind: mount.RemountRO, Dest: o.Dest, Why: "read-only, as the host's", Role: o.Role})
	}
	return user, w.mounts, w.hidden, w.symlinks
}

// walk lays out the bind b (the user's when user is set, else claudebox's
// own, read-only) from src at dest. A user's bind shows what it names even
// when that is a secret; claudebox's own never does.
func (w *bindWalk) walk(b mount.BindSpec, why string, user bool, src, dest string, top bool) {
	if (!top || !user) && w.omitted(b, user, src, dest) {
		return
	}
	if w.contains(src, dest) {
		if fi, err := os.Stat(src); err == nil && fi.IsDir() {
			w.entries(b, why, user, src, dest)
			return
		}
	}
	if !b.Writable || w.readOnly(b, src) {
		w.mounts = append(w.mounts, mount.Mount{Kind: mount.RoBind, Src: src, Dest: dest, Why: why, Role: w.role})
		return
	}
	w.mounts = append(w.mounts, mount.Mount{Kind: mount.Bind, Src: src, Dest: dest, Why: why, Role: w.role})
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
			w.mounts = append(w.mounts, mount.Mount{Kind: mount.RoBind, Src: p, Dest: filepath.Join(dest, rel), Why: why + ": run by the host, read-only", Role: w.role})
		}
	}
}

// entries lays out the directory src's entries at dest, a link made
// again as it is.
func (w *bindWalk) entries(b mount.BindSpec, why string, user bool, src, dest string) {
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dest, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			w.link(b, user, s, d, why)
		case e.Type()&fs.ModeSocket == 0:
			w.walk(b, why, user, s, d, false)
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
func (w *bindWalk) readOnly(b mount.BindSpec, src string) bool {
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
func (w *bindWalk) omitted(b mount.BindSpec, user bool, src, dest string) bool {
	if slices.Contains(w.omitDest, dest) || claudeJSONCopy(w.home, src) {
		return true
	}
	reason, ok := w.omitSrc[src]
	if reason == "secret" {
		w.hidden = append(w.hidden, mount.Hidden{Path: src, By: b, Own: !user})
	}
	return ok
}

// link recreates a symlink entry, unless it has a secret's or state's name
// (~/.ssh -> dotfiles/ssh): then it is left out, as its target is.
func (w *bindWalk) link(b mount.BindSpec, user bool, src, dest, why string) {
	if w.omitted(b, user, src, dest) {
		return
	}
	if target, err := os.Readlink(src); err == nil {
		w.mounts = append(w.mounts, mount.Mount{Kind: mount.Symlink, Src: target, Dest: dest, Why: why + ", a link", Role: w.role})
	}
}

// InSecret reports whether path is, or lies in, one of secrets (Secrets's
// result).
func InSecret(path string, secrets map[string]bool) bool {
	for p := range secrets {
		if paths.Within(path, p) {
			return true
		}
	}
	return false
}

// Secrets is secretPaths under home, with the real paths of those that
// are links or lie behind one.
func Secrets(home string) map[string]bool {
	set := map[string]bool{}
	for _, s := range secretPaths {
		p := filepath.Join(home, s)
		set[p] = true
		// Most are missing: one lstat says so, where resolving would
		// walk the whole path.
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			set[real] = true
		}
	}
	return set
}

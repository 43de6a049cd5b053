package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/landlock"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/session"
)

// procSys is where the kernel's switches are read; tests point it at a
// fixture.
var procSys = "/proc/sys"

// checkCmd is claudebox --check: what would stop a launch, and the fix.
type checkCmd struct{ JSON bool }

// checkResult is one line of the report.
type checkResult struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn or fail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// bwrapFeatures are the bwrap options a launch uses.
var bwrapFeatures = []string{"--unshare-cgroup-try", "--die-with-parent", "--seccomp", "--bind-data", "--ro-bind-data", "--ro-bind-try", "--userns", "--info-fd", "--block-fd", "--perms"}

// apparmorFix is one line that lets bwrap create user namespaces where
// AppArmor restricts them (Ubuntu 24.04 and later).
const apparmorFix = `printf 'abi <abi/4.0>,\ninclude <tunables/global>\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n}\n' | sudo tee /etc/apparmor.d/bwrap && sudo apparmor_parser -r /etc/apparmor.d/bwrap`

// Run reports the host's checks, the plan of a launch here, and a trial
// of that plan.
func (c checkCmd) Run(h session.Home, homeErr error) error {
	results := checkBwrapInstall()
	userns := checkUserns()
	results = append(results, checkKernel(kernelRelease()), userns)
	claude := checkClaude(h.Dir)
	// The home's lines before the trial, which creates ~/.claudebox.
	host := checkHome(h, homeErr)
	s, err := prepareTrial(h, homeErr)
	plan := checkPlan(s, err)
	if err == nil {
		plan = append(plan, checkPendingPermissions(h, s.Plan())...)
	}
	trial := checkResult{"trial sandbox", "fail", "not run: fix the lines above first", ""}
	if err == nil {
		trial, claude = runTrial(s, userns, claude)
		plan = append(plan, checkRefused(s)...)
	}
	return c.report(slices.Concat(results, []checkResult{claude}, checkAgents(h), host, plan, []checkResult{trial}))
}

// checkBwrapInstall finds bwrap and checks its features, its setuid bit
// and the Landlock scoping a sandbox gets through it.
func checkBwrapInstall() []checkResult {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return []checkResult{{"bwrap", "fail", "not found on PATH", "sudo apt-get install bubblewrap (or: nix profile install nixpkgs#bubblewrap)"}}
	}
	return []checkResult{checkBwrap(bwrap), checkSetuid(bwrap), checkLandlock(bwrap)}
}

func checkSetuid(bwrap string) checkResult {
	if fi, err := os.Stat(bwrap); err == nil && fi.Mode()&os.ModeSetuid != 0 {
		return checkResult{"setuid bwrap", "warn", bwrap + " is setuid root; claudebox needs only unprivileged user namespaces", "sudo chmod u-s " + bwrap}
	}
	return checkResult{"setuid bwrap", "ok", "not setuid", ""}
}

// checkClaude finds claude on the host; the trial adds its version inside.
func checkClaude(home string) checkResult {
	path, err := exec.LookPath("claude")
	if err != nil {
		return checkResult{"claude", "fail", "not found on PATH", "npm install -g @anthropic-ai/claude-code"}
	}
	return checkResult{"claude", "ok", path + " (" + installKind(path, home) + ")", ""}
}

func checkHome(h session.Home, homeErr error) []checkResult {
	if homeErr != nil {
		return []checkResult{{"home", "fail", homeErr.Error(), hint.Of(homeErr)}}
	}
	return []checkResult{checkClaudeDir(h.Dir), checkCredentials(h), checkStateDir(h.State)}
}

// prepareTrial prepares the session of a launch here, running claude
// --version.
func prepareTrial(h session.Home, homeErr error) (*session.Session, error) {
	if homeErr != nil {
		return nil, homeErr
	}
	return session.Prepare(session.Options{Home: h, Args: []string{"--version"}, OnlyApproved: true, ReadMounts: readMounts})
}

// checkPlan reports the plan of the trial's session, or why there is none.
func checkPlan(s *session.Session, err error) []checkResult {
	if err != nil {
		return []checkResult{{"instance", "fail", err.Error(), hint.Of(err)}}
	}
	plan := s.Plan()
	instance := checkResult{"instance", "ok", fmt.Sprintf("%s, root %s", plan.Instance, plan.Project.Root), ""}
	return slices.Concat([]checkResult{instance}, checkMounts(plan), checkSkipped(s), checkPATH(plan), checkHostObeys(plan), checkApproval(s), checkCaches(plan), checkGPU(plan.GPU), []checkResult{checkProjectFiles(plan), checkLimits(s), checkSigning(plan)}, checkSSHRemotes(plan), checkBranches(plan))
}

// checkGPU names the GPU devices --with-gpu passes, and what is missing.
func checkGPU(g *mount.GPU) []checkResult {
	if g == nil {
		return nil
	}
	var lines []checkResult
	if len(g.Devices) > 0 {
		lines = append(lines, checkResult{"gpu", "ok", strings.Join(g.Devices, ", ") + "; read-only for the drivers: " + strings.Join(g.Driver, ", "), ""})
	}
	for _, m := range g.Missing {
		fix := "install the GPU's driver on the host, or leave --with-gpu off"
		if strings.Contains(m, "may not open") {
			fix = "sudo usermod -aG video,render $USER, then log in again"
		}
		lines = append(lines, checkResult{"gpu", "warn", m, fix})
	}
	return lines
}

// checkLimits says what bounds the sandbox and how: a cgroup of its own
// where the system delegates one to the user (memory in total), and
// otherwise limits the kernel keeps per process and per user namespace
// (memory per process), with why no cgroup.
func checkLimits(s *session.Session) checkResult {
	l := s.Plan().Limits
	if l == (limits.Limits{}) {
		return checkResult{"limits", "warn", "none: a fork bomb or a leak inside can take the whole machine", "set pids, memory or cpus in " + "config.toml, or --pids, --memory, --cpus"}
	}
	cg, why := s.Cgroup()
	if cg != nil {
		return checkResult{"limits", "ok", l.String() + " (through " + cg.String() + ", which claudebox's own processes stay outside)", ""}
	}
	how := "set on the sandbox's processes, with no cgroup: " + why
	if l.Tasks > 0 {
		how += "; processes and threads counted in its own user namespace"
	}
	if l.Memory > 0 {
		how += "; memory per process, not in total"
	}
	if l.CPUs > 0 {
		how += "; processors by affinity"
	}
	return checkResult{"limits", "ok", l.String() + " (" + how + ")", ""}
}

// checkMounts names the user's binds and the secrets hidden inside them
// and claudebox's own.
func checkMounts(plan mount.Plan) []checkResult {
	var lines []checkResult
	for _, b := range plan.Binds {
		lines = append(lines, checkResult{"mount", "ok", b.Flag() + bindSource(b), ""})
	}
	for _, h := range plan.Hidden {
		lines = append(lines, checkResult{"mount", "ok", h.String(), ""})
	}
	return lines
}

// checkSkipped names the config files' binds of paths that do not exist
// yet, which the launch leaves out.
func checkSkipped(s *session.Session) []checkResult {
	var lines []checkResult
	for _, b := range s.Skipped() {
		lines = append(lines, checkResult{"mount", "warn", "skipped " + b, "it is bound once it exists"})
	}
	return lines
}

// checkPATH names the toolchains the sandbox shows, and the PATH entries
// that cannot work inside.
func checkPATH(plan mount.Plan) []checkResult {
	var lines []checkResult
	for _, t := range plan.Toolchains {
		lines = append(lines, checkResult{"PATH", "ok", t.Entry + ", read-only, with what its programs need", ""})
	}
	for _, pp := range plan.PathProblems {
		lines = append(lines, checkResult{
			"PATH", "warn", pp.Entry + " does not work inside: " + pp.Reason,
			"drop it from PATH, or show what it needs yourself: claudebox --ro-bind DIR",
		})
	}
	return lines
}

func checkHostObeys(plan mount.Plan) []checkResult {
	var lines []checkResult
	for _, u := range plan.Unprotected {
		lines = append(lines, checkResult{
			"host obeys", "warn", u.From + ": " + u.Reason + "; no guard can protect it",
			"take it out of PATH (or your dotfiles' links) before you start claudebox",
		})
	}
	return lines
}

// checkApproval names what the project's files add that waits for the
// user's approval, and which the trial leaves out.
func checkApproval(s *session.Session) []checkResult {
	if len(s.Unapproved()) == 0 {
		return nil
	}
	var what []string
	for _, a := range s.Unapproved() {
		what = append(what, a.Show)
	}
	return []checkResult{{
		"project settings", "warn", "not yet approved for this project, left out of the trial: " + strings.Join(what, ", "),
		"check them, then claudebox --yes (or answer the question a launch asks)",
	}}
}

// runTrial runs the plan's sandbox, true and then claude --version, on one
// setup of the instance: the trial's line says whether a sandbox starts,
// and claude's gains its version inside, or fails if it does not start
// there.
func runTrial(s *session.Session, userns, claude checkResult) (trial, claudeInside checkResult) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		return checkResult{"trial sandbox", "fail", "true not found on PATH", "install coreutils"}, claude
	}
	commands := [][]string{{truePath}, s.Plan().Command}
	if probe := proxyCommand(); probe != nil {
		commands = [][]string{{truePath}, probe, s.Plan().Command}
	}
	out, stderr, err := s.Trial(commands...)
	if len(out) == 0 {
		return explainTrial(stderr, err, userns), claude
	}
	trial = checkResult{"trial sandbox", "ok", "a sandbox built from this plan ran true", ""}
	if len(commands) == 3 && len(out) > 1 {
		p := proxyResult(out[1], s.Plan().Relay != nil)
		trial.Detail += "; " + p.Detail
		trial.Status, trial.Fix = p.Status, p.Fix
		out = slices.Delete(out, 1, 2)
	}
	if err != nil {
		return trial, checkResult{"claude", "fail", "does not start in the sandbox: " + lastLine(stderr, err), "claudebox --shell, and run claude there to see why"}
	}
	claude.Detail += ", " + strings.TrimSpace(out[1]) + " inside the sandbox"
	return trial, claude
}

// report prints the lines, or writes them as JSON; it fails when one
// does.
func (c checkCmd) report(results []checkResult) error {
	ok := true
	for _, r := range results {
		ok = ok && r.Status != "fail"
	}
	if c.JSON {
		err := writeJSON(os.Stdout, struct {
			OK     bool          `json:"ok"`
			Checks []checkResult `json:"checks"`
		}{ok, results})
		if err != nil {
			return err
		}
	} else {
		mark := map[string]string{"ok": "✓", "warn": "⚠", "fail": "✗"}
		for _, r := range results {
			printable.Say(os.Stdout, "%s %s: %s", mark[r.Status], r.Name, r.Detail)
			if r.Fix != "" {
				printable.Say(os.Stdout, "  fix: %s", r.Fix)
			}
		}
	}
	if !ok {
		return errQuiet
	}
	return nil
}

func bindSource(b mount.BindSpec) string {
	if b.From == "" {
		return " (command line)"
	}
	return " (" + b.From + ")"
}

// errQuiet fails the run without a message: the report said it all.
var errQuiet = errors.New("check failed")

func checkBwrap(bwrap string) checkResult {
	version, _ := exec.Command(bwrap, "--version").Output()
	help, _ := exec.Command(bwrap, "--help").CombinedOutput()
	var missing []string
	for _, f := range bwrapFeatures {
		if !bytes.Contains(help, []byte(f+" ")) {
			missing = append(missing, f)
		}
	}
	v := strings.TrimSpace(string(version))
	if len(missing) > 0 {
		return checkResult{
			"bwrap", "fail", fmt.Sprintf("%s (%s) lacks %s", bwrap, v, strings.Join(missing, ", ")),
			"install a newer bubblewrap, e.g. nix profile install nixpkgs#bubblewrap",
		}
	}
	return checkResult{"bwrap", "ok", fmt.Sprintf("%s, %s, with every feature claudebox uses", bwrap, v), ""}
}

// checkLandlock says whether a sandbox gets Landlock's scoping, and what
// is open without it.
func checkLandlock(bwrap string) checkResult {
	ok, why := probe.LandlockScoping(bwrap)
	if !ok {
		return checkResult{
			"landlock", "warn", why + ": on the shared network the sandbox can connect to the host's abstract Unix sockets (X11, D-Bus)",
			"Linux 6.12 or later with Landlock enabled (lsm=landlock,…), a bwrap that is not setuid; or launch with --no-network",
		}
	}
	return checkResult{"landlock", "ok", fmt.Sprintf("scoped (ABI %d): the host's abstract Unix sockets and processes are out of reach", landlock.ABI()), ""}
}

// Kernel releases claudebox needs: pidfds, openat2 and setns into a
// sandbox's namespaces to start a session at all; mount_setattr for the
// watcher to stand a guard again after the host replaces the file.
var (
	kernelForSessions = [2]int{5, 8}
	kernelForGuards   = [2]int{5, 12}
)

// kernelRelease is the running kernel's release, as uname -r says it.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// checkKernel says what the kernel release lets a session do.
func checkKernel(release string) checkResult {
	var v [2]int
	if _, err := fmt.Sscanf(release, "%d.%d", &v[0], &v[1]); err != nil {
		return checkResult{"kernel", "warn", fmt.Sprintf("release %q not understood; claudebox needs Linux %d.%d, and %d.%d for the guards to survive the host's renames",
			release, kernelForSessions[0], kernelForSessions[1], kernelForGuards[0], kernelForGuards[1]), ""}
	}
	older := func(min [2]int) bool { return v[0] < min[0] || v[0] == min[0] && v[1] < min[1] }
	switch {
	case older(kernelForSessions):
		return checkResult{"kernel", "fail", fmt.Sprintf("Linux %s: a session needs %d.%d or later", release, kernelForSessions[0], kernelForSessions[1]), "upgrade the kernel"}
	case older(kernelForGuards):
		return checkResult{"kernel", "warn", fmt.Sprintf("Linux %s: when the host replaces a protected file (git config, an editor's save), the session ends instead of the protection standing again (needs %d.%d)",
			release, kernelForGuards[0], kernelForGuards[1]), "upgrade the kernel"}
	}
	return checkResult{"kernel", "ok", "Linux " + release, ""}
}

// checkUserns reads the kernel switches that allow an unprivileged user to
// create user namespaces.
func checkUserns() checkResult {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(procSys, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("kernel/unprivileged_userns_clone") == "0":
		return checkResult{"user namespaces", "fail", "kernel.unprivileged_userns_clone = 0", "sudo sysctl -w kernel.unprivileged_userns_clone=1"}
	case read("user/max_user_namespaces") == "0":
		return checkResult{"user namespaces", "fail", "user.max_user_namespaces = 0", "sudo sysctl -w user.max_user_namespaces=15000"}
	case read("kernel/apparmor_restrict_unprivileged_userns") == "1":
		return checkResult{"user namespaces", "warn", "kernel.apparmor_restrict_unprivileged_userns = 1: allowed only to programs with an AppArmor profile that permits them", apparmorFix}
	}
	return checkResult{"user namespaces", "ok", "allowed for unprivileged users", ""}
}

// installKind says how claude was installed, from where its path leads.
func installKind(claude, home string) string {
	real, err := filepath.EvalSymlinks(claude)
	if err != nil {
		real = claude
	}
	switch {
	case strings.Contains(real, "/node_modules/@anthropic-ai/claude-code/"):
		return "npm package"
	case home != "" && (paths.Within(real, filepath.Join(home, ".local", "share", "claude")) || paths.Within(real, filepath.Join(home, ".claude", "local"))):
		return "native installer"
	case strings.HasPrefix(real, "/nix/store/"):
		return "Nix"
	}
	return "installed as " + real
}

func checkClaudeDir(home string) checkResult {
	if fi, err := os.Stat(filepath.Join(home, ".claude")); err == nil && fi.IsDir() {
		return checkResult{"~/.claude", "ok", "present", ""}
	}
	return checkResult{"~/.claude", "warn", "absent: no plugins, skills or settings to bring in yet", "run claude once on the host"}
}

// checkCredentials names the credential a launch would give the proxy and,
// for an OAuth login, when its access token expires; never a value.
func checkCredentials(h session.Home) checkResult {
	if p := probe.Provider(os.Getenv); p != "" {
		return checkResult{"credentials", "ok", p + " is set: Claude uses the cloud provider's credentials", ""}
	}
	lookup := environment.Env{API: hostAPIValues(h.Dir)}.APILookup
	c, err := probe.ClaudeLogin(h.Dir, h.State, lookup, os.Getenv, true)
	if err != nil {
		return checkResult{"credentials", "fail", "no login and no API key", "log in on the host: claude /login (or export ANTHROPIC_API_KEY)"}
	}
	inside := "; the sandbox gets a phantom, the proxy adds the real one"
	// A key the user refused in Claude Code gives way to the login, but
	// not in a -p run.
	if p, err := probe.ClaudeLogin(h.Dir, h.State, lookup, os.Getenv, false); err == nil && p.Source != c.Source {
		inside += "; not " + p.Source + ", which you told Claude Code not to use (claudebox -p uses it, as claude -p does)"
	}
	if !strings.HasPrefix(c.Source, "/") {
		return checkResult{"credentials", "ok", c.Source + " is set" + inside, ""}
	}
	expiry, err := c.Expiry()
	if err != nil {
		return checkResult{"credentials", "fail", err.Error(), "log in again on the host: claude /login"}
	}
	left := time.Until(expiry).Round(time.Minute)
	when := "expires " + expiry.Local().Format("2006-01-02 15:04") + " (in " + left.String() + ")"
	if left <= 0 {
		when = "expired " + expiry.Local().Format("2006-01-02 15:04") + ": claudebox refreshes it at the first request"
	}
	return checkResult{"credentials", "ok", "OAuth login in " + c.Source + ", access token " + when + inside, ""}
}

// hostAPIValues are the user's values of the API variables: the shell's,
// then their Claude Code settings' (which win, as for their claude).
func hostAPIValues(home string) map[string]string {
	m := map[string]string{}
	for _, kv := range append(os.Environ(), claudesettings.APIEnv(home)...) {
		if n, v, _ := strings.Cut(kv, "="); slices.Contains(environment.APIVariables, n) {
			m[n] = v
		}
	}
	return m
}

func checkStateDir(state string) checkResult {
	dir := state
	if _, err := os.Stat(state); err != nil {
		dir = filepath.Dir(state)
	}
	if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
		return checkResult{"~/.claudebox", "fail", dir + " is not writable", "chmod u+rwx " + dir}
	}
	if dir != state {
		return checkResult{"~/.claudebox", "ok", "will be created", ""}
	}
	return checkResult{"~/.claudebox", "ok", "writable", ""}
}

// explainTrial turns a failed trial into the line that says why, from
// bwrap's own message.
func explainTrial(stderr string, err error, userns checkResult) checkResult {
	msg := lastLine(stderr, err)
	r := checkResult{"trial sandbox", "fail", msg, "see Troubleshooting in the README"}
	// The launch's own hint for bwrap's failure (the path it could not
	// make), unless a line below knows better.
	if h := hint.Of(err); h != "" {
		r.Fix = h
	}
	switch {
	case strings.Contains(stderr, "setting up uid map: Permission denied"):
		r.Detail = msg + ": AppArmor refuses bwrap a user namespace"
		r.Fix = apparmorFix
	case strings.Contains(stderr, "No permissions to create"), strings.Contains(stderr, "Creating new namespace failed"):
		r.Detail = msg + ": user namespaces are disabled"
		r.Fix = userns.Fix
		if r.Fix == "" {
			r.Fix = "sudo sysctl -w user.max_user_namespaces=15000"
		}
	case strings.Contains(stderr, "Can't mount proc"):
		r.Detail = msg + ": this looks like a container that does not let bwrap mount /proc"
		r.Fix = "run claudebox on the host, or in a container started with --privileged"
	}
	return r
}

func lastLine(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := lines[len(lines)-1]; l != "" {
		return l
	}
	return err.Error()
}

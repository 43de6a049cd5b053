// Package mount builds the sandbox's mount plan: one ordered value from which
// the bwrap argv, --dry-run and SANDBOX.md are all derived.
package mount

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
)

// Kind is a bwrap mount operation.
type Kind string

const (
	RoBind  Kind = "--ro-bind"
	Bind    Kind = "--bind"
	Symlink Kind = "--symlink"
	Tmpfs   Kind = "--tmpfs"
	Proc    Kind = "--proc"
	Dev     Kind = "--dev"
)

// Mount is one entry of the plan. For Symlink, Src is the link's target.
type Mount struct {
	Kind Kind
	Src  string
	Dest string
	// Why is the reason for the entry, shown by --dry-run.
	Why string
}

// Writable reports whether the sandbox can write through the mount.
func (m Mount) Writable() bool { return m.Kind == Bind || m.Kind == Tmpfs }

// Plan is everything the sandbox is made of.
type Plan struct {
	Mounts []Mount
	// Home is $HOME, inside and out.
	Home string
	// Env lists the names of the variables passed in; values are looked up
	// at exec time and never stored here, so nothing that prints a plan can
	// print a secret.
	Env []string
	// Chdir is the working directory inside.
	Chdir string
	// Project is the project the sandbox is for.
	Project instance.Project
	// Instance is the per-project state directory on the host.
	Instance string
	// SandboxMD is where SANDBOX.md is read inside the sandbox.
	SandboxMD string
	// Network says whether the sandbox shares the host's network.
	Network bool
	// Command runs inside: claude and its arguments, or a shell.
	Command []string
}

// HostPath is a path that exists on the host; Link is its target when it
// is a symlink.
type HostPath struct {
	Path string
	Link string
}

// Host holds the facts about the host filesystem that the plan depends on,
// gathered by Probe so that Build stays pure.
type Host struct {
	// System lists the existing system directories from SystemDirs.
	System []HostPath
	// ResolvConf is the real path of /etc/resolv.conf when it lies outside
	// the system directories (systemd-resolved keeps it under /run).
	ResolvConf string
	// SandboxMDOnHost says ~/.claude/SANDBOX.md exists on the host.
	SandboxMDOnHost bool
	// SandboxLogin says ~/.claudebox/.credentials.json exists.
	SandboxLogin bool
	// LoginOnHost says ~/.claude/.credentials.json exists.
	LoginOnHost bool
	// GitConfig lists the user's git configuration files that exist.
	GitConfig []string
	// Command lists the symlinks to recreate and the directory to bind
	// read-only so the command's path resolves inside, for a command
	// installed outside the system directories (e.g. under the hidden $HOME).
	Command []HostPath
}

// SystemDirs are bound read-only when they exist: the programs, libraries
// and configuration every tool needs, including Nix's store and NixOS's
// current system.
var SystemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/nix", "/run/current-system",
}

// Inputs are everything a plan is built from.
type Inputs struct {
	Home     string
	StateDir string // ~/.claudebox
	Project  instance.Project
	Cwd      string // the working directory, symlinks resolved
	Host     Host
	Env      []string // the names to pass in, from Environment
	Network  bool
	// Command is the program to run inside with its arguments. When Claude
	// is the program, Build adds the SANDBOX.md flag.
	Command []string
	Claude  bool
}

// Paths of claudebox's state on the host.
func HistoryFile(stateDir string) string      { return filepath.Join(stateDir, "history.jsonl") }
func SandboxLoginFile(stateDir string) string { return filepath.Join(stateDir, ".credentials.json") }

// SandboxMDFile names the generated SANDBOX.md inside an instance directory.
const SandboxMDFile = "SANDBOX.md"

// Build makes the plan. Order matters: bwrap applies mounts left to right
// and a later mount hides what an earlier one put at the same path, so the
// real ~/.claude comes first and the per-project overlays after it.
func Build(in Inputs) Plan {
	home := in.Home
	claudeDir := filepath.Join(home, ".claude")
	projects := filepath.Join(claudeDir, "projects")
	inst := instance.Dir(in.StateDir, in.Project.Root)
	p := Plan{
		Home:      home,
		Env:       in.Env,
		Chdir:     in.Cwd,
		Project:   in.Project,
		Instance:  inst,
		SandboxMD: filepath.Join(projects, SandboxMDFile),
		Network:   in.Network,
	}
	add := func(k Kind, src, dest, why string) {
		p.Mounts = append(p.Mounts, Mount{Kind: k, Src: src, Dest: dest, Why: why})
	}
	for _, d := range in.Host.System {
		if d.Link != "" {
			add(Symlink, d.Link, d.Path, "system path, as on the host")
		} else {
			add(RoBind, d.Path, d.Path, "system path, read-only")
		}
	}
	add(Proc, "", "/proc", "the sandbox's own processes only")
	add(Dev, "", "/dev", "minimal devices")
	add(Tmpfs, "", "/tmp", "private /tmp")
	if in.Host.ResolvConf != "" {
		add(RoBind, in.Host.ResolvConf, in.Host.ResolvConf, "target of /etc/resolv.conf, for DNS")
	}
	add(Tmpfs, "", home, "private $HOME: the rest of the home directory is hidden")
	add(Bind, claudeDir, claudeDir, "the real ~/.claude: plugins, skills, settings")
	add(Bind, inst, projects, "this project's instance: sessions isolated per project")
	rootFile := filepath.Join(projects, instance.RootFile)
	add(RoBind, filepath.Join(inst, instance.RootFile), rootFile, "the instance's key, read-only")
	add(RoBind, filepath.Join(inst, SandboxMDFile), p.SandboxMD, "sandbox facts for Claude, read-only")
	add(Bind, HistoryFile(in.StateDir), filepath.Join(claudeDir, "history.jsonl"), "sandbox-side prompt history")
	if in.Host.SandboxMDOnHost {
		add(RoBind, filepath.Join(inst, SandboxMDFile), filepath.Join(claudeDir, SandboxMDFile), "so an @SANDBOX.md import reads this project's facts")
	}
	if in.Host.SandboxLogin {
		add(Bind, SandboxLoginFile(in.StateDir), filepath.Join(claudeDir, ".credentials.json"), "separate sandbox login")
	}
	add(Symlink, filepath.Join(projects, instance.ClaudeJSONFile), filepath.Join(home, ".claude.json"),
		"Claude Code's state file, kept per instance (it saves by rename)")
	for _, f := range in.Host.GitConfig {
		add(RoBind, f, f, "git configuration, read-only")
	}
	for _, c := range in.Host.Command {
		if c.Link != "" {
			add(Symlink, c.Link, c.Path, "command installed under $HOME")
		} else {
			add(RoBind, c.Path, c.Path, "command installed under $HOME, read-only")
		}
	}
	add(Bind, in.Project.Checkout, in.Project.Checkout, "the project, read-write")
	for _, d := range in.Project.GitDirs {
		add(Bind, d, d, "the repository's git directory, so git works in this worktree")
	}
	p.Command = in.Command
	if in.Claude {
		p.Command = append([]string{in.Command[0], "--append-system-prompt-file", p.SandboxMD}, in.Command[1:]...)
	}
	return p
}

// HostMountPoints lists the mounts whose target is a path on the host: an
// overlay inside a directory bound at its own path (the real ~/.claude, the
// project). bwrap would create a missing target there as an empty read-only
// file or directory, left behind on the host; the launch creates them first.
// The nearest enclosing mount decides: an overlay inside the instance bind
// lands in claudebox's own state, not the host's.
func (p Plan) HostMountPoints() []Mount {
	var points []Mount
	for i, m := range p.Mounts {
		if m.Kind != Bind && m.Kind != RoBind {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			outer := p.Mounts[j]
			if outer.Dest == m.Dest || !instance.Within(m.Dest, outer.Dest) {
				continue
			}
			if (outer.Kind == Bind || outer.Kind == RoBind) && outer.Src == outer.Dest {
				points = append(points, m)
			}
			break
		}
	}
	return points
}

// namespaceArgs isolate everything but the network, which the user's
// Claude needs to reach its API.
var namespaceArgs = []string{
	"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
	"--die-with-parent",
}

// Args is the bwrap argv (without argv[0]) that realises the plan.
func (p Plan) Args() []string {
	args := append([]string{}, namespaceArgs...)
	if !p.Network {
		args = append(args, "--unshare-net")
	}
	for _, m := range p.Mounts {
		args = append(args, m.args()...)
	}
	args = append(args, "--chdir", p.Chdir, "--")
	return append(args, p.Command...)
}

func (m Mount) args() []string {
	switch m.Kind {
	case Proc, Dev, Tmpfs:
		return []string{string(m.Kind), m.Dest}
	default:
		return []string{string(m.Kind), m.Src, m.Dest}
	}
}

// Script renders the exact command a launch execs, one mount per line,
// shell-quoted so it can be pasted. The environment is written as references
// to the caller's variables, never as values.
func (p Plan) Script(bwrap string) string {
	var b strings.Builder
	b.WriteString("env -i")
	for _, name := range p.Env {
		b.WriteString(" " + name + `="$` + name + `"`)
	}
	b.WriteString(" \\\n  " + Quote(bwrap))
	line := func(words ...string) {
		b.WriteString(" \\\n    ")
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(Quote(w))
		}
	}
	line(namespaceArgs...)
	if !p.Network {
		line("--unshare-net")
	}
	for _, m := range p.Mounts {
		line(m.args()...)
	}
	line("--chdir", p.Chdir)
	line(append([]string{"--"}, p.Command...)...)
	b.WriteByte('\n')
	return b.String()
}

// Quote quotes s for a POSIX shell when it needs it.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/evalrun"
	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/internal/idle"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/relay"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/transcript"
)

// cli is claudebox's own command line. Its modes are flags, not
// subcommands: every word that is not claudebox's goes to claude, and a
// prompt may well be a word like "list".
type cli struct {
	Shell    bool   `group:"launch" xor:"mode" help:"Run bash instead of claude; arguments go to bash."`
	DryRun   bool   `group:"launch" help:"Print the bwrap command and exit (--gc: only report)."`
	Yes      bool   `group:"launch" short:"y" help:"Approve what the project's files add, and remember it."`
	Worktree string `group:"launch" short:"w" placeholder:"NAME" help:"Work in branch NAME's git worktree (made if new)."`
	// --agent's choices and help are the agent table's (agentFromTable).
	Agent string `group:"launch" default:"claude" placeholder:"NAME"`

	Bind               []string `group:"sandbox" placeholder:"SRC[:DEST]" sep:"none" help:"Mount SRC read-write (at DEST); repeatable."`
	RoBind             []string `group:"sandbox" placeholder:"SRC[:DEST]" sep:"none" help:"Mount SRC read-only (at DEST); repeatable."`
	Env                []string `group:"sandbox" placeholder:"NAME[=VALUE]" sep:"none" help:"Pass NAME, or set it to VALUE; repeatable."`
	WithSSH            *bool    `group:"sandbox" name:"with-ssh" help:"Forward your SSH agent; keys stay unreadable."`
	WithGPG            *bool    `group:"sandbox" name:"with-gpg" help:"Forward gpg-agent for signing; keys stay unreadable."`
	WithGPU            *bool    `group:"sandbox" name:"with-gpu" help:"Show the host's GPU devices (CUDA, ROCm, DRM)."`
	Network            *string  `group:"sandbox" placeholder:"MODE" help:"filtered (default: allowed hosts), host or none."`
	AllowHost          []string `group:"sandbox" name:"allow-host" placeholder:"HOST" sep:"none" help:"Let the filtered network reach HOST[:PORT]."`
	Publish            []string `group:"sandbox" placeholder:"[HOST:]PORT" sep:"none" help:"Serve PORT inside on the host's 127.0.0.1[:HOST]."`
	Forward            []string `group:"sandbox" placeholder:"PORT" sep:"none" help:"Reach the host's 127.0.0.1:PORT inside."`
	Live               bool     `group:"sandbox" help:"With --allow-host: allow it in the running session."`
	Save               bool     `group:"sandbox" help:"With --allow-host: keep it in config.toml."`
	NetLog             bool     `group:"sandbox" name:"net-log" xor:"mode" help:"Follow the running session's network decisions."`
	NoNetwork          *bool    `group:"sandbox" help:"No network at all, as --network=none."`
	WithClipboard      *bool    `group:"sandbox" name:"with-clipboard" help:"Let it write your clipboard (OSC 52)."`
	WithDesktopSockets *bool    `group:"sandbox" name:"with-desktop-sockets" help:"Let it reach X11, D-Bus (abstract sockets)."`
	WithProjectSockets *bool    `group:"sandbox" name:"with-project-sockets" help:"Let it make and reach Unix sockets in the project."`
	WithMCP            []string `group:"sandbox" name:"with-mcp" placeholder:"NAME" sep:"none" help:"Carry MCP server NAME of ~/.claude.json; repeatable."`
	Memory             *string  `group:"sandbox" placeholder:"SIZE" help:"Bound each process's memory inside (8G; 0: none)."`
	CPUs               *int     `group:"sandbox" name:"cpus" placeholder:"N" help:"Run the sandbox on N processors (0: all)."`
	Pids               *int     `group:"sandbox" placeholder:"N" help:"Bound its tasks (default 4096; 0: none)."`

	MoveAside *bool   `group:"end" name:"move-aside" help:"Move aside what the host would obey (=false: name it)."`
	ExportDir *string `group:"end" name:"export-dir" placeholder:"DIR" help:"Export the sessions as Markdown into DIR/<project>/."`

	Check  bool   `group:"instances" xor:"mode" help:"Check that a launch here will work; exit 0 only if so."`
	Gc     bool   `group:"instances" name:"gc" xor:"mode" help:"Remove the instances whose project is gone."`
	Caches bool   `group:"instances" help:"With --gc: empty every project's tool caches instead."`
	List   bool   `group:"instances" xor:"mode" help:"List the instances, stale ones first."`
	JSON   bool   `group:"instances" name:"json" help:"JSON for --list*, --check, --net-log, --changes."`
	Move   string `group:"instances" xor:"mode" placeholder:"OLD" help:"Carry OLD's history here (a former root, or a hash)."`
	Merge  bool   `group:"instances" help:"With --move: merge into this project's instance."`

	KeepPermissions bool `group:"instances" name:"keep-permissions" xor:"mode" help:"Review and keep the permission rules saved inside."`
	Undo            bool `group:"instances" help:"Put the files back as the last session found them."`
	Changes         bool `group:"instances" xor:"mode" help:"List the files the last session made, changed, removed."`

	// Ungrouped flags come first in --help wherever they are declared; the
	// xor flags keep one order, which kong's "can't be used together"
	// errors follow.
	Version    versionFlag `help:"Print the version (claude's: -- --version)."`
	Completion string      `xor:"mode" placeholder:"SHELL" help:"Print the completion script for bash, zsh or fish."`

	Eval       bool     `group:"eval" xor:"mode" help:"Run claude -p from a clean slate, a folder per run."`
	Out        string   `group:"eval" placeholder:"DIR" help:"With --eval: where each run leaves DIR/<run-id>/."`
	Prompt     string   `group:"eval" placeholder:"TEXT" help:"With --eval: the prompt."`
	PromptFile string   `group:"eval" name:"prompt-file" placeholder:"FILE" help:"With --eval: read the prompt from FILE."`
	Skill      []string `group:"eval" placeholder:"DIR" sep:"none" help:"With --eval: stage the skill in DIR; repeatable."`
	Fixtures   string   `group:"eval" placeholder:"DIR" help:"With --eval: copy DIR into the workspace's fixtures/."`
	Repeat     int      `group:"eval" default:"1" placeholder:"N" help:"With --eval: make N independent runs."`
	Jobs       int      `group:"eval" default:"1" placeholder:"N" help:"With --eval: run N at a time."`
	Model      string   `group:"eval" placeholder:"MODEL" help:"With --eval: claude's --model."`
	ClaudePath string   `group:"eval" name:"claude" placeholder:"PATH" help:"With --eval: run this claude (pins its version)."`

	Export       bool   `group:"export" xor:"mode" help:"Print the latest session, or ID, as Markdown."`
	Last         bool   `group:"export" help:"With --export: the latest session (the default)."`
	Output       string `group:"export" short:"o" placeholder:"FILE" help:"With --export: write to FILE, not stdout."`
	ExportAll    string `group:"export" name:"export-all" xor:"mode" placeholder:"DIR" help:"Write every session into DIR, one <id>.md each."`
	ListSessions bool   `group:"export" name:"list-sessions" xor:"mode" help:"List this project's sessions: id, start, title."`
	Detail       string `group:"export" enum:"chat,tools,full" default:"tools" help:"With --export: chat, tools (results cut) or full."`
	Thinking     bool   `group:"export" help:"With --export: include Claude's thinking."`
	NoRedact     bool   `group:"export" name:"no-redact" help:"With --export: do not redact keys and tokens."`

	// SSHKey was the bash claudebox's; it is refused with the way to do it now.
	SSHKey string `name:"ssh-key" hidden:""`
	// Claude is filled by splitArgs, not by kong; it is declared for --help.
	Claude []string `arg:"" optional:"" name:"claude-args" help:"Arguments for claude, passed unchanged and in order."`
}

// helpGroups are --help's sections, in the order a user reaches for them.
var helpGroups = kong.ExplicitGroups([]kong.Group{
	{Key: "launch", Title: "Launch:"},
	{Key: "sandbox", Title: "What the sandbox may reach (also in config.toml):"},
	{Key: "end", Title: "When a session ends (also in config.toml):"},
	{Key: "instances", Title: "Instances (one per project, in ~/.claudebox/projects):"},
	{Key: "export", Title: "Conversations (Claude Code's transcripts of this project):"},
	{Key: "eval", Title: "Eval runs (each from the same empty state; the flags after --eval are its own):"},
})

const description = `Run Claude Code in a bubblewrap sandbox, with conversation history kept per project.

Use claudebox where you would type claude: every argument that is not one of
the flags below goes to claude unchanged and in order; after --, all of them
do. Claude's own help: claudebox -- --help.

The flags of the groups marked "also in config.toml" can be set in
~/.config/claudebox/config.toml; what the sandbox may reach, also in a
repository's .claudebox.toml once you approve it. Documentation: README.md and docs/ in
https://github.com/claudebox/claudebox.`

// sshKeyGone refuses the bash claudebox's --ssh-key KEY, with the way
// to do it now.
func sshKeyGone(key string) error {
	load := strings.TrimSpace("ssh-add " + key)
	return hint.Errorf("load the key into your agent ("+load+") and use --with-ssh", "--ssh-key is gone: key files never enter the sandbox")
}

// Run launches the sandbox, or prints its command with --dry-run.
func (c *cli) Run(ctx *kong.Context) error {
	switch {
	case c.Completion != "":
		return writeCompletion(os.Stdout, ctx.Model.Node, c.Completion)
	case c.JSON && !c.List && !c.Check && !c.ListSessions && !c.NetLog && !c.Changes:
		return hint.Errorf("claudebox --list --json", "--json goes with --list, --list-sessions, --check, --net-log or --changes")
	case (c.Live || c.Save) && len(c.AllowHost) == 0:
		return hint.Errorf("claudebox --allow-host HOST --live", "--live and --save go with --allow-host")
	case (c.Last || c.Output != "") && !c.Export, (c.Thinking || c.NoRedact || c.Detail != string(transcript.Tools)) && !c.Export && c.ExportAll == "":
		return hint.Errorf("claudebox --export --help", "--last, -o, --detail, --thinking and --no-redact go with --export")
	case c.Export && (len(c.Claude) > 1 || len(c.Claude) == 1 && c.Last):
		return hint.Errorf("claudebox --export [SESSION | --last]", "--export takes one session: %s", strings.Join(c.Claude, " "))
	case c.Caches && !c.Gc:
		return hint.Errorf("claudebox --gc --caches", "--caches goes with --gc")
	case c.Merge && c.Move == "":
		return hint.Errorf("claudebox --move OLD --merge", "--merge goes with --move")
	case c.DryRun && (c.List || c.Changes || c.Move != "" || c.Check || c.Export || c.ExportAll != "" || c.ListSessions || c.KeepPermissions || c.NetLog || c.Live || c.Save):
		return hint.Errorf("--dry-run goes with a launch or --gc", "--dry-run does not apply here")
	case c.DryRun && c.Eval:
		return hint.Errorf("each run leaves its plan.sh", "--dry-run does not apply to --eval")
	case (c.Gc || c.List || c.Changes || c.Move != "" || c.Check || c.ExportAll != "" || c.ListSessions || c.KeepPermissions || c.NetLog || c.Live || c.Save) && len(c.Claude) > 0:
		return hint.Errorf("claudebox --help", "unexpected arguments: %s", strings.Join(c.Claude, " "))
	case c.SSHKey != "":
		return sshKeyGone(c.SSHKey)
	}
	if c.Undo {
		if err := c.undoAlone(); err != nil {
			return err
		}
	}
	home, err := session.FindHome()
	if err == nil && !c.DryRun {
		sweepKilled(home.State)
	}
	switch {
	case c.Check:
		// --check reports a bad home as one of its lines.
		return checkCmd{JSON: c.JSON}.Run(home, err)
	case err != nil:
		return err
	case c.Eval:
		return evalrun.Run(home, evalrun.Options{
			Out: c.Out, Prompt: c.Prompt, PromptFile: c.PromptFile, Skills: c.Skill, Fixtures: c.Fixtures, Repeat: c.Repeat, Jobs: c.Jobs,
			Model: c.Model, Claude: c.ClaudePath, Network: c.Network, AllowHosts: c.AllowHost, Args: c.Claude, Version: versionString(),
		}, os.Stdout)
	case c.Undo:
		u := undoCmd{List: c.List, DryRun: c.DryRun, Yes: c.Yes}
		if len(c.Claude) == 1 {
			u.ID = c.Claude[0]
		}
		return u.Run(home)
	case c.Changes:
		return changesCmd{JSON: c.JSON}.Run(home)
	case c.Gc:
		return gcCmd{DryRun: c.DryRun, Caches: c.Caches}.Run(home)
	case c.NetLog:
		return netLogCmd{JSON: c.JSON}.Run(home)
	case c.Live || c.Save:
		return allowLiveCmd{Hosts: c.AllowHost, Live: c.Live, Save: c.Save}.Run(home)
	case c.List:
		return listCmd{JSON: c.JSON}.Run(home)
	case c.Move != "":
		return moveCmd{Old: c.Move, Merge: c.Merge}.Run(home)
	case c.KeepPermissions:
		return keepPermissionsCmd{Yes: c.Yes}.Run(home)
	case c.Export || c.ExportAll != "" || c.ListSessions:
		ex := exportCmd{
			Output: c.Output, AllDir: c.ExportAll, All: c.ExportAll != "", List: c.ListSessions, JSON: c.JSON,
			Options: transcript.Options{Detail: transcript.Detail(c.Detail), Thinking: c.Thinking, NoRedact: c.NoRedact},
		}
		if len(c.Claude) == 1 {
			ex.Session = c.Claude[0]
		}
		return ex.Run(home)
	}
	if c.Worktree != "" {
		if err := enterWorktree(home, c.Worktree, c.DryRun); err != nil {
			return err
		}
	}
	if !c.Shell && c.Agent == agent.Claude.Name {
		if err := refuseClaudeBackground(c.Claude); err != nil {
			return err
		}
		if err := refuseHostOnly(c.Claude); err != nil {
			return err
		}
	}
	flags := config.Settings{
		Bind: c.Bind, RoBind: c.RoBind, Env: c.Env, WithSSH: c.WithSSH, WithGPG: c.WithGPG, GPU: c.WithGPU, NoNetwork: c.NoNetwork, Network: c.Network, AllowHosts: c.AllowHost, Publish: c.Publish, Forward: c.Forward, MoveAside: c.MoveAside,
		WithClipboard: c.WithClipboard, WithDesktopSockets: c.WithDesktopSockets, WithProjectSockets: c.WithProjectSockets, ExportDir: c.ExportDir, MCP: c.WithMCP,
		Memory: c.Memory, CPUs: c.CPUs, Pids: c.Pids,
	}
	run, _ := agent.Named(c.Agent)
	if c.Shell && !run.IsClaude() {
		return hint.Errorf("claudebox --shell, or claudebox --agent "+run.Name, "--shell and --agent go separately")
	}
	return launchCmd{DryRun: c.DryRun, Yes: c.Yes, Shell: c.Shell, Agent: run, Flags: flags, Args: c.Claude}.Run(home)
}

// undoAlone refuses what --undo does not go with: it takes --list,
// --dry-run, -y and one snapshot's ID.
func (c *cli) undoAlone() error {
	if c.Gc || c.Changes || c.Move != "" || c.Check || c.Export || c.ExportAll != "" || c.ListSessions || c.KeepPermissions || c.NetLog || c.Eval || c.Shell || len(c.Claude) > 1 || c.List && len(c.Claude) > 0 {
		return hint.Errorf("claudebox --undo [ID | --list] [--dry-run] [-y]", "--undo goes alone")
	}
	return nil
}

// version is stamped by the build (-ldflags -X main.version=…); go install
// records the module version instead.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// report writes err in claudebox's voice: a prefixed line, then its hint.
func report(w io.Writer, err error) {
	printable.Say(w, "claudebox: %v", err)
	if h := hint.Of(err); h != "" {
		printable.Say(w, "hint: %s", h)
	}
}

// newParser is the command line's parser. It is given no variables: kong
// interpolates each into every flag's help, default and placeholder with
// a regular expression as it builds the parser, whether help is printed
// or not (three were 90 KB of a launch's fresh heap); what they held is
// set once, where it is used (agentFromTable, versionFlag).
func newParser(c *cli) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("claudebox"),
		kong.Description(description),
		kong.PostBuild(agentFromTable),
		kong.UsageOnError(),
		helpGroups,
	)
}

// agentFromTable gives --agent the agent table's names, as its choices
// and in its help.
func agentFromTable(k *kong.Kong) error {
	for _, f := range k.Model.Flags {
		if f.Name == "agent" {
			f.Enum = strings.Join(agent.Names(), ",")
			f.Tag.Enum = f.Enum
			f.Help = "Run " + agentsAnd() + "; arguments go to it."
			return nil
		}
	}
	return errors.New("no --agent flag")
}

// versionFlag prints claudebox's version and exits, as kong.VersionFlag
// does, with no variable.
type versionFlag bool

// BeforeReset prints the version and exits with 0.
func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, "claudebox "+versionString())
	app.Exit(0)
	return nil
}

// agentsAnd are the agent table's names as --help says them: "a, b or c".
func agentsAnd() string {
	names := agent.Names()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func run(args []string) int {
	// Inside a sandbox on the filtered network, claudebox is the published
	// ports' relay and ssh's way out (as its first process, it never gets
	// here: package firstprocess).
	if ok, err := relay.Main(args); ok {
		if err != nil {
			report(os.Stderr, err)
			return 1
		}
		return 0
	}
	session.CloseInheritedOnExec()
	if slices.Equal(args, []string{guardwatch.Flag}) {
		return watchGuards()
	}
	idle.Start()
	var c cli
	parser, err := newParser(&c)
	if err != nil {
		report(os.Stderr, err)
		return 2
	}
	own, rest := splitArgs(parser.Model.Node, args)
	if err := refuseNearFlags(parser.Model.Node, args); err != nil {
		report(os.Stderr, err)
		return 2
	}
	ctx, err := parser.Parse(own)
	if err != nil {
		err = hint.Errorf("claudebox --help lists claudebox's flags", "%v", err)
		if missing := missingValue(parser.Model.Node, own); missing != nil {
			err = missing
		}
		report(os.Stderr, err)
		return 2
	}
	c.Claude = rest
	if err := ctx.Run(); err != nil {
		var status session.ExitCode
		if errors.As(err, &status) {
			return int(status)
		}
		if !errors.Is(err, errQuiet) {
			report(os.Stderr, err)
		}
		return 1
	}
	return 0
}

// watchGuards runs claudebox as the guard watcher of a session (see
// package guardwatch); only the supervisor starts it. Once it has said its
// last, it closes its output, which the supervisor waits for: its exit
// then tears down the sandbox's mounts, 10-20 ms that no one waits for.
func watchGuards() int {
	err := guardwatch.Run(os.Stdin, os.Stdout)
	if err != nil {
		report(os.Stderr, err)
	}
	os.Stdout.Close()
	os.Stderr.Close()
	if err != nil {
		return 1
	}
	return 0
}

// splitArgs separates claudebox's own flags (with their values) from the
// arguments for claude, keeping the latter in order. A bare -- ends
// claudebox's flags and is not passed on.
func splitArgs(node *kong.Node, args []string) (own, rest []string) {
	eval := evalAsked(args)
	takesValue := map[string]bool{}
	for _, f := range node.Flags {
		if f.Group != nil && f.Group.Key == "eval" && f.Name != "eval" && !eval {
			// Only --eval's: without it, --model and the rest are claude's.
			continue
		}
		takesValue["--"+f.Name] = !f.IsBool()
		if f.Short != 0 {
			takesValue["-"+string(f.Short)] = !f.IsBool()
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return own, append(rest, args[i+1:]...)
		}
		name, _, hasValue := strings.Cut(a, "=")
		needsValue, isOwn := takesValue[name]
		if !isOwn {
			rest = append(rest, a)
			continue
		}
		own = append(own, a)
		if needsValue && !hasValue && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	return own, rest
}

// evalAsked says --eval comes before any --.
func evalAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--eval":
			return true
		}
	}
	return false
}

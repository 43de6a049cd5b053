package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/relay"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/transcript"
)

// cli is claudebox's own command line. Its modes are flags, not
// subcommands: every word that is not claudebox's goes to claude, and a
// prompt may well be a word like "list".
type cli struct {
	Shell  bool   `group:"launch" xor:"mode" help:"Run bash instead of claude; arguments go to bash."`
	DryRun bool   `group:"launch" help:"Print the bwrap command and exit (--gc: only report)."`
	Yes    bool   `group:"launch" short:"y" help:"Approve what the project's files add, and remember it."`
	Agent  string `group:"launch" enum:"claude,codex,gemini" default:"claude" placeholder:"NAME" help:"Run claude, codex or gemini; arguments go to it."`

	Bind               []string `group:"sandbox" placeholder:"SRC[:DEST]" sep:"none" help:"Mount SRC read-write (at DEST); repeatable."`
	RoBind             []string `group:"sandbox" placeholder:"SRC[:DEST]" sep:"none" help:"Mount SRC read-only (at DEST); repeatable."`
	Env                []string `group:"sandbox" placeholder:"NAME[=VALUE]" sep:"none" help:"Pass NAME, or set it to VALUE; repeatable."`
	WithSSH            *bool    `group:"sandbox" name:"with-ssh" help:"Forward your SSH agent; keys stay unreadable."`
	Network            *string  `group:"sandbox" placeholder:"MODE" help:"filtered (default: allowed hosts), host or none."`
	AllowHost          []string `group:"sandbox" name:"allow-host" placeholder:"HOST" sep:"none" help:"Let the filtered network reach HOST[:PORT]."`
	NoNetwork          *bool    `group:"sandbox" help:"No network at all, as --network=none."`
	WithClipboard      *bool    `group:"sandbox" name:"with-clipboard" help:"Let it write your clipboard (OSC 52)."`
	WithDesktopSockets *bool    `group:"sandbox" name:"with-desktop-sockets" help:"Let it reach X11, D-Bus (abstract sockets)."`
	WithMCP            []string `group:"sandbox" name:"with-mcp" placeholder:"NAME" sep:"none" help:"Carry MCP server NAME of ~/.claude.json; repeatable."`

	MoveAside *bool   `group:"end" name:"move-aside" help:"Move aside what the host would obey (=false: name it)."`
	ExportDir *string `group:"end" name:"export-dir" placeholder:"DIR" help:"Export the sessions as Markdown into DIR/<project>/."`

	Check bool   `group:"instances" xor:"mode" help:"Check that a launch here will work; exit 0 only if so."`
	Gc    bool   `group:"instances" name:"gc" xor:"mode" help:"Remove the instances whose project is gone."`
	List  bool   `group:"instances" xor:"mode" help:"List the instances, stale ones first."`
	JSON  bool   `group:"instances" name:"json" help:"With --list, --list-sessions or --check: print JSON."`
	Move  string `group:"instances" xor:"mode" placeholder:"OLD" help:"Carry OLD's history here (a former root, or a hash)."`
	Merge bool   `group:"instances" help:"With --move: merge into this project's instance."`

	// Ungrouped flags come first in --help wherever they are declared; the
	// xor flags keep one order, which kong's "can't be used together"
	// errors follow.
	Version    kong.VersionFlag `help:"Print the version (claude's: -- --version)."`
	Completion string           `xor:"mode" placeholder:"SHELL" help:"Print the completion script for bash, zsh or fish."`

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
	// WatchGuards runs claudebox as the guard watcher of a session (see
	// package guardwatch); only the supervisor starts it.
	WatchGuards bool `name:"watch-guards" hidden:""`
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
})

const description = `Run Claude Code in a bubblewrap sandbox, with conversation history kept per project.

Use claudebox where you would type claude: every argument that is not one of
the flags below goes to claude unchanged and in order; after --, all of them
do. Claude's own help: claudebox -- --help.

The flags of the groups marked "also in config.toml" can be set in
~/.config/claudebox/config.toml; what the sandbox may reach, also in a
repository's .claudebox.toml once you approve it. Documentation: README.md and docs/ in
https://github.com/claudebox/claudebox.`

// Run launches the sandbox, or prints its command with --dry-run.
func (c *cli) Run(ctx *kong.Context) error {
	switch {
	case c.Completion != "":
		return writeCompletion(os.Stdout, ctx.Model.Node, c.Completion)
	case c.JSON && !c.List && !c.Check && !c.ListSessions:
		return hint.Errorf("claudebox --list --json", "--json goes with --list, --list-sessions or --check")
	case (c.Last || c.Output != "") && !c.Export, (c.Thinking || c.NoRedact || c.Detail != string(transcript.Tools)) && !c.Export && c.ExportAll == "":
		return hint.Errorf("claudebox --export --help", "--last, -o, --detail, --thinking and --no-redact go with --export")
	case c.Export && (len(c.Claude) > 1 || len(c.Claude) == 1 && c.Last):
		return hint.Errorf("claudebox --export [SESSION | --last]", "--export takes one session: %s", strings.Join(c.Claude, " "))
	case c.Merge && c.Move == "":
		return hint.Errorf("claudebox --move OLD --merge", "--merge goes with --move")
	case c.DryRun && (c.List || c.Move != "" || c.Check || c.Export || c.ExportAll != "" || c.ListSessions):
		return hint.Errorf("--dry-run goes with a launch or --gc", "--dry-run does not apply here")
	case (c.Gc || c.List || c.Move != "" || c.Check || c.ExportAll != "" || c.ListSessions) && len(c.Claude) > 0:
		return hint.Errorf("claudebox --help", "unexpected arguments: %s", strings.Join(c.Claude, " "))
	case c.SSHKey != "":
		return hint.Errorf("load the key into your agent (ssh-add "+c.SSHKey+") and use --with-ssh", "--ssh-key is gone: key files never enter the sandbox")
	case c.WatchGuards:
		return guardwatch.Run(os.Stdin, os.Stdout)
	}
	home, err := session.FindHome()
	switch {
	case c.Check:
		// --check reports a bad home as one of its lines.
		return checkCmd{JSON: c.JSON}.Run(home, err)
	case err != nil:
		return err
	case c.Gc:
		return gcCmd{DryRun: c.DryRun}.Run(home)
	case c.List:
		return listCmd{JSON: c.JSON}.Run(home)
	case c.Move != "":
		return moveCmd{Old: c.Move, Merge: c.Merge}.Run(home)
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
	flags := config.Settings{
		Bind: c.Bind, RoBind: c.RoBind, Env: c.Env, WithSSH: c.WithSSH, NoNetwork: c.NoNetwork, Network: c.Network, AllowHosts: c.AllowHost, MoveAside: c.MoveAside,
		WithClipboard: c.WithClipboard, WithDesktopSockets: c.WithDesktopSockets, ExportDir: c.ExportDir, MCP: c.WithMCP,
	}
	run, _ := agent.Named(c.Agent)
	if c.Shell && !run.IsClaude() {
		return hint.Errorf("claudebox --shell, or claudebox --agent "+run.Name, "--shell and --agent go separately")
	}
	return launchCmd{DryRun: c.DryRun, Yes: c.Yes, Shell: c.Shell, Agent: run, Flags: flags, Args: c.Claude}.Run(home)
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

func newParser(c *cli) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("claudebox"),
		kong.Description(description),
		kong.Vars{"version": "claudebox " + versionString()},
		kong.UsageOnError(),
		helpGroups,
	)
}

func run(args []string) int {
	// Inside a sandbox on the filtered network, claudebox is its first
	// process and its relay.
	if ok, err := relay.Main(args); ok {
		if err != nil {
			report(os.Stderr, err)
			return 1
		}
		return 0
	}
	session.CloseInheritedOnExec()
	var c cli
	parser, err := newParser(&c)
	if err != nil {
		report(os.Stderr, err)
		return 2
	}
	own, rest := splitArgs(parser.Model.Node, args)
	ctx, err := parser.Parse(own)
	if err != nil {
		report(os.Stderr, hint.Errorf("claudebox --help lists claudebox's flags", "%v", err))
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

// splitArgs separates claudebox's own flags (with their values) from the
// arguments for claude, keeping the latter in order. A bare -- ends
// claudebox's flags and is not passed on.
func splitArgs(node *kong.Node, args []string) (own, rest []string) {
	takesValue := map[string]bool{}
	for _, f := range node.Flags {
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

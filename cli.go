package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/transcript"
)

// cli is claudebox's own command line. Its modes are flags, not
// subcommands: every word that is not claudebox's goes to claude, and a
// prompt may well be a word like "list".
type cli struct {
	DryRun             bool     `help:"Print the exact command a launch would exec, one mount per line, and exit. With --gc: report, remove nothing."`
	Shell              bool     `xor:"mode" help:"Open bash in the same sandbox instead of Claude; the other arguments go to bash."`
	Bind               []string `placeholder:"SRC[:DEST]" sep:"none" help:"Also mount SRC read-write, at DEST or at its own path; what the host runs in it stays read-only. Repeatable."`
	RoBind             []string `placeholder:"SRC[:DEST]" sep:"none" help:"Also mount SRC read-only, at DEST or at its own path. Secrets inside either stay hidden. Repeatable."`
	Env                []string `placeholder:"NAME[=VALUE]" sep:"none" help:"Also pass the environment variable NAME into the sandbox, or set it to VALUE. Repeatable."`
	WithSSH            *bool    `name:"with-ssh" help:"Forward your SSH agent (SSH_AUTH_SOCK): your keys work for git push inside, and stay unreadable."`
	NoNetwork          *bool    `help:"Give the sandbox no network, not even the host's loopback: Claude then reaches no API unless one is served inside."`
	MoveAside          *bool    `name:"move-aside" help:"When the project's last session ends, move aside what it left that the host would run or obey (the default); =false only names it."`
	WithClipboard      *bool    `name:"with-clipboard" help:"Let what runs inside write your clipboard through the terminal (OSC 52); otherwise such writes are dropped."`
	WithDesktopSockets *bool    `name:"with-desktop-sockets" help:"Let the sandbox reach your desktop's abstract Unix sockets (X11, D-Bus), which it otherwise cannot even on the shared network."`
	WithMCP            []string `name:"with-mcp" placeholder:"NAME" sep:"none" help:"Carry the MCP server NAME of your ~/.claude.json (yours or this project's) into the sandbox. Repeatable."`
	Yes                bool     `short:"y" help:"Allow what the project's files add (.claudebox.toml, env files) without asking, and remember it for this project."`
	// SSHKey was the bash claudebox's; it is refused with the way to do it now.
	SSHKey string `name:"ssh-key" hidden:""`
	// WatchGuards runs claudebox as the guard watcher of a session (see
	// package guardwatch); only the supervisor starts it.
	WatchGuards  bool             `name:"watch-guards" hidden:""`
	Check        bool             `xor:"mode" help:"Check that a launch here will work: bwrap, user namespaces, claude, credentials, a trial sandbox. Exit 0 only if it will."`
	Gc           bool             `name:"gc" xor:"mode" help:"Remove the instances whose project no longer exists, and report."`
	List         bool             `xor:"mode" help:"List the instances: root, state, sessions, size, last use; stale ones first."`
	JSON         bool             `name:"json" help:"With --list: print JSON."`
	Move         string           `xor:"mode" placeholder:"OLD" help:"Carry the history of OLD (a former project root, or an instance hash from --list) to the current project."`
	Merge        bool             `help:"With --move: merge into the current project's existing instance."`
	Completion   string           `xor:"mode" placeholder:"SHELL" help:"Print the completion script for SHELL: bash, zsh or fish."`
	Export       bool             `xor:"mode" help:"Print a session of this project as Markdown: the most recent, or the one whose id (or its start) follows."`
	Last         bool             `help:"With --export: the most recent session (the default)."`
	Output       string           `short:"o" placeholder:"FILE" help:"With --export: write to FILE instead of stdout."`
	ExportAll    string           `name:"export-all" xor:"mode" placeholder:"DIR" help:"Write every session of this project as Markdown into DIR, one <id>.md each."`
	ListSessions bool             `name:"list-sessions" xor:"mode" help:"List this project's sessions: id, start, turns, title."`
	Detail       string           `enum:"chat,tools,full" default:"tools" help:"With --export: chat (what you and Claude wrote), tools (and each tool call, its result cut), full (results whole)."`
	Thinking     bool             `help:"With --export: include Claude's thinking."`
	ExportDir    *string          `name:"export-dir" placeholder:"DIR" help:"Export each session of the project as Markdown into DIR/<project>/ when it ends (and, if claudebox was killed, at the next launch)."`
	NoRedact     bool             `name:"no-redact" help:"With --export: keep keys, tokens and private keys as they are (they are redacted by default, best-effort)."`
	Version      kong.VersionFlag `help:"Print claudebox's version. Claude's own: claudebox -- --version."`
	// Claude is filled by splitArgs, not by kong; it is declared for --help.
	Claude []string `arg:"" optional:"" name:"claude-args" help:"Arguments for claude, passed unchanged and in order."`
}

const description = `Run Claude Code in a bubblewrap sandbox, with conversation history kept per project.

Use claudebox where you would type claude. Every argument that is not one of
the flags below goes to claude unchanged and in order; after --, all of them
do. Claude's own help: claudebox -- --help.

The flags' settings can also live in ~/.config/claudebox/config.toml, and in a
repository's .claudebox.toml once you approve it (see the README).`

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
		ex := exportCmd{Output: c.Output, AllDir: c.ExportAll, All: c.ExportAll != "", List: c.ListSessions, JSON: c.JSON,
			Options: transcript.Options{Detail: transcript.Detail(c.Detail), Thinking: c.Thinking, NoRedact: c.NoRedact}}
		if len(c.Claude) == 1 {
			ex.Session = c.Claude[0]
		}
		return ex.Run(home)
	}
	flags := config.Settings{Bind: c.Bind, RoBind: c.RoBind, Env: c.Env, WithSSH: c.WithSSH, NoNetwork: c.NoNetwork, MoveAside: c.MoveAside,
		WithClipboard: c.WithClipboard, WithDesktopSockets: c.WithDesktopSockets, ExportDir: c.ExportDir, MCP: c.WithMCP}
	return launchCmd{DryRun: c.DryRun, Yes: c.Yes, Shell: c.Shell, Flags: flags, Args: c.Claude}.Run(home)
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
	)
}

func run(args []string) int {
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

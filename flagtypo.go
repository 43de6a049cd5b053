package main

import (
	"slices"
	"strings"
	"unicode"

	"github.com/alecthomas/kong"

	"github.com/claudebox/claudebox/hint"
)

// claudeFlags are Claude Code's own long options (2.1.330's claude
// --help): a word that is one of them goes to claude even when it is a
// small edit of one of claudebox's (--agents beside --agent).
var claudeFlags = []string{
	"--add-dir", "--agent", "--agents", "--all", "--allow-dangerously-skip-permissions", "--allowed-tools", "--allowedTools",
	"--append-system-prompt", "--append-system-prompt-file", "--autocompact", "--ax-screen-reader", "--background", "--bare", "--betas", "--bg", "--brief",
	"--chrome", "--cloud", "--continue", "--dangerously-skip-permissions", "--debug", "--debug-file", "--desktop",
	"--disable-slash-commands", "--disallowed-tools", "--disallowedTools", "--effort", "--environment",
	"--exclude-dynamic-system-prompt-sections", "--fallback-model", "--file", "--fork-session", "--forward-subagent-text",
	"--from-pr", "--help", "--ide", "--include-hook-events", "--include-partial-messages", "--input-format", "--json-schema",
	"--max-budget-usd", "--max-turns", "--mcp-config", "--model", "--name", "--no-chrome", "--no-session-persistence", "--output-format",
	"--permission-mode", "--permission-prompt-tool", "--permission-prompts", "--plugin-dir", "--plugin-url", "--print",
	"--prompt-suggestions", "--remote-control", "--remote-control-session-name-prefix", "--replay-user-messages",
	"--restricted", "--resume", "--safe-mode", "--session-id", "--setting-sources", "--settings", "--strict-mcp-config",
	"--system-prompt", "--system-prompt-file", "--system-prompt-snapshot", "--teleport", "--tmux", "--tools", "--verbose", "--version", "--worktree",
}

// refuseNearFlags refuses, before anything starts, a word of args that
// is a small edit of one of claudebox's flags and none of claude's: a typo
// (--with-shh) would otherwise start a sandbox and end in claude's
// "unknown option". Words after -- are claude's whatever they are.
func refuseNearFlags(node *kong.Node, args []string) error {
	var own []string
	eval := evalAsked(args)
	for _, f := range node.Flags {
		if f.Hidden || f.Group != nil && f.Group.Key == "eval" && f.Name != "eval" && !eval {
			continue
		}
		own = append(own, "--"+f.Name)
	}
	for _, a := range args {
		if a == "--" {
			return nil
		}
		word, _, _ := strings.Cut(a, "=")
		if !strings.HasPrefix(word, "--") || len(word) < 5 || slices.Contains(own, word) || slices.Contains(claudeFlags, word) {
			continue
		}
		for _, f := range own {
			if editDistance(word, f) <= allowedEdits(f) {
				return hint.Errorf("did you mean "+f+"? To pass it to claude as it is: claudebox -- "+a, "%s is neither claudebox's flag nor claude's", word)
			}
		}
	}
	return nil
}

// allowedEdits is how far a word may be from flag to be taken for a typo
// of it: one edit for a short flag, two for a longer one.
func allowedEdits(flag string) int {
	if len(flag) <= 7 {
		return 1
	}
	return 2
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of neighbours that turn a into b (the optimal string alignment
// distance).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// missingValue names the first of claudebox's flags in own (as splitArgs
// gave them) that has no value: the last word, or followed by a word that
// is a flag, which kong refuses as a value. Claude Code's own -w takes
// its name optionally, so `claudebox -w` is a newcomer's habit, which
// kong would answer with `expected string value but got "EOL"`.
func missingValue(node *kong.Node, own []string) error {
	flags := map[string]*kong.Flag{}
	for _, f := range node.Flags {
		if f.IsBool() || f.IsCounter() {
			continue
		}
		flags["--"+f.Name] = f
		if f.Short != 0 {
			flags["-"+string(f.Short)] = f
		}
	}
	for i, a := range own {
		f, ok := flags[a]
		if !ok || i+1 < len(own) && (own[i+1] == "-" || !strings.HasPrefix(own[i+1], "-")) {
			continue
		}
		if f.Name == "ssh-key" {
			// The bash claudebox's, hidden, with no help to quote.
			return sshKeyGone("")
		}
		value := f.PlaceHolder
		if value == "" {
			value = "VALUE"
		}
		usage := "claudebox " + a + " " + value
		if what := []rune(strings.TrimSuffix(f.Help, ".")); len(what) > 0 {
			what[0] = unicode.ToLower(what[0])
			usage += ": " + string(what)
		}
		if f.Name == "worktree" {
			usage += "; claude's own -w, which makes up a name: claudebox -- -w"
		}
		if i+1 == len(own) {
			return hint.Errorf(usage, "%s is given no %s", a, value)
		}
		return hint.Errorf(usage+"; a "+value+" that starts with -: "+a+"="+own[i+1], "%s is given no %s: %s is a flag", a, value, own[i+1])
	}
	return nil
}

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/claudebox/claudebox/hint"
)

// completionFlag is one of claudebox's flags as the completion scripts need
// it, read from the kong model so that they cannot drift from --help.
type completionFlag struct {
	long, short string
	help        string
	value       string // what a value is: "variable", "directory", "shell", "" (none)
}

func completionFlags(node *kong.Node) []completionFlag {
	var flags []completionFlag
	for _, f := range node.Flags {
		if f.Hidden {
			continue
		}
		cf := completionFlag{long: f.Name, help: firstSentence(f.Help)}
		if f.Short != 0 {
			cf.short = string(f.Short)
		}
		if !f.IsBool() {
			switch f.Name {
			case "env":
				cf.value = "variable"
			case "move":
				cf.value = "directory"
			case "completion":
				cf.value = "shell"
			default:
				cf.value = "file"
			}
		}
		flags = append(flags, cf)
	}
	return flags
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// writeCompletion prints the completion script for shell. Words that are not
// claudebox's flags go to claude, so they complete as files.
func writeCompletion(w io.Writer, node *kong.Node, shell string) error {
	flags := completionFlags(node)
	switch shell {
	case "bash":
		var words []string
		var cases strings.Builder
		for _, f := range flags {
			words = append(words, "--"+f.long)
			if f.short != "" {
				words = append(words, "-"+f.short)
			}
			switch f.value {
			case "variable":
				fmt.Fprintf(&cases, "\t--%s) COMPREPLY=($(compgen -v -- \"$cur\")); return;;\n", f.long)
			case "directory":
				fmt.Fprintf(&cases, "\t--%s) COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n", f.long)
			case "shell":
				fmt.Fprintf(&cases, "\t--%s) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return;;\n", f.long)
			}
		}
		fmt.Fprintf(w, `# bash completion for claudebox (claudebox --completion bash)
_claudebox() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
%s	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "%s" -- "$cur"))
	fi
}
complete -o default -F _claudebox claudebox
`, cases.String(), strings.Join(words, " "))
	case "zsh":
		fmt.Fprintln(w, "#compdef claudebox\n# zsh completion for claudebox (claudebox --completion zsh)\n_arguments -s \\")
		for _, f := range flags {
			help := strings.NewReplacer("'", "'\\''", "[", "(", "]", ")", ":", " -").Replace(f.help)
			spec := "--" + f.long
			if f.short != "" {
				spec = "(-" + f.short + " --" + f.long + ")'{-" + f.short + ",--" + f.long + "}'"
			}
			switch f.value {
			case "":
				fmt.Fprintf(w, "\t'%s[%s]' \\\n", spec, help)
			case "variable":
				fmt.Fprintf(w, "\t'*%s=[%s]:variable:_parameters' \\\n", spec, help)
			case "directory":
				fmt.Fprintf(w, "\t'%s=[%s]:old root:_files -/' \\\n", spec, help)
			case "shell":
				fmt.Fprintf(w, "\t'%s=[%s]:shell:(bash zsh fish)' \\\n", spec, help)
			default:
				fmt.Fprintf(w, "\t'%s=[%s]:file:_files' \\\n", spec, help)
			}
		}
		fmt.Fprintln(w, "\t'*::claude argument:_files'")
	case "fish":
		fmt.Fprintln(w, "# fish completion for claudebox (claudebox --completion fish)")
		for _, f := range flags {
			line := "complete -c claudebox -l " + f.long
			if f.short != "" {
				line += " -s " + f.short
			}
			switch f.value {
			case "variable":
				line += " -x -a '(set -n)'"
			case "directory":
				line += " -x -a '(__fish_complete_directories)'"
			case "shell":
				line += " -x -a 'bash zsh fish'"
			case "file":
				line += " -r"
			}
			line += " -d '" + strings.ReplaceAll(f.help, "'", "\\'") + "'"
			fmt.Fprintln(w, line)
		}
	default:
		return hint.Errorf("claudebox --completion bash (or zsh, fish)", "no completion for shell %q", shell)
	}
	return nil
}

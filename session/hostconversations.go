package session

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/transcript"
)

// sayHostConversations says, after claudebox -c or --resume that found
// none of the conversations claude had in this folder on the host, that
// those stay there: Claude inside said only "No conversation found to
// continue" (with -p it began a new one), and a user who had continued
// them with claude -c took them for lost. Bringing them in is the user's
// choice, made by hand: what they hold (what claude read on the host,
// outside any sandbox) becomes readable inside. transcripts are the
// instance's as the launch found them.
func (s *Session) sayHostConversations(transcripts map[string]time.Time) {
	if s.shell || !s.agent.IsClaude() {
		return
	}
	id, asked := resumeAsked(s.args)
	if !asked {
		return
	}
	name := gc.ClaudeProjectDir(s.plan.Chdir)
	host := filepath.Join(s.plan.Home, ".claude", "projects")
	into := filepath.Join(s.plan.Instance, name)
	if inst, err := filepath.EvalSymlinks(s.plan.Instance); err == nil {
		into = filepath.Join(inst, name)
	}
	if id != "" {
		if strings.Contains(id, "/") {
			return
		}
		if _, inside := transcripts[filepath.Join(name, id+".jsonl")]; inside {
			return
		}
		if !paths.Exists(filepath.Join(host, name, id+".jsonl")) {
			// Claude inside said only "No conversation found with
			// session ID", of one the end of another project's session
			// had named.
			if root := gc.SessionProject(s.stateDir, id, s.plan.Project.Root); root != "" {
				printable.Say(os.Stderr, "claudebox: conversation %s is another project's: claudebox keeps each project's conversations apart", id)
				printable.Say(os.Stderr, "hint: cd %s && claudebox --resume %s", mount.Quote(root), id)
			}
			return
		}
		printable.Say(os.Stderr, "claudebox: conversation %s is claude's on the host, not the sandbox's: claudebox keeps its own, per project", id)
		printable.Say(os.Stderr, "hint: to resume it inside, where what it holds becomes readable, copy it in: %s", copyInto(into, mount.Quote(filepath.Join(host, name, id+".jsonl"))))
		return
	}
	for rel := range transcripts {
		if strings.HasPrefix(rel, name+"/") {
			return
		}
	}
	n, _ := transcript.ProjectDir(host, name)
	if n == 0 {
		return
	}
	printable.Say(os.Stderr, "claudebox: claude's conversations in this folder on the host (%d) are not the sandbox's: claudebox keeps its own, per project", n)
	printable.Say(os.Stderr, "hint: to continue them inside, where what they hold becomes readable, copy them in: %s", copyInto(into, mount.Quote(filepath.Join(host, name))+"/*.jsonl"))
}

// copyInto is the command that copies the files from names into the
// directory into, in the instance, which the sandbox writes: it may have
// left into, or a file in it, a link to where the user's cp would write
// outside the instance. The command enters into by its physical path and
// goes on only if it is that path (no link), and replaces a file it
// copies onto rather than writing through it.
func copyInto(into, from string) string {
	q := mount.Quote(into)
	return "(mkdir -p " + q + " && cd -P " + q + ` && [ "$PWD" = ` + q + " ] && cp --remove-destination " + from + " .)"
}

// resumeAsked says whether claude's arguments continue or resume a
// conversation (-c, --continue, -r, --resume, -cp), and which one when
// named.
func resumeAsked(args []string) (id string, asked bool) {
	args = claudeWords(args)
	for i, a := range args {
		switch {
		case a == "--":
			return "", false
		case a == "-c" || a == "--continue":
			return "", true
		case a == "-r" || a == "--resume":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				return args[i+1], true
			}
			return "", true
		case strings.HasPrefix(a, "--resume="):
			return strings.TrimPrefix(a, "--resume="), true
		}
	}
	return "", false
}

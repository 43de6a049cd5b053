package mount

import "path/filepath"

// Eval is what an eval run's sandbox is made of in place of the user's
// ~/.claude and project: directories of the run's own on the host, made
// fresh for it and thrown away after it.
type Eval struct {
	// Workspace is the copy of the project the run works in, shown at
	// EvalWorkspace.
	Workspace string
	// ClaudeDir is the run's ~/.claude: a generated settings file, and what
	// Claude Code writes there (its session's JSONL) for the run to keep.
	// It holds the generated ~/.claude.json too, as EvalClaudeJSON, which
	// ~/.claude.json links to (Claude Code saves it by rename).
	ClaudeDir string
}

// EvalWorkspace is where an eval run's workspace is inside: a path of its
// own, so that no directory above it holds anything of the host's (an
// ancestor's CLAUDE.md or .claude/skills), and the same in every run, so
// that the runs' requests are the same.
const EvalWorkspace = "/workspace"

// EvalClaudeJSON is the name of the generated ~/.claude.json in the run's
// ~/.claude.
const EvalClaudeJSON = "claude.json"

// addEval mounts the run's own ~/.claude and workspace, and nothing of the
// user's ~/.claude or project.
func (p *Plan) addEval(e *Eval) {
	claudeDir := filepath.Join(p.Home, ".claude")
	p.add(ClaudeConfig, Bind, e.ClaudeDir, claudeDir, "the eval run's own ~/.claude: generated settings, nothing of yours")
	p.add(ClaudeConfig, Symlink, filepath.Join(claudeDir, EvalClaudeJSON), filepath.Join(p.Home, ".claude.json"),
		"the eval run's generated state file: onboarding done, the workspace trusted")
	p.add(ProjectTree, Bind, e.Workspace, EvalWorkspace, "the eval run's copy of the project, read-write; the project itself is not mounted")
	p.Chdir = EvalWorkspace
}

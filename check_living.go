package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/session"
)

// maxBranches bounds the branches --check compares: enough for a
// developer's own, not a mirror's thousands.
const maxBranches = 200

// checkBranches names the local branches a checkout inside fails on: they
// change a protected file the project tracks (.envrc,
// .vscode/settings.json, .gitmodules, .claude/settings.json, .mcp.json),
// which is read-only inside, so git there cannot change it (and the
// sandbox's git wrapper makes that a failure).
func checkBranches(plan mount.Plan) []checkResult {
	root := plan.Project.Checkout
	var protected []string
	for _, g := range plan.Guards {
		if rel, err := filepath.Rel(root, g.Path); g.Exists && g.From == "" && err == nil && filepath.IsLocal(rel) && !strings.HasPrefix(rel, ".git"+string(filepath.Separator)) && rel != ".git" {
			protected = append(protected, rel)
		}
	}
	if len(protected) == 0 || plan.Project.GitDir == "" {
		return nil
	}
	// A FIFO the session left where git reads (a loose branch in
	// .git/refs, an object) would hold git, and --check, forever.
	ctx, cancel := context.WithTimeout(context.Background(), branchesLimit)
	defer cancel()
	git := func(args ...string) ([]string, bool) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", root}, args...)...).Output()
		if err != nil {
			return nil, false
		}
		return strings.Fields(string(out)), true
	}
	head, ok := git("rev-parse", "--verify", "-q", "HEAD")
	if !ok || len(head) != 1 {
		return nil
	}
	// Pairs of words: a branch's commit, then its name (which holds no
	// space).
	refs, _ := git("for-each-ref", "--count="+fmt.Sprint(maxBranches), "--format=%(objectname) %(refname:lstrip=2)", "refs/heads")
	var lines []checkResult
	for i := 0; i+1 < len(refs); i += 2 {
		commit, name := refs[i], refs[i+1]
		if commit == head[0] {
			continue
		}
		changed, ok := git(append([]string{"diff", "--no-ext-diff", "--no-textconv", "--name-only", head[0], commit, "--"}, protected...)...)
		if !ok || len(changed) == 0 {
			continue
		}
		lines = append(lines, checkResult{
			"branches", "warn",
			fmt.Sprintf("a checkout of %s inside fails: %s is protected there, git cannot change it", name, strings.Join(changed, ", ")),
			"switch branches, merge and pull on the host while it differs",
		})
	}
	if ctx.Err() != nil {
		lines = append(lines, checkResult{
			"branches", "warn",
			fmt.Sprintf("git did not answer in %v: the branches were not all compared", branchesLimit),
			"look in .git for a FIFO a session left (find .git -type p), and remove it",
		})
	}
	return lines
}

// branchesLimit bounds the comparison of the branches, a diagnosis.
const branchesLimit = 20 * time.Second

// checkPendingPermissions says when permission rules saved inside wait
// for claudebox --keep-permissions.
func checkPendingPermissions(h session.Home, plan mount.Plan) []checkResult {
	rules, err := claudesettings.Pending(h.State, plan.Instance)
	if err != nil || len(rules) == 0 || !paths.Exists(plan.Instance) {
		return nil
	}
	return []checkResult{{
		"permission rules", "warn",
		fmt.Sprintf("%d saved inside by this project's sessions wait, not yet in your settings", len(rules)),
		"claudebox --keep-permissions shows them and keeps those you confirm",
	}}
}

package mount

import "strings"

// WorktreesDir is where the worktrees Claude Code makes inside are checked
// out: a private folder of the session's, as the project's repository's
// .git/worktrees, where git records them, is (Guard.Private). Claude Code
// refuses to make one of its own from a repository whose .git holds a
// commondir file, which claudebox stands there, and one under the
// project's .claude/worktrees for the same reason; one a WorktreeCreate
// hook makes elsewhere it takes as it is.
const WorktreesDir = "/run/claudebox/worktrees"

// worktreeHook is the WorktreeCreate and WorktreeRemove hook claudebox's
// managed settings give Claude Code inside: it makes the worktree with git
// in WorktreesDir, on the branch worktree-<name> (the one Claude Code's
// own would be), taken up again where it exists, and removes it, with its
// branch where that holds no commit of its own; at the session's end
// (SessionEnd) it removes those left the same way: Claude Code keeps a
// subagent's worktree it cannot look into, and so its branch.
const worktreeHook = "/run/claudebox/worktree"

// worktreeSettings is the drop-in of Claude Code's managed settings that
// names the hook: managed, so that the user's settings (disableAllHooks,
// allowManagedHooksOnly) and the project's leave it in force.
const worktreeSettings = "/etc/claude-code/managed-settings.d/claudebox-worktrees.json"

// worktreeHookScript is the hook's script, but for the project's top,
// which it starts with. The name comes from Claude Code's request (JSON
// on standard input, the name's letters limited to what a branch and a
// folder take); the script runs inside with the sandbox's rights only.
const worktreeHookScript = `dir=` + WorktreesDir + `
input=$(cat)
case $1 in
create)
	name=$(printf '%s\n' "$input" | sed -n 's/.*"name" *: *"\([A-Za-z0-9][A-Za-z0-9._-]*\)".*/\1/p' | head -n 1)
	case $name in
	'' | *..* | *.lock | *.)
		echo "claudebox: a worktree's name here is letters, digits, dots, dashes and underscores" >&2
		exit 1
		;;
	esac
	if [ ${#name} -gt 64 ]; then
		echo "claudebox: a worktree's name here is at most 64 characters" >&2
		exit 1
	fi
	branch=worktree-$name
	if git -C "$top" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		git -C "$top" worktree add -q "$dir/$name" "$branch" >&2 || exit 1
	else
		git -C "$top" worktree add -q -b "$branch" "$dir/$name" HEAD >&2 || exit 1
	fi
	printf '%s\n' "$dir/$name"
	;;
remove)
	path=$(printf '%s\n' "$input" | sed -n 's|.*"worktree_path" *: *"\(` + WorktreesDir + `/[A-Za-z0-9][A-Za-z0-9._-]*\)".*|\1|p' | head -n 1)
	case $path in
	'' | */..) exit 1 ;;
	esac
	branch=$(git -C "$path" symbolic-ref -q --short HEAD)
	git -C "$top" worktree remove --force "$path" >&2 || exit 1
	# As Claude Code's own removal, its branch goes where it holds no
	# commit of its own (git branch -d: none HEAD lacks).
	case $branch in
	worktree-*) git -C "$top" branch -d -q "$branch" >/dev/null 2>&1 ;;
	esac
	exit 0
	;;
end)
	# The session's end, not a /clear or /resume, after which it goes on:
	# its worktrees go with the tmpfs; a branch with no commit of its own
	# goes with them, as above.
	case $input in *'"reason":"clear"'* | *'"reason":"resume"'*) exit 0 ;; esac
	for path in "$dir"/*; do
		[ -e "$path/.git" ] || continue
		branch=$(git -C "$path" symbolic-ref -q --short HEAD)
		git -C "$top" worktree remove --force "$path" >/dev/null 2>&1 || continue
		case $branch in
		worktree-*) git -C "$top" branch -d -q "$branch" >/dev/null 2>&1 ;;
		esac
	done
	exit 0
	;;
esac
`

// addWorktrees gives the session the folder its worktrees are checked out
// in and, for Claude Code, the hook that makes them there.
func (p *Plan) addWorktrees(checkout string, claude bool) {
	p.add(Private, Tmpfs, "", WorktreesDir, "the worktrees made inside (Claude Code's EnterWorktree, a subagent's isolation: worktree), private, lost at exit: their commits are on their branches in your repository")
	if !claude {
		return
	}
	p.Mounts = append(p.Mounts,
		Mount{
			Kind: RoBindData, Dest: worktreeHook, Content: "#!/bin/sh\n# claudebox: makes and removes Claude Code's worktrees in " + WorktreesDir + "\ntop=" + shQuote(checkout) + "\n" + worktreeHookScript,
			executable: true, ownText: true, Role: Private,
			Why: "claudebox's WorktreeCreate, WorktreeRemove and SessionEnd hook: git worktree add in " + WorktreesDir,
		},
		Mount{
			Kind: RoBindData, Dest: worktreeSettings, Content: worktreeSettingsJSON(), ownText: true, Role: Private,
			Why: "Claude Code's managed settings naming claudebox's worktree hook",
		})
}

// worktreeSettingsJSON is the managed drop-in naming the hook for the
// worktrees' events and the session's end.
func worktreeSettingsJSON() string {
	hook := func(event, arg string) string {
		return `"` + event + `":[{"hooks":[{"type":"command","command":"` + worktreeHook + ` ` + arg + `"}]}]`
	}
	return `{"hooks":{` + strings.Join([]string{hook("WorktreeCreate", "create"), hook("WorktreeRemove", "remove"), hook("SessionEnd", "end")}, ",") + "}}\n"
}

package mount

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/paths"
)

// gitWrapperDir is the sandbox-only directory first on PATH inside: it
// holds the git wrapper, and nothing else.
const gitWrapperDir = "/run/claudebox/bin"

// gitWrapperScript is the wrapper's start; gitWrapper adds the protected
// paths and the project's top. A git that rewrites the work tree cannot
// change a protected file (a read-only mount), yet it updates the index,
// says "unable to unlink old" and exits 0, leaving index and work tree at
// odds. The wrapper makes that a failure that says to run the command on
// the host. It is a convenience for a cooperating agent, not a security
// boundary: the mounts protect the host whatever runs inside. Every other
// subcommand (git status, constantly) is one exec of the real git.
const gitWrapperScript = `#!/bin/sh
# claudebox's git: a checkout, merge or pull that cannot change a file this
# sandbox protects fails with a message. Not a security boundary: the
# read-only mounts protect the host.
real=
saved_ifs=$IFS
IFS=:
set -f
for d in $PATH; do
	case $d in '' | /run/claudebox/bin | /run/claudebox/bin/) continue ;; esac
	if [ -x "$d/git" ] && ! [ "$d/git" -ef "$0" ]; then
		real=$d/git
		break
	fi
done
set +f
IFS=$saved_ifs
if [ -z "$real" ]; then
	echo "claudebox: git is not on PATH" >&2
	exit 127
fi
sub=
skip=
for a in "$@"; do
	if [ -n "$skip" ]; then
		skip=
		continue
	fi
	case $a in
	-C | -c | --git-dir | --work-tree | --namespace | --config-env | --super-prefix) skip=1 ;;
	-*) ;;
	*)
		sub=$a
		break
		;;
	esac
done
case $sub in
checkout | switch | merge | pull | rebase | cherry-pick | revert | stash | am) ;;
reset | restore)
	# A reset without --hard, --merge or --keep, or a restore of the
	# index alone, leaves the work tree differing from the index by design.
	tree=
	staged=
	for a in "$@"; do
		case $a in
		--hard | --merge | --keep | --worktree | -W) tree=1 ;;
		--staged | -S) staged=1 ;;
		esac
	done
	if [ -z "$tree" ] && { [ "$sub" = reset ] || [ -n "$staged" ]; }; then
		exec "$real" "$@"
	fi
	;;
*) exec "$real" "$@" ;;
esac
`

// gitWrapper is the wrapper for a project whose top is top, protecting
// the guards within it (those in its git directory are not in the work
// tree); "" when none is.
func gitWrapper(top string, guards []Guard) string {
	var rel []string
	for _, g := range guards {
		r, err := filepath.Rel(top, g.Path)
		if err != nil || !paths.Within(g.Path, top) || r == "." || r == ".git" || strings.HasPrefix(r, ".git/") {
			continue
		}
		rel = append(rel, shQuote(r))
	}
	if len(rel) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(gitWrapperScript)
	b.WriteString("top=" + shQuote(top) + "\n")
	b.WriteString("protected() { differing " + strings.Join(rel, " ") + "; }\n")
	b.WriteString(gitWrapperRun)
	return b.String()
}

// gitWrapperRun runs the real git between two looks at the protected
// paths, and fails when the command left one differing that did not.
const gitWrapperRun = `differing() {
	(
		unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR
		"$real" --no-optional-locks -C "$top" diff --name-only -- "$@" 2>/dev/null
	)
}
before=$(protected)
"$real" "$@"
status=$?
after=$(protected)
args="git $*"
nl='
'
failed=
IFS=$nl
set -f
for p in $after; do
	case "$nl$before$nl" in *"$nl$p$nl"*) continue ;; esac
	printf 'claudebox: git could not change %s, which this sandbox protects; run "%s" on the host\n' "$p" "$args" | LC_ALL=C tr '\000-\011\013-\037\177' '??' >&2
	failed=1
done
if [ -n "$failed" ] && [ "$status" -eq 0 ]; then
	exit 1
fi
exit $status
`

// shQuote quotes s for a POSIX shell (dash has no $'…').
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

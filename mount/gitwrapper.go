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
// change a protected file (a read-only mount), yet it moves HEAD, updates
// the index, says "unable to unlink old" and exits 0, leaving index and
// work tree at odds. So the wrapper first works out what the command would
// bring in (the commits a checkout, switch, reset, merge, pull, rebase,
// cherry-pick, revert or stash apply names, against HEAD or their merge
// base) and refuses, before git runs, one that would change a protected
// path: HEAD, the index and the work tree stay as they were; it looks
// from where git -C would run, and reads git am's patches as git apply
// does. What it cannot work out (a command with --git-dir or --work-tree,
// in another repository, or patches git apply cannot read) it runs between
// two looks at the protected paths, and fails when one was left
// differing. It is a convenience for a cooperating agent, not a security
// boundary: the mounts protect the host whatever runs inside. A clone that
// failed for a local source the sandbox does not show (git says only that
// it does not exist) names --ro-bind, and a git config that could not
// write git's configuration says why. Every other subcommand (git status,
// constantly) is one exec of the real git.
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
elsewhere=
for a in "$@"; do
	if [ -n "$skip" ]; then
		skip=
		continue
	fi
	case $a in
	--git-dir | --work-tree) skip=1 elsewhere=1 ;;
	-C | -c | --namespace | --config-env | --super-prefix) skip=1 ;;
	-C* | --git-dir=* | --work-tree=*) elsewhere=1 ;;
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
clone)
	# A local source outside the project is hidden: git says only that it
	# does not exist.
	"$real" "$@"
	status=$?
	[ "$status" -eq 0 ] && exit 0
	seen=
	moved=
	skip=
	dashdash=
	src=
	for a in "$@"; do
		if [ -z "$seen" ]; then
			case $a in clone) seen=1 ;; -C | -C?*) moved=1 ;; esac
			continue
		fi
		if [ -n "$skip" ]; then
			skip=
			continue
		fi
		case $a in
		-o | -b | -u | -c | -j | --origin | --branch | --upload-pack | --template | --reference | --reference-if-able | --separate-git-dir | --depth | --shallow-since | --shallow-exclude | --config | --server-option | --filter | --jobs | --bundle-uri | --ref-format) skip=1 ;;
		--) dashdash=1 ;;
		-*) [ -n "$dashdash" ] && src=$a && break ;;
		*)
			src=$a
			break
			;;
		esac
	done
	case $src in
	file://*) src=${src#file://} ;;
	*://*) src= ;;
	esac
	# host:path is git's ssh, when no slash comes before the colon; a
	# relative path after -C is not this directory's
	case ${src%%:*} in "$src" | */*) ;; *) src= ;; esac
	case $src in /*) ;; *) [ -n "$elsewhere$moved" ] && src= ;; esac
	if [ -n "$src" ] && ! [ -e "$src" ]; then
		abs=$(realpath -m -- "$src" 2>/dev/null) || abs=$PWD/$src
		printf 'claudebox: git clone: %s is not in this sandbox: outside the project, only what you bring is\nhint: if it is on the host, start claudebox with --ro-bind %s\n' "$abs" "$abs" | LC_ALL=C tr '\000-\011\013-\037\177' '??' >&2
	fi
	exit $status
	;;
config)
	# git's configuration, the repository's and yours, is read-only here:
	# git says only "could not write config file …: Device or resource
	# busy", and exits 4. What the command sets is not repeated: the
	# host's git would run it.
	"$real" "$@"
	status=$?
	if [ "$status" -eq 4 ]; then
		echo "claudebox: git could not write its configuration, which this sandbox protects (the host's git runs what it sets); if you mean to set it, do so on the host, where a hook manager's install (npx husky, pre-commit install) sets it too" >&2
	fi
	exit $status
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
	list := strings.Join(rel, " ")
	b.WriteString("protected() { differing " + list + "; }\n")
	b.WriteString("changes() { \"$real\" --no-optional-locks diff --name-only \"$@\" -- " + list + " 2>/dev/null; }\n")
	b.WriteString("is_protected() { for p in " + list + "; do case $1 in \"$p\" | \"$p\"/*) return 0 ;; esac; done; return 1; }\n")
	b.WriteString(gitWrapperCheck)
	b.WriteString(gitWrapperRun)
	return b.String()
}

// gitWrapperCheck refuses, before git runs, a command that would change a
// protected path. It looks only where the command runs in the project's
// own repository (from where -C leads, no --git-dir or --work-tree, no
// GIT_DIR): the protected paths are that work tree's. The look runs in a
// subshell, which changes directory as -C does and leaves the command's
// own directory to git. Every word of the command that names a commit is
// taken for one it would bring in, so an option's value that happens to
// name one makes the look wider, never narrower. git am's patches from
// standard input are read into a file first, which git am then reads.
const gitWrapperCheck = `look() {
	would=$would$(changes "$@")$nl
}
look_paths() {
	# a checkout of paths from a commit: what it changes, then whether
	# that is protected
	from=$1
	shift
	for f in $("$real" --no-optional-locks diff --name-only HEAD "$from" -- "$@" 2>/dev/null); do
		if is_protected "$f"; then would=$would$f$nl; fi
	done
}
look_patches() {
	# git am's patches as git apply reads them, from the top as git am
	# applies them: each line of --numstat -z is "added<TAB>deleted<TAB>path"
	# or, for a rename, empty after the counts and then both paths
	for f in $(cat -- "$@" 2>/dev/null | "$real" -C "$here" apply --numstat -z $apply_opts 2>/dev/null | LC_ALL=C tr '\000' '\n'); do
		p=${f#*	*	}
		if is_protected "$p"; then would=$would$p$nl; elif is_protected "$f"; then would=$would$f$nl; fi
	done
}
commit() { "$real" rev-parse -q --verify "$1^{commit}" 2>/dev/null; }
nl='
'
# check fails when the command would change a protected path
check() {
	[ -z "$elsewhere$GIT_DIR$GIT_WORK_TREE$GIT_INDEX_FILE" ] || return 0
	unset CDPATH
	skip=
	for a in "$@"; do
		if [ -n "$skip" ]; then
			# git -C '' stays where it is; a -C git cannot enter, git refuses
			if [ "$skip" = C ] && [ -n "$a" ]; then cd -P -- "$a" 2>/dev/null || return 0; fi
			skip=
			continue
		fi
		case $a in
		-C) skip=C ;;
		-c | --namespace | --config-env | --super-prefix) skip=1 ;;
		-*) ;;
		*) break ;;
		esac
	done
	here=$("$real" rev-parse --show-toplevel 2>/dev/null) && [ "$here" -ef "$top" ] || return 0
	would=
	words=
	paths=
	apply_opts=
	seen=
	dashdash=
	for a in "$@"; do
		if [ -z "$seen" ]; then
			[ "$a" = "$sub" ] && seen=1
			continue
		fi
		if [ -n "$dashdash" ]; then
			paths=$paths$a$nl
			continue
		fi
		case $a in
		--) dashdash=1 ;;
		--abort | --continue | --skip | --quit | --edit-todo | --retry | --show-current-patch*) words= && break ;;
		-) words=$words@{-1}$nl ;;
		--onto=*) words=$words${a#--onto=}$nl ;;
		-p* | --directory=* | --include=* | --exclude=*) apply_opts=$apply_opts$a$nl ;;
		-*) ;;
		*) words=$words$a$nl ;;
		esac
	done
	saved_ifs=$IFS
	IFS=$nl
	set -f
	case $sub in
	am)
		if [ -n "$mbox" ]; then
			look_patches "$mbox"
		else
			for w in $words; do
				# a Maildir's messages, or a file of them
				if [ -d "$w" ]; then
					set +f
					look_patches "$w"/cur/* "$w"/new/* 2>/dev/null
					set -f
				else
					look_patches "$w"
				fi
			done
		fi
		words=
		;;
	pull)
		if [ -n "$words" ]; then
			# FETCH_HEAD's first line is what the pull merges
			if "$real" fetch -q $words >/dev/null 2>&1; then words=FETCH_HEAD$nl; else words=; fi
		else
			"$real" fetch -q >/dev/null 2>&1
			words=@{upstream}$nl
		fi
		;;
	rebase)
		[ -n "$words" ] || words=@{upstream}$nl
		;;
	stash)
		case $words in
		apply"$nl"* | pop"$nl"* | branch"$nl"*)
			action=${words%%"$nl"*}
			words=${words#*"$nl"}
			[ "$action" = branch ] && words=${words#*"$nl"}
			[ -n "$words" ] || words=stash@{0}$nl
			;;
		*) words= ;;
		esac
		;;
	esac
	for w in $words; do
		case $sub in
		cherry-pick | revert)
			case $w in
			*..*) commits=$("$real" rev-list "$w" 2>/dev/null) ;;
			*) commits=$(commit "$w") ;;
			esac
			for c in $commits; do
				if parent=$(commit "$c^"); then look "$parent" "$c"; else look "$("$real" hash-object -t tree /dev/null)" "$c"; fi
			done
			continue
			;;
		esac
		c=$(commit "$w") || continue
		case $sub in
		checkout | switch | reset | restore)
			if [ -n "$paths" ]; then look_paths "$c" $paths; else look HEAD "$c"; fi
			;;
		merge | pull | rebase)
			base=$("$real" merge-base HEAD "$c" 2>/dev/null) && look "$base" "$c"
			;;
		stash)
			look "$c^1" "$c"
			for f in $("$real" ls-tree -r --name-only "$c^3" 2>/dev/null); do
				if is_protected "$f"; then would=$would$f$nl; fi
			done
			;;
		esac
	done
	refused=
	for p in $(printf '%s' "$would" | LC_ALL=C sort -u); do
		printf 'claudebox: git %s would change %s, which this sandbox protects; run it on the host\n' "$args" "$p" | LC_ALL=C tr '\000-\011\013-\037\177' '??' >&2
		refused=1
	done
	[ -z "$refused" ]
}
args=$*
mbox=
if [ "$sub" = am ]; then
	# no patch named and no resumption: the patches come on standard input
	from_stdin=1
	seen=
	for a in "$@"; do
		if [ -z "$seen" ]; then
			[ "$a" = am ] && seen=1
			continue
		fi
		case $a in
		--abort | --continue | --skip | --quit | --retry | --show-current-patch*) from_stdin= ;;
		-*) ;;
		*) from_stdin= ;;
		esac
	done
	if [ -n "$from_stdin" ] && mbox=$(mktemp); then
		cat >"$mbox"
		exec <"$mbox"
		rm -f "$mbox"
		mbox=/dev/stdin
	fi
fi
if ! (check "$@"); then
	exit 1
fi
`

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

#!/usr/bin/env bash
# The bash claudebox that claudebox replaced, reconstructed for
# BenchmarkSession from its design notes (instance per canonical project
# root, ~/.claude bound with the project's history laid over it, exec
# bwrap): what a launch cost before the supervised session. Not shipped.
set -euo pipefail

CLAUDE_ARGS=()
while (( $# > 0 )); do
	case "$1" in
	--) shift; CLAUDE_ARGS+=("$@"); break ;;
	*) CLAUDE_ARGS+=("$1") ;;
	esac
	shift
done

CWD=$(pwd)
GIT_COMMON=$(git -C "$CWD" rev-parse --git-common-dir 2>/dev/null) || true
if [[ -n "$GIT_COMMON" ]]; then
	[[ "$GIT_COMMON" != /* ]] && GIT_COMMON="$CWD/$GIT_COMMON"
	CANONICAL_ROOT=$(dirname "$(readlink -f "$GIT_COMMON")")
else
	CANONICAL_ROOT="$CWD"
fi
INSTANCE_HASH=$(printf '%s' "$CANONICAL_ROOT" | sha256sum | cut -c1-16)
INSTANCE_DIR="$HOME/.claudebox/projects/$INSTANCE_HASH"

mkdir -p "$INSTANCE_DIR" "$HOME/.claude"
if [[ ! -f "$INSTANCE_DIR/project-root" ]]; then
	printf '%s\n' "$CANONICAL_ROOT" > "$INSTANCE_DIR/project-root"
fi
touch "$HOME/.claudebox/history.jsonl"
cat > "$HOME/.claudebox/SANDBOX.md" <<'MD'
You are running inside a bubblewrap sandbox: only the project and ~/.claude are writable.
MD

CLAUDE_BIN=$(readlink -f "$(command -v claude)")

BWRAP_ARGS=(
	--clearenv
	--setenv HOME "$HOME"
	--setenv PATH "$(dirname "$CLAUDE_BIN"):/usr/local/bin:/usr/bin:/bin"
	--setenv TERM "${TERM:-dumb}"
	--setenv LANG "${LANG:-C.UTF-8}"
	--unshare-all --share-net --die-with-parent
	--ro-bind /usr /usr
	--ro-bind /etc /etc
	--proc /proc
	--dev /dev
	--tmpfs /tmp
)
for d in /bin /sbin /lib /lib32 /lib64 /nix; do
	if [[ -L "$d" ]]; then
		BWRAP_ARGS+=(--symlink "$(readlink "$d")" "$d")
	elif [[ -d "$d" ]]; then
		BWRAP_ARGS+=(--ro-bind "$d" "$d")
	fi
done
[[ -n "${ANTHROPIC_API_KEY:-}" ]] && BWRAP_ARGS+=(--setenv ANTHROPIC_API_KEY "$ANTHROPIC_API_KEY")
BWRAP_ARGS+=(
	--tmpfs "$HOME"
	--ro-bind "$(dirname "$CLAUDE_BIN")" "$(dirname "$CLAUDE_BIN")"
	--bind "$HOME/.claude" "$HOME/.claude"
	--bind "$INSTANCE_DIR" "$HOME/.claude/projects"
	--bind "$HOME/.claudebox/history.jsonl" "$HOME/.claude/history.jsonl"
	--bind "$HOME/.claudebox/SANDBOX.md" "$HOME/.claude/SANDBOX.md"
	--bind "$CANONICAL_ROOT" "$CANONICAL_ROOT"
	--chdir "$CWD"
)

exec bwrap "${BWRAP_ARGS[@]}" "$CLAUDE_BIN" --dangerously-skip-permissions "${CLAUDE_ARGS[@]}"

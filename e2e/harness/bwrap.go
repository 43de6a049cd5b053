package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// failingBwrap is a bwrap that fails as the real one does when it cannot
// make a mount point: it names the sandbox's first process, in the
// watcher's user namespace, which prints bwrap's message and dies; then it
// exits 1. The real bwrap's child is in the namespace from its start, so
// the child is named only once it runs there (it writes a line to a
// FIFO, awaited 10 s at most): named
// before, the watcher found a process outside the namespace and killed
// it, on a loaded machine, before it could print.
const failingBwrap = `#!/bin/bash
while [ $# -gt 0 ]; do
	case $1 in
	--userns) userns=$2 ;;
	--info-fd) info=$2 ;;
	esac
	shift
done
inside=$(mktemp -d)/inside
mkfifo "$inside"
exec {ready}<> "$inside"
nsenter --preserve-credentials --user=/proc/self/fd/$userns sh -c 'echo > "$0"; sleep 0.1; echo "bwrap: Can'"'"'t mkdir parents for /home/dev/.local/bin/claude: No such file or directory" >&2; exit 1' "$inside" &
pid=$!
read -r -t 10 -u "$ready"
exec {ready}<&-
rm -r "$(dirname "$inside")"
printf '{"child-pid": %d}\n' "$pid" >&"$info"
wait $pid
sleep 0.2 # bwrap takes its time to exit; the launch waits for its status
exit 1
`

// FailingBwrapHost is a host whose bwrap is failingBwrap, and a git repository
// in it (outside git, the first launch also says --undo will not work
// there); fast, without its pauses.
func FailingBwrapHost(t testing.TB, fast bool) (*Host, string) {
	h := NewHost(t)
	h.FailingBwrap(h.Bin, fast)
	proj := filepath.Join(h.Home, "p")
	h.GitRepo(proj)
	return h, proj
}

// FailingBwrap writes failingBwrap into dir as its bwrap; fast, without
// its pauses. A launch with dir first on its PATH fails as the real
// bwrap does.
func (h *Host) FailingBwrap(dir string, fast bool) {
	script := failingBwrap
	if fast {
		script = regexp.MustCompile(`sleep [0-9.]+;? ?(#.*)?`).ReplaceAllString(script, "")
	}
	h.Write(filepath.Join(dir, "bwrap"), script)
	os.Chmod(filepath.Join(dir, "bwrap"), 0o755)
}

package session

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/hint"
)

// procSys is where the kernel's settings are read.
var procSys = "/proc/sys"

// bwrapFailed says why bwrap could not make the sandbox, when it could
// not: the sandbox never went on to its command and bwrap exited with its
// own error status. bwrap has printed its message; this adds the hint for
// what causes it, and replaces what the watcher said of a sandbox that
// never began.
func bwrapFailed(w *guardwatch.Watcher, waitErr error) error {
	if !neverBegan(w, waitErr) {
		return nil
	}
	return hint.Errorf(bwrapHint(), "bwrap could not make the sandbox")
}

// neverBegan says whether the sandbox never went on to its command:
// bwrap exited with its own error status before the watcher let it go.
// Nothing ran in the sandbox then.
func neverBegan(w *guardwatch.Watcher, waitErr error) bool {
	var exit *exec.ExitError
	return !w.Released() && errors.As(waitErr, &exit) && exit.ExitCode() == 1
}

// bwrapHint names the fix for what keeps bwrap from making a sandbox: the
// kernel's settings that deny user namespaces, else a path the plan mounts
// that bwrap could not make.
func bwrapHint() string {
	setting := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(procSys, filepath.FromSlash(name)))
		return strings.TrimSpace(string(b))
	}
	switch {
	case setting("kernel/apparmor_restrict_unprivileged_userns") == "1":
		return "AppArmor denies unprivileged user namespaces here (Ubuntu 23.10 and later): allow them, sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0, or give bwrap and claudebox an AppArmor profile with userns"
	case setting("user/max_user_namespaces") == "0":
		return "user namespaces are off: sudo sysctl user.max_user_namespaces=15000"
	case setting("kernel/unprivileged_userns_clone") == "0":
		return "unprivileged user namespaces are off: sudo sysctl kernel.unprivileged_userns_clone=1"
	}
	return "bwrap's message above names the path it could not make; claudebox --dry-run shows where the plan mounts it (a missing or symlinked directory on the way is the usual cause)"
}

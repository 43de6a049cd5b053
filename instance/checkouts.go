package instance

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// AddAuditRoot records a tree a session of the instance dir writes, for
// the exit audit to look through: a repository's linked worktrees are one
// project, whose audit the session that leaves last runs, in whichever
// checkout it was.
func AddAuditRoot(dir, root string) error {
	f, err := os.OpenFile(livePath(dir, ".audit"), os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	// NUL ends each: a path holds anything but that.
	_, err = f.WriteString(root + "\x00")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// AuditRoots are the trees AddAuditRoot recorded since the instance's
// sessions began, once each.
func AuditRoots(dir string) []string {
	b, _ := os.ReadFile(livePath(dir, ".audit"))
	var out []string
	for _, p := range strings.Split(string(b), "\x00") {
		if filepath.IsAbs(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Placeholders are the paths the instance's placeholder record names.
func Placeholders(dir string) []string {
	live, name := filepath.Split(livePath(dir, ".placeholders"))
	paths, _ := readRecord(live, name)
	return paths
}

// RecordGuards records, for the first session of the instance dir, the
// paths its guards stand on: they stand from the sessions' start, where a
// later session's guard may stand on what an earlier one wrote.
func RecordGuards(dir string, paths []string) error {
	return replaceRecord(livePath(dir, ".guards"), []byte(strings.Join(paths, "\x00")))
}

// FirstGuards are the paths RecordGuards recorded.
func FirstGuards(dir string) map[string]bool {
	b, _ := os.ReadFile(livePath(dir, ".guards"))
	guards := map[string]bool{}
	for _, p := range strings.Split(string(b), "\x00") {
		guards[p] = filepath.IsAbs(p)
	}
	return guards
}

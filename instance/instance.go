package instance

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// The names in an instance directory, and its identity, are the
// project's (package project): the plan names them without the store.
const (
	RootFile  = project.RootFile
	AgentsDir = project.AgentsDir
)

// RootFileLimit is the most of a project-root file claudebox reads: a path
// and a newline.
const RootFileLimit = unix.PathMax + 1

// Hash is the instance key of a project root (project.Hash).
func Hash(root string) string { return project.Hash(root) }

// IsHash reports whether name is an instance's name: 16 lowercase hex
// digits.
func IsHash(name string) bool {
	return len(name) == 16 && strings.Trim(name, "0123456789abcdef") == ""
}

// Dir is the instance directory of root under the claudebox state dir
// (project.InstanceDir).
func Dir(stateDir, root string) string { return project.InstanceDir(stateDir, root) }

// Records are what claudebox keeps about an instance out of every
// sandbox's reach: in the state directory, a directory per kind of record,
// a file per instance, named by its hash. They go with their instance.
const (
	// ApprovalRecords hold what the user approved for the project.
	ApprovalRecords = "approved"
	// MountRecords hold the mount point that held the project's root.
	MountRecords = "mounts"
	// NoticeRecords hold what a launch has already named as left out of the
	// project's sandbox.
	NoticeRecords = "noticed"
	// PermissionRecords hold the permission rules the project's sessions
	// saved inside, waiting for claudebox --keep-permissions.
	PermissionRecords = "permissions"
	// InboxRecords hold the names of the files the inbox (export-dir)
	// wrote for the project, the only ones it replaces or removes.
	InboxRecords = "exported"
	// UndoRecords hold the snapshots each session's start took of the
	// project, for claudebox --undo.
	UndoRecords = "undo"
	// TrustRecords hold the answers to an agent's question whether it
	// trusts the project (Codex's), which its sessions saved inside.
	TrustRecords = "trust"
)

// RecordPath is the directory and the file name of root's record of kind.
func RecordPath(stateDir, kind, root string) (dir, name string) {
	return filepath.Join(stateDir, kind), Hash(root)
}

// RemoveRecords removes the records of the instance hash, its tool caches
// among them.
func RemoveRecords(stateDir, hash string) error {
	for _, kind := range []string{ApprovalRecords, MountRecords, NoticeRecords, CacheRecords, PermissionRecords, TrustRecords, InboxRecords, UndoRecords} {
		if err := untrusted.RemoveAll(filepath.Join(stateDir, kind), hash); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// ErrOtherRoot is returned when an instance directory records another root.
var ErrOtherRoot = errors.New("instance belongs to another project root")

// Ensure creates the instance directory of root with its project-root file,
// written once, atomically. An existing project-root naming a different root
// (a hash collision or a hand edit) is refused: the history in it is not
// this project's.
//
// The sandbox writes the instance, so Ensure also repairs what it can have
// left in the way of a launch: the directory's own permissions, and any of
// claudebox's files there (claude.json and the
// caller's files) that is not a regular file the owner can read and write.
// It returns one line for each repair.
func Ensure(stateDir, root string, files ...string) (string, []string, error) {
	dir := Dir(stateDir, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	var repairs []string
	if fixed, err := untrusted.RepairDir(dir); err != nil {
		return "", nil, err
	} else if fixed {
		repairs = append(repairs, "gave "+dir+" its permissions back (the sandbox had changed them)")
	}
	want := []byte(root + "\n")
	got, err := untrusted.ReadFile(dir, RootFile, RootFileLimit)
	switch {
	case err == nil && bytes.Equal(got, want):
	case err == nil:
		return "", nil, fmt.Errorf("%w: %s records \"%s\"", ErrOtherRoot, filepath.Join(dir, RootFile), printable.Excerpt(string(bytes.TrimRight(got, "\n"))))
	case !errors.Is(err, fs.ErrNotExist):
		return "", nil, err
	default:
		if err := untrusted.WriteFile(dir, RootFile, want, 0o600); err != nil {
			return "", nil, err
		}
	}
	for _, name := range append([]string{ClaudeJSONFile}, files...) {
		what, err := repairFile(dir, name)
		if err != nil {
			return "", nil, err
		}
		if what != "" {
			repairs = append(repairs, what)
		}
	}
	return dir, repairs, nil
}

// repairFile leaves name in dir a regular file its owner can read and
// write, or absent: the sandbox may have replaced it (a FIFO would hang the
// next read, a directory would refuse the next write) or taken its
// permissions away. What it did is returned as a line for the user.
func repairFile(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	fi, err := untrusted.Lstat(dir, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	case !fi.Mode().IsRegular():
		if err := untrusted.RemoveAll(dir, name); err != nil {
			return "", err
		}
		return "removed " + path + ", which the sandbox had replaced with " + untrusted.Kind(fi) + "; claudebox makes it anew", nil
	case fi.Mode().Perm()&0o600 != 0o600:
		if err := untrusted.Chmod(dir, name, fi.Mode().Perm()|0o600); err != nil {
			return "", err
		}
		return "made " + path + " readable and writable again (the sandbox had changed its permissions)", nil
	}
	return "", nil
}

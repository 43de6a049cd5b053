// Package project is a project's identity: where a working directory
// belongs, the key its instance is named by, and the instance's path with
// the names in it that a plan binds. A leaf apart from the instance store
// (package instance), so that the plan names them without reaching the
// store.
package project

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// Project is where a working directory belongs.
type Project struct {
	// Root is the canonical project root: the instance is keyed by it.
	Root string
	// Checkout is the top of the working tree that holds the working
	// directory: the directory the sandbox binds read-write.
	Checkout string
	// GitDirs are git directories outside Checkout that git needs inside
	// the sandbox (the main repository's common dir, for a linked worktree).
	GitDirs []string
	// GitDir is the checkout's own git directory and CommonDir the
	// repository's shared one (equal but for linked worktrees); both are
	// empty outside git.
	GitDir, CommonDir string
}

// Hash is the instance key of a project root: the first 16 hex digits of
// the SHA-256 of the path, as the bash claudebox computed it.
func Hash(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])[:16]
}

// InstanceDir is the instance directory of root under the claudebox state
// dir.
func InstanceDir(stateDir, root string) string {
	return filepath.Join(stateDir, "projects", Hash(root))
}

// Names in an instance directory.
const (
	// RootFile records the instance's root.
	RootFile = "project-root"
	// AgentsDir holds the agent CLIs' state, a directory each (package
	// agent; Claude's holds what Claude Code keeps beside its
	// transcripts): one level below the project directories Claude Code
	// keeps here, so that none reads as one of its transcripts.
	AgentsDir = "agents"
	// ClaudeJSONFile is the instance's own copy of ~/.claude.json. Claude
	// Code replaces that file by rename, which a single-file bind mount
	// refuses (EBUSY), so the sandbox's ~/.claude.json is a symlink into
	// the instance directory: measured with Claude Code 2.1.330, it
	// resolves the link and renames beside the real file.
	ClaudeJSONFile = "claude.json"
)

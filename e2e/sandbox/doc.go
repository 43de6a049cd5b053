// Package sandbox holds the real sandbox's own behaviour: what it shows,
// hides and keeps, per-project history, the real Claude Code inside (on
// a terminal, its tools, over TLS, MCP servers), worktrees, --undo,
// --gc, --check, the README's example configuration, and the harness's
// promise that its sessions die with the test binary. Like package e2e it
// has no code of its own, and -short skips it.
package sandbox

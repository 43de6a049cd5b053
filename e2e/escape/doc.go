// Package escape is the escape suite, the threat model in one package:
// from inside the real sandbox, each way out it names (protected paths,
// Claude Code's configuration, the kernel, keyrings, secrets, the
// terminal, git's redirects, hook managers, the network), and the host's
// claudebox commands fed a hostile instance directory. Like package e2e
// it has no code of its own, and -short skips it.
package escape

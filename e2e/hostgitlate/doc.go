// Package hostgitlate is package hostgit's second part: the attacks the
// reviews of rounds 31 on found on the host's git after a session and on
// claudebox's reading of the project's repositories (linked worktrees,
// submodules, git-annex, git directories' links), in the real sandbox,
// apart so that each package stays inside go test's ten minutes on a busy
// machine. Like package hostgit it has no code of its own, and -short
// skips it.
package hostgitlate

// Package hostgit replays, in the real sandbox, each attack a review of
// claudebox found on the host's git after a session and on claudebox's
// own reading of the project's repositories: forged indexes, objects and
// refs, FIFOs in git's directories, leases that would hold a read, the
// exit audit's walk of repositories and worktrees, and --undo's snapshot.
// Each test is the attack as the review ran it and the host-side proof
// that it no longer works; those of rounds 31 on are in package
// hostgitlate. It has no code of its own, and -short skips it.
package hostgit

// Package hostruns replays, in the real sandbox, each attack a review of
// claudebox found on what the host runs after a session (the exit audit,
// the host's git and tools): the attack as the review ran it, and the
// host-side proof that it no longer works. Like package e2e it has no
// code of its own, and -short skips it.
package hostruns

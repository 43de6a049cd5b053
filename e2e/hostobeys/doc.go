// Package hostobeys replays, in the real sandbox, each attack a review of
// claudebox found on what the host obeys after a session beyond the
// project's tracked files: the ignored files the exit audit moves aside
// (executables, virtualenvs, toolchain, editor and .env files), and the
// user's dotfiles, PATH entries and certificate links the sandbox could
// redirect. Each test is the attack as the review ran it and the
// host-side proof that it no longer works. It has no code of its own, and
// -short skips it.
package hostobeys

// Package faults replays, in the real sandbox, the faults a session and
// claudebox's host-side commands survive: a kill -9 of the supervisor,
// the guard watcher or the relay at each phase of a session, of --gc and
// --move between their steps, ~/.claudebox's disk full at the launch and
// while a session runs, twenty sessions of one project at once, two
// ending at once, the host writing during the exit audit; and the
// host-side proof that nothing of the user's is lost or moved without a
// word, and that what a killed process left is cleaned up and said. Like
// package e2e it has no code of its own, and -short skips it.
package faults

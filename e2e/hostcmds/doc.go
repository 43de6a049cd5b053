// Package hostcmds replays, in the real sandbox, each attack a review of
// claudebox found on its own host-side commands (the exit's export and
// records, --list-sessions, --export, --gc, --list, the next launch) fed
// what a hostile session left behind (the faults a session survives are
// in package faults): the attack as the review ran it, and the host-side proof that the
// command ends, bounded, and acts only on the instance; those of rounds
// 23 on are in package hostcmdslate. Like package e2e it has no code of
// its own, and -short skips it.
package hostcmds

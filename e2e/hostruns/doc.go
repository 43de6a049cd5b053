// Package hostruns replays, in the real sandbox, each attack a review of
// claudebox found on the tools the host runs in the project after a
// session: build tools, interpreters, package managers, direnv and mise,
// each reading what the session wrote. Each test is the attack as the
// review ran it and the host-side proof that it no longer works. The
// reviews of rounds 31 on are in package hostrunslate. It has no code of
// its own, and -short skips it.
package hostruns

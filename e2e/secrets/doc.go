// Package secrets replays, in the real sandbox, each attack a review of
// claudebox found on what of the user's setup the sandbox sees: the
// copies and views of the home, /etc, the toolchains, git's
// configuration and the agents' settings, none of which may carry a
// credential across. Each test is the attack as the review ran it and the
// host-side proof that it no longer works. It has no code of its own, and
// -short skips it.
package secrets

// Package replay replays, in the real sandbox, each attack a review of
// claudebox found from inside on the project and the host beside a
// session: what a session leaves in the project for the host's tools,
// the guards while the host lives beside it, the terminal, the caches and
// the eval runs. Each test is the attack as the review ran it and the
// host-side proof that it no longer works. It has no code of its own, and
// -short skips it.
package replay

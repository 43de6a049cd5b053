// Package network replays, in the real sandbox, each attack a review of
// claudebox found on what leaves the sandbox: the filtered network and
// its proxy, the CA the proxy trusts, published ports, the credentials
// the proxy adds on the host, and the SSH and GPG agents' filters. Each
// test is the attack as the review ran it and the host-side proof that it
// no longer works. It has no code of its own, and -short skips it.
package network

// Package hostrunslate is package hostruns' second part: the attacks the
// reviews of rounds 31 on found on the tools the host runs in the
// project after a session, in the real sandbox, apart so that each
// package stays inside go test's ten minutes on a busy machine. Like
// package hostruns it has no code of its own, and -short skips it.
package hostrunslate

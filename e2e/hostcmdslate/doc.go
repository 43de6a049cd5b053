// Package hostcmdslate is package hostcmds' second part: the attacks the
// reviews of rounds 23 on found on claudebox's own host-side commands
// (the exit's records, --undo, --gc, --list, the next launch) fed what a
// hostile session left behind, in the real sandbox, apart so that each
// package stays inside go test's ten minutes on a busy machine. Like
// package hostcmds it has no code of its own, and -short skips it.
package hostcmdslate

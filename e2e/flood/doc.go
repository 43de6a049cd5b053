// Package flood replays, in the real sandbox, a session that floods the
// project with hundreds of thousands of entries, and the host-side proof
// that the next session's supervisor holds its record of them in bounded
// memory. It is a package of its own for its minutes: with the host-side
// commands' replays it came near go test's ten minutes. Like package e2e
// it has no code of its own, and -short skips it.
package flood

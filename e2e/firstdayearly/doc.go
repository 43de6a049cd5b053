// Package firstdayearly is package firstday's first part: the behaviours
// the earliest reviews of a newcomer's day found (rounds 20 to 24), in
// the real sandbox with the real Claude Code, apart so that each package
// stays inside go test's ten minutes on a busy machine. Like package e2e
// it has no code of its own, and -short skips it.
package firstdayearly

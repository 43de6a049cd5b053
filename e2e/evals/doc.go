// Package evals runs claudebox --eval in the real sandbox with the real
// Claude Code against the fake API: a clean slate on a host full of the
// user's state, an interrupted run, runs in parallel. A change to what
// the plan, the session or the probe reads runs these first. Like package
// e2e it has no code of its own, and -short skips it.
package evals

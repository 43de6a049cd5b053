// Package bench holds the real-sandbox benchmarks, whole sessions
// measured (go test -run '^$' -bench NAME ./e2e/bench): a session against
// bare bwrap, the bash claudebox and a peer sandbox, its processor time,
// memory and exit, and the user's setup under claudebox -p against the
// host's claude, with the tests of that setup beside its benchmark.
// Without -bench only those tests run. Like package e2e it has no code of
// its own, and -short skips it.
package bench

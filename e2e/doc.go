// Package e2e is claudebox's real-sandbox suite, in test packages of
// their own below it that share e2e/harness: each test makes a fake host
// (a home, projects, an unprivileged user) and runs claudebox, built once
// per package from the module's root, in the real bwrap. They are
// packages of their own so that each stays well inside go test's ten
// minutes. This package has no code of its own; go test ./e2e/... runs
// the suite, and -short skips it.
package e2e

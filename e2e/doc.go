// Package e2e is claudebox's real-sandbox suite: each test makes a fake
// host (a home, projects, an unprivileged user) and runs claudebox, built
// once from the module's root, in the real bwrap. It has no code of its
// own; go test ./e2e runs it, and -short skips it.
package e2e

// Package living runs the real sandbox beside the host's own life: the
// guards standing again while the host's git and editors replace what
// they guard, the supervisor (its lock out of reach, killed, signalled,
// its exit audit), a session in the background or on a terminal root
// owns, and what a user living with it meets (a failing bwrap, resuming,
// a home through a symlink, saved permissions). Like package e2e it has
// no code of its own, and -short skips it.
package living

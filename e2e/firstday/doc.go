// Package firstday walks, in the real sandbox with the real Claude Code,
// through a newcomer's day beside claude: what a user of claude meets
// when they type claudebox instead, each behaviour a review of that day
// found, and the host-side proof (rounds 25 on; the earlier rounds' are
// in package firstdayearly). Like package e2e it has no code of its own,
// and -short skips it.
package firstday

// Package agents runs, in the real sandbox, the agents claudebox starts
// besides Claude Code (Codex, Gemini CLI) against fake APIs on the
// loopback: their logins, host networks and instructions, each with the
// real key kept out; and the export of the transcripts the real CLIs
// write, Claude Code's among them (-u stores each, machine paths
// scrubbed, as the transcript package's fixture). Like package e2e it has
// no code of its own, and -short skips it.
package agents

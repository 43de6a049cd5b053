package claudesettings

import "regexp"

// commandCredential is a credential written into a command or a script as
// a literal: a token of a known service by its prefix (GitHub's, GitLab's,
// Slack's, Anthropic's, OpenAI's, AWS's key id), a bearer token, or a value
// of 16 or more token characters given to what a name says is a token, a
// secret, a password or a key (SLACK_TOKEN=…, --api-key …). A variable in
// its place ($SLACK_TOKEN), a count (tokens: 1234) is none.
var commandCredential = regexp.MustCompile(`(?i)\b(gh[pousr]_|github_pat_|glpat-|xox[abpre]-|sk-ant-|sk-proj-|AKIA)[A-Za-z0-9_-]{8,}|\bbearer\s+[A-Za-z0-9._~+/-]{16,}|(token|secret|passw|api[_-]?key|auth)[a-z_-]*["']?(\s*[=:]\s*|\s+)["']?[A-Za-z0-9._~+/=-]{16,}`)

// HasCommandCredential says a command's text, or a script's, holds a
// credential: one in a URL or one written as a literal.
func HasCommandCredential(data []byte) bool {
	return commandCredential.Match(data) || HasURLCredential(data)
}

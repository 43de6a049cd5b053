// Package credential recognises a credential in text: a token of a known
// service, a literal given to what a name says is a secret, a URL that is
// one or holds one. Its own package, so that both what copies the user's
// settings (claudesettings) and what passes variables into the sandbox
// (environment) share one definition.
package credential

import (
	"bytes"
	"regexp"
	"sync"
)

// TokenPrefixes matches, in a regular expression, the prefixes known
// services give their tokens: GitHub's, GitLab's (a personal and a deploy
// token), Slack's, Anthropic's, OpenAI's, AWS's key id.
const TokenPrefixes = `(gh[pousr]_|github_pat_|glpat-|gldt-|xox[abpre]-|sk-ant-|sk-proj-|AKIA)`

// commandCredential is a credential written into a command or a script as
// a literal: a token of a known service by its prefix (TokenPrefixes), a
// bearer token, or a value of 16 or more token characters given to what a
// name says is a token, a secret, a password or a key (SLACK_TOKEN=…,
// --api-key …). A variable in its place ($SLACK_TOKEN), a count (tokens:
// 1234) is none. Compiled at first use, as every expression of this
// package: claudebox's processes that never use them (the guard watcher,
// the relay inside) do not pay.
var commandCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b` + TokenPrefixes + `[A-Za-z0-9_-]{8,}|\bbearer\s+[A-Za-z0-9._~+/-]{16,}|(token|secret|passw|api[_-]?key|auth)[a-z_-]*["']?(\s*[=:]\s*|\s+)["']?[A-Za-z0-9._~+/=-]{16,}`)
})

// webhookURL is a URL that is itself a credential: whoever holds it posts
// into the user's channel as the user's integration (Slack's, Discord's,
// Microsoft Teams', and Mattermost's incoming webhooks,
// Zapier's and IFTTT's triggers, a Telegram bot's token in its path).
var webhookURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)hooks\.slack\.com/(services|workflows|triggers)/[A-Za-z0-9/_-]{8,}|discord(app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{8,}|\.webhook\.office\.com/webhook|\.logic\.azure\.com\S*sig=|hooks\.zapier\.com/hooks/catch/|maker\.ifttt\.com/trigger/\S*/key/|api\.telegram\.org/bot\d+:[A-Za-z0-9_-]{8,}|/hooks/[a-z0-9]{20,}`)
})

// userPassword is a user and password given to curl, wget or httpie on
// the command line (-u ci:PASSWORD, --user=ci:PASSWORD), not a variable.
var userPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)(-u|--user|--auth|-a)(\s+|=)["']?[A-Za-z0-9._@+-]+:[^\s$"'][^\s"']{5,}`)
})

// InCommand says a command's text, or a script's, holds a
// credential: one in a URL, a URL that is one, a user's password on the
// command line, or one written as a literal.
func InCommand(data []byte) bool {
	return commandCredential().Match(data) || webhookURL().Match(data) || userPassword().Match(data) || InURL(data)
}

// urlCredential is the one definition of a credential in a URL, which
// every copy of the user's files that leaves credentials out shares
// (Claude Code's settings, git's configuration, the tools' settings): a
// password after a user in any scheme's URL (https://oauth2:TOKEN@gitlab…,
// git+ssh://me:pw@host), or in a proxy's address without a scheme
// (http.proxy = user:pw@proxy:3128, which git accepts), and a user of 20
// or more token characters, where a token passes as the user
// (https://ghp_…@github.com). A user name alone (ssh://git@host,
// https://alice@host) is not one. The user information runs to the
// authority's last @, as URL parsers read it, so that taking the match out
// leaves no part of it.
var urlCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(\b[a-z][a-z0-9+.-]*://)(?:[^\s/?#:"'\\]*:[^\s/?#"'\\]+|[a-z0-9._~%+=-]{20,})@|(^|[\s"'=,;])[^\s/?#@:"'=,;\\]+:[^\s/?#"'\\]+@`)
})

// InURL says data holds a URL with a credential in it.
func InURL(data []byte) bool {
	return urlCredential().Match(data)
}

// WithoutURL is data with every URL's credential taken out
// (the URL names the same host and path), and whether there was one.
func WithoutURL(data []byte) ([]byte, bool) {
	out := urlCredential().ReplaceAll(data, []byte("$1$2"))
	return out, !bytes.Equal(out, data)
}

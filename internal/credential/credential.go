// Package credential recognises a credential in text: a token of a known
// service, a literal given to what a name says is a secret, a URL that is
// one or holds one. Its own package, so that both what copies the user's
// settings (claudesettings) and what passes variables into the sandbox
// (environment) share one definition.
package credential

import (
	"bytes"
	"encoding/base64"
	"iter"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// TokenPrefixes matches, in a regular expression, the prefixes known
// services give their tokens: GitHub's, GitLab's (a personal and a deploy
// token), Slack's, Anthropic's, OpenAI's, AWS's key id, HashiCorp
// Vault's service token, PyPI's, Google's API key, Stripe's live keys.
const TokenPrefixes = `(gh[pousr]_|github_pat_|glpat-|gldt-|xox[abpre]-|sk-ant-|sk-proj-|AKIA|hvs\.|pypi-AgE|AIza|[sr]k_live_)`

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
// the command line (-u ci:PASSWORD, --user=ci:PASSWORD), not a variable,
// or as the next of a list's quoted words: Codex keeps a command you
// always allow as prefix_rule(pattern=["curl", "-u", "ci:…"]).
var userPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s"'\[,])(-u|--user|--auth|-a)(\s+|=|["']\s*,\s*)["']?[A-Za-z0-9._@+-]+:[^\s$"'][^\s"']{5,}`)
})

// InCommand says a command's text, or a script's, holds a credential:
// what commandHolds finds, or a word drawn at random wherever it stands
// (commandWordDrawn: pushover -t …, a program's argument), which in a
// command no name says anything of. Text with a string's escapes (\",
// \n, \u0026) is judged as its strings hold it too (unescaped: a
// shell's sh -c "curl -u \"ci:…\" …").
func InCommand(data []byte) bool {
	if u, ok := unescaped(data); ok && (inCommand(u) || commandWordDrawn(u)) {
		return true
	}
	return inCommand(data) || commandWordDrawn(data)
}

// commandHolds says a command's text, or a line of settings, holds a
// credential: one in a URL, a URL that is one, a URL's path segment not
// known to be a word (InURLPath: a registry's token exported from
// /etc/profile or pushed to in a git hook), a user's password on the
// command line, one written as a literal, a literal assigned to a
// name that says one (shellAssignment), or what InCode finds given to
// a program's option or to a name in code (sshpass -p PASSWORD). Text
// with a string's escapes is judged as its strings hold it too
// (unescaped). Settings' lines are judged so, a value's name saying
// what it is (channel_id: …).
func commandHolds(data []byte) bool {
	if u, ok := unescaped(data); ok && inCommand(u) {
		return true
	}
	return inCommand(data)
}

// inCommand is InCommand of data as written: its text, and what each
// !{…} in it runs (injected).
func inCommand(data []byte) bool {
	return commandText(data) || injected(data, commandText)
}

// commandText is inCommand but for a !{…}'s body apart: judged by
// inCommand, a !{ in one's body was looked for again, and a hook's line of
// forty !{ cost 2^40 judgements, the launch never ending.
func commandText(data []byte) bool {
	// Each expression runs only on text with what its every match holds
	// (commandHints, webhookHints, -u or -a): about 2 ms a KiB each
	// on a loaded 2-core machine, and the system's shell profiles, judged
	// at every launch, hold none of most. Text with a byte past ASCII is
	// matched whole: a case-insensitive expression takes the Kelvin sign
	// for a k and a long s for an s, which lower case does not spell so.
	lower, ascii := asciiLower(data)
	return (!ascii || holdsAny(lower, commandHints)) && commandCredential().Match(data) ||
		(!ascii || holdsAny(lower, webhookHints)) && webhookURL().Match(data) ||
		(!ascii || holdsAny(lower, userHints)) && userPassword().Match(data) ||
		(!ascii || holdsAny(lower, assignedHints)) && assignedLiteral(data) ||
		InURL(data) || InURLPath(data) || InURLQuery(data) || headerLiteral(data, false) || inOptionsOrCode(data) || PrivateKey(data) || signedToken(data) || serviceToken(data) || randomWord(data)
}

// injected says judge holds for a command a Gemini CLI custom command's
// prompt runs as it is typed, each !{…} (its braces counted, as Gemini
// CLI counts them; one left open runs to the end): the { before a
// program's name and the } after its last word hid sshpass -p …, vault
// login … and the like there. A !{ inside a body is judged with it (as
// written, and without the !{ before its program's name), not again as
// a body of its own: each byte is in one body at most.
func injected(data []byte, judge func([]byte) bool) bool {
	end := 0
	for at := range occurrences(data, "!{") {
		if at < end {
			continue
		}
		body := data[at+2:]
		depth := 1
		for i, c := range body {
			if c == '{' {
				depth++
			} else if c == '}' {
				if depth--; depth == 0 {
					body = body[:i]
					break
				}
			}
		}
		end = at + 2 + len(body)
		if judge(body) || bytes.Contains(body, []byte("!{")) && judge(bytes.ReplaceAll(body, []byte("!{"), []byte("  "))) {
			return true
		}
	}
	return false
}

// PrivateKey says data holds a private key: its armor (PEM's, OpenSSH's,
// PGP's -----BEGIN … PRIVATE KEY…-----, then its headers) before its
// body, in a file or in code's string (lines joined by \n escapes,
// quotes and +), PuTTY's key file's private lines, or any of these in
// base64 (encodedPrivateKey). What a key is
// kept as says so whatever the file's name: a skill's deploy_key, an
// exported signing.asc, a key pasted into a command's Markdown crossed.
// Of 152,549 files of this machine's system and packages, 28 hold one,
// each a key (test fixtures, the host's own).
func PrivateKey(data []byte) bool {
	return bytes.Contains(data, []byte("PRIVATE KEY")) && privateKeyArmor().Match(data) ||
		bytes.Contains(data, []byte("PuTTY-User-Key-File-")) && bytes.Contains(data, []byte("Private-Lines:")) ||
		bytes.Contains(data, encodedArmor) && encodedPrivateKey(data)
}

// signedToken says data holds a signed JSON Web Token: a header and a
// payload, each JSON in base64url (eyJ…, as {" encodes), and a
// signature, parted by dots. Whoever holds one holds what it grants,
// whatever it is kept under: Supabase's service_role key (every table,
// past its row rules) in a skill's config as service_role, in a script
// as SUPABASE_SERVICE_ROLE=…, in a source's createClient(url, '…'),
// crossed, no name saying it was one. One with no signature (alg none)
// grants nothing a server checks.
func signedToken(data []byte) bool {
	for at := 0; ; {
		i := bytes.Index(data[at:], []byte("eyJ"))
		if i < 0 {
			return false
		}
		at += i
		if at > 0 && (isTokenByte(data[at-1]) || data[at-1] == '.') {
			at += 3
			continue
		}
		header := tokenRun(data[at:], isTokenByte)
		p := at + header
		if header >= 10 && p+4 < len(data) && data[p] == '.' && bytes.HasPrefix(data[p+1:], []byte("eyJ")) {
			payload := tokenRun(data[p+1:], isTokenByte)
			q := p + 1 + payload
			if payload >= 10 && q+1 < len(data) && data[q] == '.' && tokenRun(data[q+1:], isTokenByte) >= 16 {
				return true
			}
		}
		at += max(header, 3)
	}
}

// PrivateKeyMarks are the words of which every private key PrivateKey
// finds holds one: its armor's, PuTTY's key file's first, and the armor's
// start in base64. What holds none of them need not be read whole to be
// judged.
func PrivateKeyMarks() [][]byte {
	return [][]byte{[]byte("PRIVATE KEY"), []byte("PuTTY-User-Key-File-"), encodedArmor}
}

// encodedArmor is "-----BEGIN" in base64, as a key's armor begins a
// value that encodes it whole: a kubeconfig's client-key-data, a CI
// variable's, a Kubernetes secret's data.
var encodedArmor = []byte("LS0tLS1CRUdJTi")

// encodedPrivateKey says data holds a private key in base64, its armor
// and all (kind's, minikube's and k3s's kubeconfig keep the client's key
// so, as client-key-data: LS0tLS1CRUdJTi…, under a name that says
// none): each run of base64 that begins as armor does is decoded, its
// first 4 KiB, and judged as a key's text is. A run goes on past a
// line's end and the next line's indent, or a string's \n, as base64
// wraps it at 76 characters (a Secret's tls.key: | block, a key.b64):
// one line of it holds the armor and too little of the body to judge.
func encodedPrivateKey(data []byte) bool {
	for at := 0; ; {
		i := bytes.Index(data[at:], encodedArmor)
		if i < 0 {
			return false
		}
		at += i
		run, n := base64Run(data[at:], 4096)
		run = run[:len(run)&^3]
		decoded := make([]byte, base64.StdEncoding.DecodedLen(len(run)))
		if k, err := base64.StdEncoding.Decode(decoded, run); err == nil && PrivateKey(decoded[:k]) {
			return true
		}
		at += n
	}
}

// base64Run is the base64 at the start of data, its lines joined (a
// line's end, spaces and tabs, a string's \n or \r between them), at
// most most characters of it, and how much of data it took.
func base64Run(data []byte, most int) ([]byte, int) {
	var run []byte
	at := 0
	for at < len(data) && len(run) < most {
		n := tokenRun(data[at:], func(c byte) bool { return isWordByte(c) && c != '_' || c == '+' || c == '/' || c == '=' })
		run = append(run, data[at:at+n]...)
		at += n
		gap := 0
		for at+gap < len(data) {
			switch {
			case strings.IndexByte(" \t\r\n", data[at+gap]) >= 0:
				gap++
				continue
			case data[at+gap] == '\\' && at+gap+1 < len(data) && (data[at+gap+1] == 'n' || data[at+gap+1] == 'r'):
				gap += 2
				continue
			}
			break
		}
		if n == 0 || gap == 0 || at+gap >= len(data) || !isWordByte(data[at+gap]) && data[at+gap] != '+' && data[at+gap] != '/' {
			break
		}
		at += gap
	}
	return run[:min(len(run), most)], max(at, 1)
}

// privateKeyArmor is a private key's first line and the start of its
// body.
var privateKeyArmor = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----(?:\s|\\[nr]|["'+,]|[A-Za-z-]+: [^\n]*\n)*[A-Za-z0-9+/=]{40,}`)
})

// shellAssignment is a literal, however short, given on a command line
// to a variable or an option whose name ends in what says a password, a
// secret, a token or a key (PGPASSWORD=hunter2 psql, export
// DB_PASSWORD=x, --api-key=x, DB_PASS=x, AWS_SECRET_ACCESS_KEY=x), or
// to a program's own variable for one (sshpass -e's SSHPASS, MYSQL_PWD,
// REDISCLI_AUTH): a word of its own, the value one of its
// own, ended by a space, a separator or the line's end (not a call's
// argument, password=getpass()). Its value is the first group.
var shellAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:^|[\s;&|!.:"'$={(])(?:--?)?(?:[a-z0-9_-]*(?:passw(?:or)?d|secret|token|api[_-]?key|(?:secret|access|private|account)[_-]?key|shared[_-]?access[_-]?signature|[_-]pass)|pass|sshpass|mysql_pwd|rediscli_auth)["']?=["']?([^\s"'$;&|()<>\\` + "`" + `]+)["']?(?:[\s;&|]|$)`)
})

// assignedHints are what every match of shellAssignment holds, in lower
// case.
var assignedHints = []string{"pass", "secret", "token", "api", "key", "pwd", "auth", "signature"}

// assignedLiteral says a command gives a literal, not a switch, a number
// or a variable, to a name that says a credential (shellAssignment).
func assignedLiteral(data []byte) bool {
	for _, m := range shellAssignment().FindAllSubmatch(data, -1) {
		v := strings.ToLower(string(m[1]))
		if !slices.Contains(notLiteral, v) && strings.Trim(v, "0123456789.") != "" {
			return true
		}
	}
	return false
}

// InScript says a script's text holds a credential, as InCommand says,
// read a line at a time, each with the next, as InSettings reads: only a
// line with what a match holds (scriptHints) is matched against the
// expressions, about 2 ms a KiB each, and most of a script's lines hold
// none (24 KiB of scripts cost InCommand 16 ms). Lines are put in lower
// case as Unicode does, the Kelvin sign a k; text with a long s, which
// the expressions take for an s and lower case does not spell so, is
// matched whole. A token drawn at random given to a variable whose name
// says nothing (CF_GLOBAL=…, randomValue) is one too: a ~/bin program's
// and a skill's script crossed; so is one as any word of a command
// (commandWordDrawn: pushover -t …, a program's argument).
func InScript(data []byte) bool {
	if PrivateKey(data) || signedToken(data) || serviceToken(data) || randomValue(data) || randomWord(data) || commandWordDrawn(data) {
		return true
	}
	if bytes.Contains(data, []byte("ſ")) {
		return InCommand(data)
	}
	return byLines(data, scriptHints, InCommand)
}

// scriptHints are what every credential InCommand finds holds, in lower
// case.
var scriptHints = slices.Concat(commandHints, webhookHints, userHints, optionHints, assignedHints, []string{"@", "://", "vault", "sudo", "npm_", "set"})

// optionHints are what every credential inOptionsOrCode finds holds
// that commandHints need not, in lower case: an option (-p, -w, -U,
// --password), OpenSSL's pass:, HTTP's basic credentials, a key's name.
var optionHints = []string{"--", "-p", "-w", "-u", "-a", "pass", "basic", "key"}

// commandHints are what every match of commandCredential holds, in
// lower case: a known service's token's prefix, a bearer token, a name
// that says a secret.
var commandHints = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "xox", "sk-ant-", "sk-proj-", "akia", "hvs.", "pypi-age", "aiza", "k_live_",
	"bearer", "token", "secret", "passw", "api", "auth",
}

// webhookHints are what every match of webhookURL holds, in lower case.
var webhookHints = []string{"hooks", "discord", "webhook", "logic.azure.com", "ifttt", "telegram"}

// userHints are what every match of userPassword holds (-u, --user,
// --auth, -a), in lower case.
var userHints = []string{"-u", "-a"}

// MayHold says text may match an expression that takes no account of case
// and whose every match holds one of hints (in lower case): text holds one
// in lower case, or has a byte past ASCII (such an expression takes the
// Kelvin sign for a k and a long s for an s, which lower case does not
// spell so). An expression run only where it says so is spared on most
// text, as InCommand's are.
func MayHold(text []byte, hints []string) bool {
	lower, ascii := asciiLower(text)
	return !ascii || holdsAny(lower, hints)
}

// asciiLower is data in lower case, and whether data is ASCII.
func asciiLower(data []byte) ([]byte, bool) {
	lower := make([]byte, len(data))
	for i, c := range data {
		if c >= 0x80 {
			return nil, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return lower, true
}

// holdsAny says text holds one of hints.
func holdsAny(text []byte, hints []string) bool {
	return slices.ContainsFunc(hints, func(h string) bool { return bytes.Contains(text, []byte(h)) })
}

// urlCredential is the one definition of a credential in a URL, which
// every copy of the user's files that leaves credentials out shares
// (Claude Code's settings, git's configuration, the tools' settings): a
// password after a user in any scheme's URL (https://oauth2:TOKEN@gitlab…,
// git+ssh://me:pw@host), or in a proxy's address without a scheme
// (http.proxy = user:pw@proxy:3128, which git accepts), and a user of 20
// or more token characters, where a token passes as the user
// (https://ghp_…@github.com), with or without the empty password
// Packagecloud's and Gemfury's URLs give it (https://TOKEN:@packagecloud.io).
// A user name alone (ssh://git@host, https://alice@host) is not one;
// a shorter user that does not read as one is (tokenUser). The user
// information runs to the authority's last @, as URL parsers read it, so
// that taking the match out leaves no part of it.
var urlCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(\b[a-z][a-z0-9+.-]*://)(?:[^\s/?#:"'\\]*:[^\s/?#"'\\]+|[a-z0-9._~%+=-]{20,}:?)@|(^|[\s"'=,;])[^\s/?#@:"'=,;\\]+:[^\s/?#"'\\]+@`)
})

// urlUser is a URL's user given no password, or an empty one, its
// second group, the scheme its first.
var urlUser = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)([a-z0-9._~%+=-]{8,19}):?@`)
})

// tokenUser is a URL's user given no password that is no name: one that
// does not read as words or a version (wordsOnly), as a token given as
// the user does not (https://Zq8xN3vB7mK2pL5r@pypi.fury.io/acme/, a
// registry's token of 16 characters, crossed wherever a URL did: tools'
// settings, the environment, a skill's files). A name reads as words
// (git, alice, jsmith42, __token__, john.doe).
func tokenUser(data []byte) [][]int {
	var users [][]int
	for _, m := range urlUser().FindAllSubmatchIndex(data, -1) {
		if !wordsOnly(string(data[m[4]:m[5]]), "-_.~+%=") {
			users = append(users, m)
		}
	}
	return users
}

// InURL says data holds a URL with a credential in it. Maven's SCM
// URLs are read without their scm:<provider>: prefix, which read as a
// user and a password before git's own user (every jar Maven builds
// holds a pom.xml with scm:git:git@github.com:…).
func InURL(data []byte) bool {
	if bytes.IndexByte(data, '@') < 0 {
		return false
	}
	if bytes.Contains(data, []byte("scm:")) {
		data = scmPrefix().ReplaceAll(data, nil)
	}
	return urlCredential().Match(data) || len(tokenUser(data)) > 0
}

// scmPrefix is what begins a Maven SCM URL: scm:, its provider, a colon.
var scmPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bscm:[a-z0-9]+:`) })

// InURLPath says data holds a URL a segment of whose path may be a
// token: a registry that takes its token in the path, not the login
// (Cloudsmith's https://dl.cloudsmith.io/TOKEN/org/repo/go/, given as
// GOPROXY or pip's index-url). A segment is known to hold none when each
// of its parts between - _ . ~ + is shorter than 8 characters, or reads
// as a word or a version: lower case, upper case or capitalised letters
// then digits (go-virtual, python3, amd64, Acme); a part of 8 or more
// otherwise mixed (8f14e45fceea, Zk3wQp9LmT2v) may be one.
// The URLs of XML's declarations of namespaces and schemas are no
// place (xmlNamespaces); a variable's reference or a template's field
// is none (pathField).
func InURLPath(data []byte) bool {
	if !bytes.Contains(data, []byte("://")) {
		return false
	}
	if bytes.Contains(data, []byte("xmlns")) || bytes.Contains(data, []byte("schemaLocation")) {
		data = xmlNamespaces().ReplaceAll(data, nil)
	}
	for _, m := range urlPath().FindAllSubmatch(data, -1) {
		path := m[1]
		if bytes.ContainsAny(path, "${") {
			path = pathField().ReplaceAll(path, nil)
		}
		if !wordsOnly(string(path), "/-_.~+") {
			return true
		}
	}
	return false
}

// pathField is a variable's reference or a template's field in a URL's
// path (${project.version}, $VERSION, {{ref}}, {id}), which a tool fills
// in: no token (a pom.xml's http://…/tree/${project.scm.tag}/ read as
// one).
var pathField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{[^}/]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{[^}/]*\}\}|\{[^}/]*\}`)
})

// xmlNamespaces are XML's declarations of namespaces and schemas
// (xmlns="…", xmlns:xsi="…", xsi:schemaLocation="…"), whose URLs name a
// vocabulary, never a place a token is sent: every jar Maven builds
// holds a pom.xml whose http://www.w3.org/2001/XMLSchema-instance read
// as a path's token.
var xmlNamespaces = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:xmlns(?::[\w.-]+)?|(?:[\w.-]+:)?(?:noNamespaceS|s)chemaLocation)\s*=\s*(?:"[^"]*"|'[^']*')`)
})

// InURLQuery says data holds a URL a value of whose query, or whose
// fragment, may be a token: a service that takes its key there (Azure
// Functions' ?code=, Azure Storage's ?sig=, an API gateway's
// ?subscription-key=, a maps API's ?key=) under a name no list of
// credentials' names holds. A value is known to hold none as a path's
// segment is (wordsOnly), once unescaped, a colon, a comma and a space
// parting it too (?ref=main, ?priority=40, ?endpoint=minio.corp:9000,
// ?query=App%3A%3AProve), or when it is a variable's reference or a
// template's field ($KEY, ${KEY}, {key}, <key>), which a command fills
// in; a field that gives no name a value is none. The URLs are found
// without an expression, from each :// (urlQueries): prose and code are
// judged so too, a minified bundle of 16 MiB among them, which the
// expression read in 4.7 s at load 25.
func InURLQuery(data []byte) bool {
	for query := range urlQueries(data) {
		for len(query) > 0 {
			end := bytes.IndexAny(query, "&;#")
			if end < 0 {
				end = len(query)
			}
			field := query[:end]
			query = query[min(end+1, len(query)):]
			// A field that is no name's value is an anchor (#section,
			// #!forum/thread) or a search's words; a value shorter than 8
			// bytes is a word's part however read.
			_, value, found := bytes.Cut(field, []byte("="))
			if !found || len(value) < 8 || bytes.ContainsAny(value[:1], "${<") {
				continue
			}
			if unescaped, err := url.QueryUnescape(string(value)); err == nil && !wordsOnly(unescaped, "/-_.~+:, ") || err != nil && !wordsOnly(string(value), "/-_.~+:,%") {
				return true
			}
		}
	}
	return false
}

// urlQueries are the query and fragment of each URL in data (after
// scheme://, what follows its first ? or #, up to a space, a quote or an
// angle bracket), as urlQuery reads them. A :// within what the last URL
// read covers (its host and path, which lead to the same query, or its
// query, whose fields hold the later URL's) is passed over: read again
// from each, a line of x:// said again and again cost the square of its
// length (64 KiB a second, a bundle of 16 MiB hours).
func urlQueries(data []byte) iter.Seq[[]byte] {
	var endsURL [256]bool
	for _, c := range []byte(" \t\r\n\f\"'<>") {
		endsURL[c] = true
	}
	ends := func(c byte) bool { return endsURL[c] }
	return func(yield func([]byte) bool) {
		covered := 0
		for at := range occurrences(data, "://") {
			if at < covered {
				continue
			}
			scheme := at
			for scheme > 0 && (isWordByte(data[scheme-1]) && data[scheme-1] != '_' || strings.IndexByte("+.-", data[scheme-1]) >= 0) {
				scheme--
			}
			if !slices.ContainsFunc(data[scheme:at], func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }) {
				continue
			}
			i := at + 3
			for i < len(data) && !ends(data[i]) && data[i] != '?' && data[i] != '#' {
				i++
			}
			if covered = i; i == len(data) || ends(data[i]) {
				continue
			}
			end := i + 1
			for end < len(data) && !ends(data[end]) {
				end++
			}
			covered = end
			if !yield(data[i+1 : end]) {
				return
			}
		}
	}
}

// headerLiteral says a command gives curl, wget or xh a header whose
// name says a credential (X-Api-Key, Ocp-Apim-Subscription-Key,
// PRIVATE-TOKEN, Authorization, Cookie) a literal, however short: each
// word of its value past an authorization's scheme (Bearer, Basic) must
// be a variable's reference or a template's field (-H "X-Api-Key:
// $KEY") to be known to hold none. Before, 16 characters made a key one
// (a 15-character X-Api-Key in a status line's curl crossed). In prose
// (a skill's instructions), which shows how a call is made, a literal
// that reads as words is a placeholder too (YOUR_API_KEY, your-key).
func headerLiteral(data []byte, prose bool) bool {
	lower := lowerASCII(data)
	if !bytes.Contains(lower, []byte("-h")) && !bytes.Contains(lower, []byte("--header")) {
		return false
	}
	for _, m := range headerArgument().FindAllSubmatch(data, -1) {
		for _, word := range strings.Fields(string(m[2])) {
			switch strings.ToLower(word) {
			case "bearer", "basic", "token", "digest", "negotiate", "apikey":
				continue
			}
			if strings.HasPrefix(word, "$(") || word[0] == '`' {
				// A command's output: the rest of the value is its words.
				break
			}
			if !strings.ContainsAny(word[:1], "${<") && (!prose || !wordsOnly(word, "-_.~+")) {
				return true
			}
		}
	}
	return false
}

// headerArgument is a header given on a command line (-H 'Name: value',
// --header=…, -H"…"): its name, which says a credential, the first group,
// and its value up to a quote or the line's end, the second.
var headerArgument = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[\s'"])(?:-H|--header)(?:\s*|=)["']?([a-z0-9_-]*(?:key|token|secret|auth|passw|cookie|signature|credential)[a-z0-9_-]*)[ \t]*:[ \t]*([^"'\n]*)`)
})

// InLinkerFlags says data gives the Go linker a string to build in
// (-X main.dbPass=LITERAL, as GOFLAGS=-ldflags=-X=… or go env -w's file
// write it) that is not known to be no credential: known is a value whose
// every part between - _ . ~ + / : is shorter than 8 characters or reads
// as a word or a version (-X main.version=v1.2.3, -X main.mode=release),
// given to a name that says no credential as a settings key's would
// (dbPass, apiKey, token). Anything else may be one: a commit's hash
// passes only named with --env.
func InLinkerFlags(data []byte) bool {
	if !bytes.Contains(data, []byte("X")) {
		return false
	}
	for _, m := range linkerString().FindAllSubmatch(data, -1) {
		name, value := string(m[1]), string(m[2])
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		if InSettings([]byte(name+"="+value+"\n")) || !wordsOnly(value, "/-_.~+:") {
			return true
		}
	}
	return false
}

// linkerString is a -X flag of the Go linker: the variable's name, then
// the value it is given, up to a space or a quote.
var linkerString = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s='",])--?X(?:=|\s+)["']?([^\s"'=]+)=([^\s"']*)`)
})

// wordsOnly says each part of value between the separators seps is
// shorter than 8 characters or reads as a word or a version (wordPart).
func wordsOnly(value, seps string) bool {
	for _, part := range strings.FieldsFunc(value, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if len(part) >= 8 && !wordPart().MatchString(part) {
			return false
		}
	}
	return true
}

// urlPath is a URL's path, its first group: what follows the authority up
// to a query, a fragment, a space, a quote or a list's separator.
var urlPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#"'<>,|;]*(/[^\s?#"'<>,|;]*)`)
})

// wordPart is a part of a URL's path segment that reads as a word or a
// version: letters of one case, or capitalised, or words joined in camel
// or Pascal case, each capital after the first followed by two or more
// small letters (an API's method, chat.postMessage; a repository's
// owner or name, GoogleCloudPlatform, TypeScript, whose remote URL in a
// copy of .git/config must stay fetchable), then digits.
var wordPart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-z]*|[A-Z]*|[A-Z]?[a-z]+([A-Z][a-z]{2,})*)[0-9]*$`)
})

// WithoutURL is data with every URL's credential taken out
// (the URL names the same host and path), and whether there was one.
func WithoutURL(data []byte) ([]byte, bool) {
	out := urlCredential().ReplaceAll(data, []byte("$1$2"))
	if users := tokenUser(out); len(users) > 0 {
		var kept []byte
		done := 0
		for _, m := range users {
			kept = append(kept, out[done:m[3]]...)
			done = m[1]
		}
		out = append(kept, out[done:]...)
	}
	return out, !bytes.Equal(out, data)
}

// WithoutURLPath is data with each segment of a URL's path that may be a
// token (as InURLPath judges one) replaced by a *, and whether there was
// one.
func WithoutURLPath(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("://")) {
		return data, false
	}
	var out []byte
	done := 0
	for _, m := range urlPath().FindAllSubmatchIndex(data, -1) {
		at := m[2]
		for _, segment := range bytes.Split(data[m[2]:m[3]], []byte("/")) {
			// A colon ending the path is a message's (git's "pull URL: Merge made").
			if token := bytes.TrimRight(segment, ":"); !wordsOnly(string(token), "-_.~+") {
				out = append(append(out, data[done:at]...), '*')
				done = at + len(token)
			}
			at += len(segment) + 1
		}
	}
	if out == nil {
		return data, false
	}
	return append(out, data[done:]...), true
}

// WithoutURLQuery is data with every URL's query and fragment taken out,
// and whether there was one: either may carry a token over any
// transport (?private_token=, ?sig=, #access_token=).
func WithoutURLQuery(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("://")) {
		return data, false
	}
	out := urlQuery().ReplaceAll(data, []byte("$1"))
	return out, !bytes.Equal(out, data)
}

// urlQuery is a URL up to its query or fragment, its first group, and
// them, up to a space, a quote or an angle bracket.
var urlQuery = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s?#"'<>]*)[?#][^\s"'<>]*`)
})

// settingsCredential is a literal given, in a settings file (YAML, TOML,
// INI, a .properties, JSON, a shell's export, XML's element), to a key
// whose name ends in what says a password, a secret, a token or a key
// (password: hunter2, db.password=…, "apiKey": "…", export DB_TOKEN=…,
// <password>…</password>), however short: a settings file is data, where
// a key's name says what its value is. Its value is the first group or,
// of an element, the second.
var settingsCredential = sync.OnceValue(func() *regexp.Regexp {
	const name = `[a-z0-9_.-]*(?:passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?signature|credentials?)`
	return regexp.MustCompile(`(?im)(?:^|[{,;])[ \t-]*(?:export[ \t]+)?["']?` + name + `["']?[ \t]*[:=][ \t]*["']?([^\s"'$<{\[#%,}\]][^\s"',}]*)|<` + name + `>[ \t]*([^\s<$][^<]*)<`)
})

// netrcCredential is a password in a .netrc's shape, under any name.
var netrcCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bmachine[ \t]+\S+\s+(?:login[ \t]+\S+\s+)?password[ \t]+\S`)
})

// settingsHints are what every credential InSettings finds holds (in
// lower case): a name that says one, and what InDocument's hold.
// Text with none is not matched against the expressions, which cost
// about 2 ms a KiB on a loaded 2-core machine.
var settingsHints = append([]string{"pass", "pw", "secret", "token", "key", "auth", "credential", "pin", "pat", "cookie", "jwt", "signature", "://"}, documentHints...)

// notLiteral are values a settings key takes that are no credential: a
// switch, nothing.
var notLiteral = []string{"true", "false", "yes", "no", "on", "off", "null", "nil", "none", "~"}

// documentCredential is a credential no prose holds by chance: a token
// of a known service by its prefix, a bearer token.
var documentCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b` + TokenPrefixes + `[A-Za-z0-9_-]{8,}|\bbearer\s+[A-Za-z0-9._~+/-]{16,}`)
})

// documentHints are what every credential InDocument finds holds (in
// lower case): a bearer token, a URL's user, a user on a command line, a
// known service's token's prefix, a webhook's host.
var documentHints = []string{
	"bearer", "@", "-u ", "-u=", "-a ", "-a=", "-u\t", "-a\t", "--user", "-u\"", "-a\"", "-u'", "-a'",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "xox", "sk-ant-", "sk-proj-", "akia", "hvs.", "pypi-age", "aiza", "k_live_",
	"hooks", "discord", "webhook", "logic.azure", "ifttt", "telegram",
}

// InDocument says prose (Markdown: a command, a skill's instructions, an
// agent's) holds a credential: a known service's token, a bearer token,
// a URL that holds or is one, a user's password on a command line it
// shows, a password given to a program's short option (sshpass -p,
// mysql -pPASSWORD), to OpenSSL (pass:PASSWORD), HTTP's basic
// credentials, or a key it gives a header named for one that is not
// words (curl -H 'X-Api-Key: …': headerLiteral), or a value of a URL's
// query not known to be words (InURLQuery: a skill's curl of a weather
// API's ?appid=…, a command's !`curl …?key=…`, CLAUDE.md's link to an
// Azure Function's ?code=… crossed), or a literal given to a label
// that names a secret at a line's end, as a note writes it
// (labelledLiteral: "- Staging DB password: …"), or a token drawn at
// random given to a label that says no identifier ("- Cloudflare: …",
// randomValue), or in a command's word, as a note's code gives one
// (PUSHOVER_APP=… ~/bin/notify, randomWord), or a token drawn at random
// in a table's cell or right after a word that names a secret
// (proseTokenDrawn), or as a word of a command its code shows
// (noteCommandDrawn: ~/bin/notify -t … in a ```sh block), or a literal
// given to an environment variable named for a credential outside code
// (proseAssignment: PGPASSWORD=… psql in a sentence). Not a literal given
// to a name elsewhere, which prose writes by chance (Auth:
// src/middleware/authentication.ts). Read a line at a time, each
// with the next, as InSettings reads.
func InDocument(data []byte) bool {
	if front, ok := frontMatter(data); ok && InSettings(front) {
		return true
	}
	return PrivateKey(data) || signedToken(data) || serviceToken(data) || cookieJar(data) || codeInProse(data) || labelledLiteral(data) || foreignPassword(data, true) || randomValue(data) || randomWord(data) || proseTokenDrawn(data) || noteCommandDrawn(data) || proseAssignment(data) || headerLiteral(data, true) || InURLQuery(data) || shortOptionPassword(data) || opensslPassword(data) || basicInCode(data) || npmToken(data) || documentPositional(data) || byLines(data, documentHints, func(chunk []byte) bool {
		return documentCredential().Match(chunk) || webhookURL().Match(chunk) || userPassword().Match(chunk) || InURL(mailLink().ReplaceAll(chunk, []byte("mailto ")))
	})
}

// InLargeDocument says prose too large for InDocument's expressions (a
// long CLAUDE.md, a skill's reference) holds a credential: one InCode
// finds, a cookie as a cookie file keeps it, or a value given to a
// label that names a secret at a line's end, in English or another
// language (labelledLiteral, foreignPassword), a token drawn at random
// as a label's value, a command's word or a table's cell (randomValue,
// randomWord, noteCommandDrawn, proseTokenDrawn), a literal given to an
// environment variable named for a credential (proseAssignment), or on
// a line a header's,
// a code's or a URL's literal as InDocument finds it (largeProseLines).
// Past 16 KiB prose was judged as code alone, and a CLAUDE.md's "-
// Staging DB password: …" a # note saved, or a cookies.txt of a real
// browser's export, crossed.
// Each is read a line at a time, an expression run only on a line with
// a hint of one.
func InLargeDocument(data []byte) bool {
	return InCode(data) || cookieJar(data) || labelledLiteral(lineEnds(data)) || foreignPassword(data, true) || randomValue(data) || randomWord(data) || proseTokenDrawn(data) || noteCommandDrawn(data) || proseAssignment(data) || largeProseLines(data)
}

// maxLineEnd is what of a long line's end lineEnds keeps: a label and
// the value it gives.
const maxLineEnd = 256

// lineEnds is data with each line longer than maxLineEnd cut to its
// last maxLineEnd bytes, where a label gives its value (labelledSecret
// reads a line's end), so that its expression reads a bounded part of
// each line: a hint on a minified line of 1 MiB cost it 0.7 s.
func lineEnds(data []byte) []byte {
	if len(data) <= maxLineEnd {
		return data
	}
	out := make([]byte, 0, min(len(data), 1<<20))
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		out = append(append(out, line[max(0, len(line)-maxLineEnd):]...), '\n')
	}
	return out
}

// codeInProse says prose shows code (a block as CommonMark places one:
// markdownCode; an inline span, Claude Code's !`command`, which a slash
// command runs as it is typed)
// that gives a literal to a name that says a credential, as a command or
// settings write it (shellAssignment: export DB_PASSWORD=…, PGPASSWORD=…
// psql; settingsCredential: password: …), the literal not reading as a
// placeholder's words (your-password, changeme: wordsOnly), a path or a
// call. Prose itself
// writes such a name by chance (Auth: src/auth.ts); its code does not: a
// command's !`PGPASSWORD=… pg_dump` and a skill's export
// DEPLOY_PASSWORD=… in a bash block crossed.
func codeInProse(data []byte) bool {
	var md markdownCode
	var block [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		text, kind := md.read(line)
		if kind == codeLine {
			block = append(block, text)
			continue
		}
		if len(block) > 0 && givesUnplaceholder(bytes.Join(block, []byte("\n"))) {
			return true
		}
		block = nil
		if kind == proseLine && codeLineGives(text, false) {
			return true
		}
	}
	return len(block) > 0 && givesUnplaceholder(bytes.Join(block, []byte("\n")))
}

// givesUnplaceholder says code prose shows gives a literal to a name
// that says a credential, as a command or settings write it
// (shellAssignment, settingsCredential), the literal not reading as a
// placeholder's words (unplaceholder).
func givesUnplaceholder(code []byte) bool {
	for _, m := range shellAssignment().FindAllSubmatch(code, -1) {
		if unplaceholder(m[1]) {
			return true
		}
	}
	for _, m := range settingsCredential().FindAllSubmatch(code, -1) {
		if unplaceholder(m[1]) || unplaceholder(m[2]) {
			return true
		}
	}
	return false
}

// unplaceholder says v, given to a credential's name in prose's code or
// a comment, is a literal that does not read as a placeholder: not
// words (your-password, changeme, repopwd: wordsOnly), a switch, a
// path, a variable's reference, a template's field or a call.
func unplaceholder(v []byte) bool {
	w := strings.ToLower(strings.Trim(string(v), `"'`))
	return w != "" && !slices.Contains(notLiteral, w) && !wordsOnly(w, "-_.:") && !strings.ContainsAny(w[:1], "<$%{[*/~.") && !strings.Contains(w, "(")
}

// InVendorSettings says a vendor's settings file (what a toolchain keeps
// in its conf/: Maven's settings.xml, a JDK's security properties) holds
// a credential: its text outside comments (XML's, and lines that begin
// with #) as InSettings judges it; in its comments, which document the
// settings and show examples (Maven's own settings.xml shows
// <password>repopwd</password>, a JDK's java.security links to a
// specification by a path no word spells), what InDocument finds or a
// literal given to a credential's name that does not read as a
// placeholder's words (givesUnplaceholder). Judged whole, Maven's own
// and the JDK's would not be shown, and mvn and java cannot read the
// empty file in their place; a password commented out that reads as a
// word (hunter2) is taken for an example.
func InVendorSettings(data []byte) bool {
	text, comments := vendorComments(data)
	return InSettings(text) || len(comments) > 0 && (InDocument(comments) || givesUnplaceholder(comments))
}

// vendorComments are data without its comments (XML's <!-- … -->, a
// line that begins with #), and the comments' text, each on lines of
// its own. An XML comment left open runs to the end.
func vendorComments(data []byte) (text, comments []byte) {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if trimmed := bytes.TrimLeft(line, " \t"); bytes.HasPrefix(trimmed, []byte("#")) {
			comments = append(append(comments, trimmed[1:]...), '\n')
			data = rest
			continue
		}
		i := bytes.Index(line, []byte("<!--"))
		if i < 0 {
			text = append(append(text, line...), '\n')
			data = rest
			continue
		}
		text = append(text, line[:i]...)
		body, after, _ := bytes.Cut(data[i+4:], []byte("-->"))
		comments = append(append(comments, body...), '\n')
		data = after
	}
	return text, comments
}

// documentPositional says prose shows a command that gives a password
// in its place (htpasswd -b, sudo -S's input) or an Authorization
// header a scheme and a literal: what no prose writes by chance, unlike
// vault login's word or a header's value alone.
func documentPositional(data []byte) bool {
	lower := lowerASCII(data)
	return wordCommand(data, lower, "htpasswd", htpasswdPassword) || wordCommand(data, lower, "sudo", sudoStdinPassword) || authorizationHeader(data, lower, true)
}

// frontMatter is a Markdown file's YAML front matter: what lies between
// its first line, ---, and the next line that is --- alone. Claude Code
// reads an agent's MCP servers (their env and headers) and an agent's or
// a skill's hooks (their commands) there: settings, judged as settings
// are, not as prose (an agent's DB_PASSWORD: …, a skill's hook's
// PGPASSWORD=… crossed).
func frontMatter(data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		if rest, ok = bytes.CutPrefix(data, []byte("---\r\n")); !ok {
			return nil, false
		}
	}
	for at := range occurrences(rest, "---") {
		end := at + 3
		if (at == 0 || rest[at-1] == '\n') && (end == len(rest) || rest[end] == '\n' || rest[end] == '\r') {
			return rest[:at], true
		}
	}
	return nil, false
}

// mailLink is a mail link's scheme, after which an address reads as a
// scheme-less URL's user and password before its host
// ([write to us](mailto:team@example.com)): prose shows one often.
var mailLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bmailto:`) })

// byLines says match holds for a line of data with one of hints (in lower
// case) in it, taken with the line after it.
func byLines(data []byte, hints []string, match func(chunk []byte) bool) bool {
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		lower := bytes.ToLower(line)
		if !slices.ContainsFunc(hints, func(h string) bool { return bytes.Contains(lower, []byte(h)) }) {
			continue
		}
		chunk := line
		if i+1 < len(lines) {
			chunk = slices.Concat(line, []byte("\n"), lines[i+1])
		}
		if match(chunk) {
			return true
		}
	}
	return false
}

// InSettings says a settings file's text holds a credential: one a
// command's text would (InCommand), a password in a .netrc's shape, or a
// literal given to a key that names a credential (settingsCredential,
// and settingsWordCredential's short words: key, pass, pwd, auth, …;
// a password's word joined to what precedes it: SMTPPass, DBPASS,
// rootpw), a TOTP seed or a wallet's recovery words given to a name
// of theirs (settingsnames.go),
// but a number, a switch or nothing (max_token: 4096, use_token: true,
// password: ${DEPLOY_PASSWORD}). It is read a line at a time, each with
// the next (a YAML key's value may follow it), and only a line with a
// hint of one (settingsHints) is matched against the expressions, which
// cost about 2 ms a KiB: a package.json's lines are short. Text with a
// string's escapes is judged as its strings hold it too
// (unescaped).
func InSettings(data []byte) bool {
	if u, ok := unescaped(data); ok && inSettings(u) {
		return true
	}
	return inSettings(data)
}

// unescaped is data with a string's escapes read as the string holds
// them, and whether it had one: \" a quote, \n \r \t a line's end or a
// tab, \/ and \\ the character, \uXXXX the character it numbers. JSON
// writes every quote and line's end in a string so, as TOML's and YAML's
// double-quoted strings and code's do, and Go's encoder an & < > as
// \u0026 \u003c \u003e: a command in a plugin's hooks.json with curl
// -u \"ci:…\" or -H \u0022X-Api-Key: …\u0022, and a skill's config.json
// keeping a .env in one string (DB_HOST=db\nDB_PASSWORD=…), which the
// expressions read only unescaped, crossed. Another backslash is kept.
func unescaped(data []byte) ([]byte, bool) {
	at := bytes.IndexByte(data, '\\')
	if at < 0 {
		return nil, false
	}
	out := make([]byte, 0, len(data))
	changed := false
	for ; at >= 0; at = bytes.IndexByte(data, '\\') {
		out = append(out, data[:at]...)
		data = data[at:]
		escape, next := 2, byte(0)
		if len(data) > 1 {
			next = data[1]
		}
		switch next {
		case '"', '/', '\\':
			out = append(out, next)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := strconv.ParseUint(string(data[2:min(len(data), 6)]), 16, 16)
			if err == nil && len(data) >= 6 {
				out, escape = utf8.AppendRune(out, rune(r)), 6
				break
			}
			fallthrough
		default:
			out, escape = append(out, '\\'), 1
		}
		changed = changed || escape > 1
		data = data[escape:]
	}
	return append(out, data...), changed
}

// inSettings is InSettings of data as written.
func inSettings(data []byte) bool {
	if bytes.Contains(bytes.ToLower(data), []byte("machine")) && netrcCredential().Match(data) || PrivateKey(data) || signedToken(data) || serviceToken(data) {
		return true
	}
	// A program given a password as an option or a word in its place
	// (mysql -p…, ldapsearch -w …, vault login …) is found by the
	// program's name, which no line's hint holds, and without an
	// expression: a line with no other hint of one crossed.
	return byLines(data, settingsHints, func(chunk []byte) bool {
		return commandHolds(chunk) || settingsLiteral(chunk) || settingsWordLiteral(chunk) || joinedPasswordLiteral(chunk) || propertyLiteral(chunk) || directiveLiteral(chunk)
	}) || bytes.IndexByte(data, '<') >= 0 && xmlPropertyLiteral(data) ||
		shortOptionPassword(data) || positionalPassword(data, lowerASCII(data)) || injected(data, InCommand) ||
		MayHold(data, containerHints) && containerLiteral(data) || multiLineLiteral(data) || pgpassPassword(data) || cookieJar(data) ||
		MayHold(data, secretNameHints) && (otpSeed(data) || recoveryWords(data)) || foreignPassword(data, false) || randomValue(data) || commandSetting(data)
}

// directiveCredential is a line that is a directive and its value
// parted by spaces alone, the directive's name ending in what says a
// password, a secret, a token or an authentication, however joined
// (Redis's requirepass and masterauth, a password directive), or
// Sentinel's auth-pass, whose value follows the master's name. Its value
// is the first group.
var directiveCredential = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[ \t]*(?:sentinel[ \t]+auth-pass[ \t]+\S+|[a-z0-9_.-]*(?:pass|passwd|password|secret|token|auth|pwd))[ \t]+["']?([^\s"'#;=:$<{/\\][^\s"']*)["']?[ \t]*\r?$`)
})

// directiveLiteral says text gives a literal, not a switch or a number,
// to a directive that names a credential (directiveCredential): a
// redis.conf's requirepass crossed. Of this machine's text under /etc,
// /usr and the home, one file but code's holds such a line that is
// none (login.defs' PREVENT_NO_AUTH superuser).
func directiveLiteral(text []byte) bool {
	for _, m := range directiveCredential().FindAllSubmatch(text, -1) {
		if literal(string(m[1])) {
			return true
		}
	}
	return false
}

// namedProperty is a setting written as its name, then its value, in
// the two shapes whose name and value the expressions above do not see
// side by side: Hadoop's XML (core-site.xml's
// <name>fs.s3a.secret.key</name> and <value>…</value>, Hive's
// javax.jdo.option.ConnectionPassword, HBase's, Spark's), and a dotted
// name and its value apart by spaces alone, as a .properties file may
// write them and Spark's spark-defaults.conf does
// (spark.hadoop.fs.s3a.secret.key  …). The name is the first group or
// the third, the value the second or the fourth.
var namedProperty = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)<name>\s*([^<\s]+)\s*</name>\s*<value>\s*([^<\s]*)|^[ \t]*([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+)[ \t]+([^\s=:][^\s]*)[ \t]*\r?$`)
})

// propertyLiteral says text gives a literal to a name that says a
// credential in one of namedProperty's shapes, judged as the name and
// the value written name: value would be.
func propertyLiteral(text []byte) bool {
	for _, m := range namedProperty().FindAllSubmatch(text, -1) {
		name, value := m[1], m[2]
		if len(m[3]) > 0 {
			name, value = m[3], m[4]
		}
		pair := slices.Concat(name, []byte(": "), value)
		if settingsLiteral(pair) || settingsWordLiteral(pair) {
			return true
		}
	}
	return false
}

// xmlProperty are the shapes in which XML gives a setting its name and
// its value apart, each with the groups n and v: attributes of one
// element, the name in name= or key= and the value in value=, in either
// order (Spring's and Ant's <property name="password" value="…"/>,
// Tomcat's <Environment>, .NET's <add key="…" value="…"/>); a name's
// element, then the value's, a description or a comment between
// (Hadoop's, a servlet's <param-name> and <param-value>), or a
// CDATA section around the value; Java's properties in XML (<entry
// key="…">…</entry>) and a property list's <key> and <string>; an
// element named in name= or key= whose text or <value> element is the
// value (.NET's <setting name="ApiKey"><value>…</value></setting>, a
// Spring <property name="password"><value>…</value>). Read over
// the whole text, as the name and the value may lie lines apart.
var xmlProperty = sync.OnceValue(func() []*regexp.Regexp {
	const (
		tag   = `<[A-Za-z][\w:.-]*\s(?:[^<>]*?\s)?`
		name  = `(?:name|key)\s*=\s*["'](?P<n>[^"'<>]+)["']`
		value = `value\s*=\s*["'](?P<v>[^"'<>]*)["']`
		text  = `\s*(?:<!\[CDATA\[)?(?P<v>[^<\s\]]*)`
	)
	return []*regexp.Regexp{
		regexp.MustCompile(tag + name + `[^<>]*?\s` + value),
		regexp.MustCompile(tag + value + `[^<>]*?\s` + name),
		regexp.MustCompile(`<(?:param-)?name>\s*(?P<n>[^<\s]+)\s*</(?:param-)?name>(?:\s|<!--(?:[^-]|-[^-])*-->|<description>[^<]*</description>)*<(?:param-)?value>` + text),
		regexp.MustCompile(`<entry\s+key\s*=\s*["'](?P<n>[^"'<>]+)["']\s*>` + text),
		regexp.MustCompile(`<key>\s*(?P<n>[^<\s]+)\s*</key>\s*<string>` + text),
		regexp.MustCompile(tag + name + `[^<>]*>\s*(?:<value>)?` + text),
	}
})

// xmlPropertyLiteral says text gives a literal to a name that says a
// credential in one of xmlProperty's shapes, judged as the name and the
// value written name: value would be: an administrator's
// applicationContext.xml with <property name="password" value="…"/>,
// Tomcat's context.xml with an <Environment>'s, a web.xml's
// <param-value> and a core-site.xml whose secret key had a description
// before its value were readable.
func xmlPropertyLiteral(text []byte) bool {
	for _, re := range xmlProperty() {
		n, v := re.SubexpIndex("n"), re.SubexpIndex("v")
		for _, m := range re.FindAllSubmatch(text, -1) {
			if !holdsAny(bytes.ToLower(m[n]), settingsHints) {
				continue
			}
			pair := slices.Concat(m[n], []byte(": "), m[v])
			if settingsLiteral(pair) || settingsWordLiteral(pair) {
				return true
			}
		}
	}
	return false
}

// settingsLiteral says text gives a literal to a key that names a
// credential (settingsCredential), not a switch, a number or nothing.
func settingsLiteral(text []byte) bool {
	for _, m := range settingsCredential().FindAllSubmatch(text, -1) {
		if literal(string(m[1]) + string(m[2])) {
			return true
		}
	}
	return false
}

// settingsWordLiteral says text gives a literal to a key whose name's
// word says a credential (settingsWordCredential). Not in a text too
// large for InSettings, where such a word (key: value) is too common to
// look around each one.
func settingsWordLiteral(text []byte) bool {
	for _, m := range settingsWordCredential().FindAllSubmatch(text, -1) {
		if literal(string(m[1])) {
			return true
		}
	}
	return false
}

// literal says a settings value is a literal: not a switch, a number or
// nothing.
func literal(value string) bool {
	v := strings.ToLower(value)
	return !slices.Contains(notLiteral, v) && strings.Trim(v, "0123456789.") != ""
}

// settingsWordCredential is a literal given, in a settings file, to a key
// whose name is or ends in a word that says a credential but is too short
// to look for inside a name (a monkey, a spinner): key, pass, pw, pwd,
// passphrase, auth, pin, pat, cookie, jwt, as the whole name ("key": …,
// a skill's config.json's Jira token), after a separator (license_key,
// db.pass, SMTP_PW) or as a capitalised word after a small letter or a
// digit, in camel or Pascal case (dbPwd, dbPw, signingKey, .NET's
// SigningKey, EncryptionKey, S3Key). Its value is the first group.
var settingsWordCredential = sync.OnceValue(func() *regexp.Regexp {
	const words = `key|pass|pw|pwd|passphrase|auth|pin|pat|cookie|jwt`
	return regexp.MustCompile(`(?m)(?:^|[{,;])[ \t-]*(?:export[ \t]+)?["']?(?:(?i:[a-z0-9_.-]*[_.-])?(?i:` + words + `)|[A-Za-z0-9]*[a-z0-9](?:Key|Pass|Pw|Pwd|Passphrase|Auth|Pin|Pat|Cookie|Jwt))["']?[ \t]*[:=][ \t]*["']?([^\s"'$<{\[#%,}\]][^\s"',}]*)`)
})

// codeTokens are the prefixes known services give their tokens
// (TokenPrefixes, as issued: case matters) and the paths of webhooks'
// URLs (webhookURL), each a credential where token characters follow,
// grouped by what they begin with: data is searched once for each group.
var codeTokens = map[string][]string{
	"gh":                   {"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
	"gl":                   {"glpat-", "gldt-"},
	"xox":                  {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxe-"},
	"sk-":                  {"sk-ant-", "sk-proj-"},
	"AKIA":                 {"AKIA"},
	"hvs.":                 {"hvs."},
	"pypi-":                {"pypi-AgE"},
	"AIza":                 {"AIza"},
	"sk_live_":             {"sk_live_"},
	"rk_live_":             {"rk_live_"},
	"hooks.":               {"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"},
	"discord":              {"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
	"api.telegram.org/bot": {"api.telegram.org/bot"},
}

// InCode says a script's or source file's text holds a credential no code
// writes by chance: a known service's token, a webhook's URL, a bearer
// token, HTTP's basic credentials, a URL with a password (not a
// template's: {password}, $PASS), a user's password on a command line
// (curl -u ci:PASSWORD), a password given to a program's option
// (sshpass -p, mysql -pPASSWORD, --password PASSWORD), or a string
// literal given to a name that says a password, a secret or a key
// (DB_PASSWORD = "hunter2"), or a value of a URL's query not known to
// be words (InURLQuery: a script's ?appid=… crossed); not a call or a
// variable given to one,
// which code writes all the time (token = tokenizer.encode(…)). It
// searches for literals and reads a few bytes past each, with no
// regular expression: a minified bundle of 16 MiB costs it 120 ms of
// processor time on a 2-core machine at load 17 (77 ms before it looked
// for options and literals given to names), InDocument's expressions
// 285 ms for 87 KiB at load 10. Text with a string's escapes is
// judged as its strings hold it too (unescaped).
func InCode(data []byte) bool {
	if u, ok := unescaped(data); ok && inCode(u) {
		return true
	}
	return inCode(data)
}

// inCode is InCode of data as written.
func inCode(data []byte) bool {
	if PrivateKey(data) || signedToken(data) || serviceToken(data) {
		return true
	}
	for group, tokens := range codeTokens {
		for pos := range occurrences(data, group) {
			at := pos
			for _, t := range tokens {
				if bytes.HasPrefix(data[at:], []byte(t)) && codeToken(data, at, t) {
					return true
				}
			}
		}
	}
	return bearerInCode(data) || urlPasswordInCode(data) || userPasswordInCode(data) || inOptionsOrCode(data) || InURLQuery(data)
}

// userPasswordInCode says data holds a user's password given to curl,
// wget or httpie on a command line (-u ci:PASSWORD, --user=ci:PASSWORD),
// as userPassword reads it, not a variable ($CI_PASSWORD).
func userPasswordInCode(data []byte) bool {
	for _, flag := range []struct{ short, long string }{{"-u", "--user"}, {"-a", "--auth"}} {
		for pos := range occurrences(data, flag.short) {
			start, rest := pos, pos+len(flag.short)
			if start > 0 && bytes.HasPrefix(data[start-1:], []byte(flag.long)) {
				start, rest = start-1, start-1+len(flag.long)
			}
			if start > 0 && !isSpace(data[start-1]) && strings.IndexByte("\"'[,(", data[start-1]) < 0 {
				continue
			}
			n := tokenRun(data[rest:], isSpace)
			if n == 0 && rest < len(data) && data[rest] == '=' {
				n = 1
			}
			// Or the next of a list's quoted words: subprocess.run(["curl",
			// "-u", "ci:…"]), exec.Command("curl", "-u", "ci:…").
			if n == 0 && rest < len(data) && (data[rest] == '"' || data[rest] == '\'') {
				if gap := tokenRun(data[rest+1:], func(c byte) bool { return isSpace(c) || c == ',' }); bytes.IndexByte(data[rest+1:rest+1+gap], ',') >= 0 {
					n = 1 + gap
				}
			}
			p := rest + n
			if n == 0 || p >= len(data) {
				continue
			}
			if data[p] == '"' || data[p] == '\'' {
				p++
			}
			user := tokenRun(data[p:], func(c byte) bool { return isWordByte(c) || strings.IndexByte(".@+-", c) >= 0 })
			if p += user; user == 0 || p+1 >= len(data) || data[p] != ':' || strings.IndexByte(" \t\r\n\v\f$\"'", data[p+1]) >= 0 {
				continue
			}
			if tokenRun(data[p+2:], func(c byte) bool { return !isSpace(c) && c != '"' && c != '\'' }) >= 5 {
				return true
			}
		}
	}
	return false
}

// xmlNamed says rest, what follows a name in XML, ends it as
// xmlProperty's shapes do: its element's end tag, or its attribute's
// quote, then another attribute or the element's >.
func xmlNamed(rest []byte) bool {
	for _, end := range []string{"</name>", "</param-name>", "</key>"} {
		if bytes.HasPrefix(rest, []byte(end)) {
			return true
		}
	}
	if len(rest) < 2 || rest[0] != '"' && rest[0] != '\'' {
		return false
	}
	rest = rest[1:]
	return rest[0] == '>' || (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') && bytes.Contains(rest[:min(len(rest), 256)], []byte("value"))
}

// settingsNames are how the names settingsCredential knows end, in lower
// case.
var settingsNames = []string{"passwd", "password", "secret", "token", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "accountkey", "account_key", "account-key", "sharedaccesssignature", "credential", "credentials"}

// largeSettingsMatches bounds how many of the places InLargeSettings
// finds a name that says a credential given a value are matched against
// the expressions (about 2 ms a KiB): past it, the text is taken to hold
// one, unjudged.
const largeSettingsMatches = 64

// InLargeSettings says a settings file's text too large for InSettings'
// expressions holds a credential: one InCode finds, a literal given to a
// key that names one (password: hunter2), or a password in a .netrc's
// shape, or a directive's (largeDirectiveLiteral), a password's word
// joined to its name's, a TOTP seed or recovery words given to theirs
// (largeNamedLiteral), a cookie as a cookie file keeps it, or a
// password's word of another language given a value (foreignPassword). The expressions run
// only on the few hundred bytes around each name of one that is given a
// value (followed by : = or an element's >, or, for a .netrc's password
// or a directive, a space), found by searching for literals; a text
// with more such places than largeSettingsMatches is taken to hold one.
func InLargeSettings(data []byte) bool {
	if InCode(data) {
		return true
	}
	lower := lowerASCII(data)
	netrc := bytes.Contains(lower, []byte("machine"))
	matched := 0
	for _, name := range settingsNames {
		for pos := range occurrences(lower, name) {
			at := pos + len(name)
			p := at
			if p < len(data) && (data[p] == '"' || data[p] == '\'') {
				p++
			}
			p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
			given := p < len(data) && strings.IndexByte(":=>", data[p]) >= 0
			// Hadoop's XML names a property in an element of its own,
			// its value in the next (namedProperty).
			property := !given && xmlNamed(data[at+tokenRun(data[at:], func(c byte) bool { return isTokenByte(c) || c == '.' }):])
			netrcPassword := netrc && name == "password" && p > at
			if !given && !netrcPassword && !property {
				continue
			}
			if matched++; matched > largeSettingsMatches {
				return true
			}
			from, to := max(0, pos-256), min(len(data), at+256)
			if given && (settingsLiteral(data[from:to]) || data[p] == '>' && xmlPropertyLiteral(data[from:to])) || netrcPassword && netrcCredential().Match(data[max(0, pos-512):to]) ||
				property && (propertyLiteral(data[from:to]) || xmlPropertyLiteral(data[from:min(len(data), at+1024)])) {
				return true
			}
		}
	}
	return largeDirectiveLiteral(data, lower) || largeNamedLiteral(data, lower) || cookieJar(data) || foreignPassword(data, false) || randomValue(data) || commandSetting(data)
}

// largeNames are the names InSettings reads with expressions of their
// own (settingsnames.go), each with its expression: a password's word
// joined to what precedes it (SMTPPass, DBPASS, rootpw), a TOTP seed's
// names, a wallet's recovery words'.
// Each with what its value may begin with (a quote and spaces before
// it): a literal's character, base32's, a small letter.
var largeNames = []struct {
	names []string
	first func(byte) bool
	holds func([]byte) bool
}{
	{[]string{"pass", "pwd", "pw"}, func(c byte) bool { return !isSpace(c) && strings.IndexByte("\"'$<{[#%,}]", c) < 0 }, joinedPasswordLiteral},
	{[]string{"otp", "mfa", "2fa"}, func(c byte) bool { return 'A' <= c && c <= 'Z' || '2' <= c && c <= '7' }, otpSeed},
	{[]string{"mnemonic", "seed", "phrase", "words"}, func(c byte) bool { return 'a' <= c && c <= 'z' }, recoveryWords},
}

// largeNamedMatches bounds how many places largeNamedLiteral matches
// against the expressions: past it, the text is taken to hold one.
const largeNamedMatches = 256

// largeNamedLiteral says a large settings text (lower, in lower case)
// gives a literal to one of largeNames, judged on the key and what
// follows it on its line (512 bytes at most) where such a name is given
// a value that may be one (it ends the key: : or = follows, a quote
// between; not a word that only ends as a password's, bypass; the
// value's first character one the expression takes): past settingsFileLimit
// no expression read them, and a skill's 20 KiB appsettings.json with
// "SMTPPass", a TOTP seed or recovery words crossed.
func largeNamedLiteral(data, lower []byte) bool {
	matched := 0
	for _, n := range largeNames {
		for _, name := range n.names {
			for pos := range occurrences(lower, name) {
				p := pos + len(name)
				if slices.ContainsFunc(passWords, func(w string) bool { return bytes.HasSuffix(lower[:p], []byte(w)) }) {
					continue
				}
				if p < len(data) && (data[p] == '"' || data[p] == '\'') {
					p++
				}
				p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
				if p >= len(data) || data[p] != ':' && data[p] != '=' {
					continue
				}
				v := p + 1 + tokenRun(data[p+1:], func(c byte) bool { return c == ' ' || c == '\t' || c == '"' || c == '\'' })
				if v >= len(data) || !n.first(data[v]) {
					continue
				}
				// The key from its first character, as the expressions
				// read one at a line's start.
				start := pos
				for start > max(0, pos-256) && (isTokenByte(data[start-1]) || data[start-1] == '.') {
					start--
				}
				if start > 0 && (data[start-1] == '"' || data[start-1] == '\'') {
					start--
				}
				// A key begins a line or follows { , ; (a base64's
				// …pw== is none).
				before := bytes.TrimRight(data[max(0, start-64):start], " \t-")
				if len(before) > 0 && strings.IndexByte("\n{,;", before[len(before)-1]) < 0 {
					continue
				}
				if matched++; matched > largeNamedMatches {
					return true
				}
				end := p + 1 + tokenRun(data[p+1:min(len(data), p+512)], func(c byte) bool { return c != '\n' })
				if n.holds(slices.Concat([]byte("\n"), data[start:end])) {
					return true
				}
			}
		}
	}
	return false
}

// largeDirectiveLiteral says a large settings text (lower, in lower
// case) gives a literal to a directive that names a credential
// (directiveLiteral), judged on the line of each name of one followed by
// a space: Redis's own redis.conf, edited in place, is over 100 KiB.
func largeDirectiveLiteral(data, lower []byte) bool {
	for _, word := range []string{"pass", "auth", "secret", "token", "pwd"} {
		for pos := range occurrences(lower, word) {
			at := pos + len(word)
			if at >= len(data) || data[at] != ' ' && data[at] != '\t' {
				continue
			}
			start := bytes.LastIndexByte(data[:pos], '\n') + 1
			end := bytes.IndexByte(data[at:], '\n')
			if end < 0 {
				end = len(data) - at
			}
			if directiveLiteral(data[start : at+end]) {
				return true
			}
		}
	}
	return false
}

func isSpace(c byte) bool { return strings.IndexByte(" \t\r\n\v\f", c) >= 0 }

// codeToken says the token prefix (or webhook's path) t at data[at:] is
// a credential: a word of its own followed by 8 or more token characters
// (a path's too).
func codeToken(data []byte, at int, t string) bool {
	url := strings.Contains(t, "/")
	if at > 0 && isWordByte(data[at-1]) && !url {
		return false
	}
	return tokenRun(data[at+len(t):], func(c byte) bool { return isTokenByte(c) || url && (c == '/' || c == ':') }) >= 8
}

// bearerInCode says data holds "Bearer" (as HTTP writes it, in lower or
// upper case), white space and 16 or more of a token's characters.
func bearerInCode(data []byte) bool {
	for _, word := range []string{"earer", "EARER"} {
		for pos := range occurrences(data, word) {
			at := pos
			b := at > 0 && (data[at-1] == 'b' || data[at-1] == 'B')
			at += len(word)
			if !b {
				continue
			}
			spaces := tokenRun(data[at:], func(c byte) bool { return c == ' ' || c == '\t' })
			if spaces > 0 && tokenRun(data[at+spaces:], func(c byte) bool { return isTokenByte(c) || strings.IndexByte("._~+/", c) >= 0 }) >= 16 {
				return true
			}
		}
	}
	return false
}

// urlPasswordInCode says data holds a URL whose user information has a
// password written in it (scheme://user:PASSWORD@host), not a template's
// place for one ({password}, $PASS, <password>, %s), or is a token
// given as the user (tokenUser).
func urlPasswordInCode(data []byte) bool {
	for pos := range occurrences(data, "://") {
		at := pos + len("://")
		end := at
		for end < len(data) && strings.IndexByte("/?#\"'`\\ \t\r\n", data[end]) < 0 {
			end++
		}
		authority := data[at:end]
		userinfo, _, found := cutLast(authority, '@')
		if !found {
			continue
		}
		user, password, ok := bytes.Cut(userinfo, []byte(":"))
		if ok && len(password) > 0 && !bytes.ContainsAny(password, "{}$<>%") {
			return true
		}
		// A token given as the user, with no password or an empty one
		// (https://TOKEN:@packagecloud.io), as tokenUser reads it.
		if len(password) == 0 && len(user) >= 8 && tokenRun(user, func(c byte) bool { return isTokenByte(c) || strings.IndexByte(".~+=", c) >= 0 }) == len(user) && !wordsOnly(string(user), "-_.~+=") {
			return true
		}
	}
	return false
}

// cutLast is bytes.Cut at the last sep.
func cutLast(b []byte, sep byte) (before, after []byte, found bool) {
	if i := bytes.LastIndexByte(b, sep); i >= 0 {
		return b[:i], b[i+1:], true
	}
	return b, nil, false
}

// tokenRun is how many of b's first bytes are of the kind in.
func tokenRun(b []byte, in func(byte) bool) int {
	n := 0
	for n < len(b) && in(b[n]) {
		n++
	}
	return n
}

func isTokenByte(c byte) bool { return isWordByte(c) || c == '-' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// occurrences yields where word occurs in data, first to last, those
// overlapping another included: each search begins a byte past the last.
func occurrences(data []byte, word string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for at := 0; ; at++ {
			i := bytes.Index(data[at:], []byte(word))
			if i < 0 || !yield(at+i) {
				return
			}
			at += i
		}
	}
}

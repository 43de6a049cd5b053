package credential

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"iter"
	"slices"
	"strings"
)

// The credentials a command, a script or source code gives a program
// other than by a name's assignment: a password given to an option
// (`sshpass -p PASSWORD`, `mysql -pPASSWORD`, `--password PASSWORD`),
// HTTP's basic credentials, and, in code, a string literal given to a
// name that says a password. Found by searching for literals, with no
// regular expression, so that InCode stays cheap on a large bundle.

// passwordOptions are the programs whose short option takes a password
// (mysql's and 7-Zip's only attached: `mysql -p db` asks for one, and db
// is a database), and smbclient's -U and lftp's -u, whose user%password
// and user,password hold one.
var passwordOptions = map[string]struct {
	option   string
	attached bool
}{
	"sshpass":      {"-p", false},
	"mysql":        {"-p", true},
	"mysqldump":    {"-p", true},
	"mysqladmin":   {"-p", true},
	"mysqlimport":  {"-p", true},
	"mysqlcheck":   {"-p", true},
	"mysqlshow":    {"-p", true},
	"mariadb":      {"-p", true},
	"mariadb-dump": {"-p", true},
	"7z":           {"-p", true},
	"7za":          {"-p", true},
	"7zz":          {"-p", true},
	"redis-cli":    {"-a", false},
	"ldapsearch":   {"-w", false},
	"ldapadd":      {"-w", false},
	"ldapmodify":   {"-w", false},
	"ldapdelete":   {"-w", false},
	"ldapwhoami":   {"-w", false},
	"ldappasswd":   {"-w", false},
	"zip":          {"-P", false},
	"unzip":        {"-P", false},
	"ipmitool":     {"-P", false},
	"mongo":        {"-p", false},
	"mongosh":      {"-p", false},
	"mongodump":    {"-p", false},
	"mongorestore": {"-p", false},
	"mongoexport":  {"-p", false},
	"mongoimport":  {"-p", false},
	"login":        {"-p", false}, // docker, podman, helm registry, oras login
	"smbclient":    {"-U", false},
	"lftp":         {"-u", false},
}

// passwordOptionNames are how the long options end whose value is a
// password, a secret, a token or an API key (--password, --db-pass,
// --passphrase, --client-secret, --api-key, curl's --oauth2-bearer), in
// lower case.
var passwordOptionNames = []string{"password", "passwd", "passphrase", "pass", "pw", "pwd", "secret", "token", "bearer", "apikey", "api-key", "api_key", "account-key"}

// keystoreOptions are the options Java's keytool and jarsigner take a
// keystore's or a key's password with, after a single dash (-storepass
// X; -storepass:env VAR and -storepass:file F name where it is).
var keystoreOptions = []string{"storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass", "destkeypass"}

// inOptionsOrCode says text gives a password to a program's option, holds
// HTTP's basic credentials, or, as code, gives a password's string
// literal to a name that says one.
func inOptionsOrCode(data []byte) bool {
	lower := lowerASCII(data)
	return longOptionPassword(data, lower) || keystorePassword(data, lower) || callPassword(data, lower) || shortOptionPassword(data) || opensslPassword(data) || basicInCode(data) || assignedInCode(data, lower) || shellAssignedInString(data, lower) || positionalPassword(data, lower)
}

// lowerASCII is a copy of data with A to Z in lower case, every other
// byte as it is, eight bytes at a time: a byte's loop over a bundle of
// 16 MiB cost InCode as much as all its searches.
func lowerASCII(data []byte) []byte {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	lower := make([]byte, len(data))
	i := 0
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		// The high bit of each byte of A to Z, where the byte's own is
		// clear: seven bits plus 0x80-'A' carry into it from 'A' on,
		// plus 0x80-'Z'-1 from past 'Z', and no carry crosses a byte.
		low := x &^ highs
		upper := (low + (0x80-'A')*ones) &^ (low + (0x80-'Z'-1)*ones) &^ x & highs
		binary.LittleEndian.PutUint64(lower[i:], x|upper>>2)
	}
	for ; i < len(data); i++ {
		c := data[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return lower
}

// longOptionPassword says text gives a literal to a long option whose
// name ends in what says a password (passwordOptionNames), with `=`, a
// space, or as the next of a list's quoted words ("--password", "x").
func longOptionPassword(data, lower []byte) bool {
	for start := range occurrences(data, "--") {
		at := start + 2
		if start > 0 && !isSpace(data[start-1]) && strings.IndexByte("\"'[(,=", data[start-1]) < 0 {
			continue
		}
		n := tokenRun(data[at:], isTokenByte)
		name := string(lower[at : at+n])
		at += n
		if !slices.ContainsFunc(passwordOptionNames, func(s string) bool { return strings.HasSuffix(name, s) }) {
			continue
		}
		if v, spaced, ok := optionValue(data, at); ok && literalPassword(v, name) && !(spaced && lowerWord(v)) {
			return true
		}
	}
	return false
}

// keystorePassword says text gives a literal to keytool's or
// jarsigner's password option (keystoreOptions): a build's
// jarsigner -storepass … -keypass … crossed, its options no long
// option's.
func keystorePassword(data, lower []byte) bool {
	for _, name := range keystoreOptions {
		for start := range occurrences(lower, "-"+name) {
			at := start + 1 + len(name)
			if start > 0 && !isSpace(data[start-1]) && strings.IndexByte("\"'[(,", data[start-1]) < 0 || at < len(data) && isTokenByte(data[at]) {
				continue
			}
			if v, _, ok := optionValue(data, at); ok && literalPassword(v, name) {
				return true
			}
		}
	}
	return false
}

// optionValue is the value given to an option that ends at data[at]:
// after `=`, after spaces (spaced), or the next quoted word of a list
// ("--password", "x" or '-p', 'x'), its quotes taken off.
func optionValue(data []byte, at int) (v []byte, spaced, ok bool) {
	p := at
	switch {
	case p < len(data) && data[p] == '=':
		p++
	case p < len(data) && (data[p] == '"' || data[p] == '\''):
		p++
		p += tokenRun(data[p:], func(c byte) bool { return c == ',' || c == ' ' || c == '\t' })
		if p == at+1 || p >= len(data) || data[p] != '"' && data[p] != '\'' {
			return nil, false, false
		}
	default:
		n := tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
		if n == 0 {
			return nil, false, false
		}
		p += n
		spaced = true
	}
	quote := byte(0)
	if p < len(data) && (data[p] == '"' || data[p] == '\'') {
		quote = data[p]
		p++
	}
	n := tokenRun(data[p:], func(c byte) bool { return !isSpace(c) && c != quote && strings.IndexByte("\"';&|)`", c) < 0 })
	return data[p : p+n], spaced, true
}

// lowerWord says v is a word of lower-case letters alone, which after a
// long option and a space is prose's (the --password options), not a
// password.
func lowerWord(v []byte) bool {
	return !slices.ContainsFunc(v, func(c byte) bool { return c < 'a' || c > 'z' })
}

// literalPassword says v, given to what name says is a password, is one
// written as a literal: not a variable's or a command's value, a
// switch, another option, a number, a placeholder (<password>,
// {password}, %s) nor the option's own name as its help writes it
// (--password PASSWORD); four characters at least, so that a word of a
// usage line (use --token to …) is none.
func literalPassword(v []byte, name string) bool {
	if len(v) < 4 || strings.IndexByte("$-<({[%*", v[0]) >= 0 || bytes.ContainsAny(v, "{}$<>%") {
		return false
	}
	s := strings.ToLower(string(v))
	if slices.Contains(notLiteral, s) || slices.Contains(notPassword, s) || strings.Trim(s, "0123456789.") == "" || strings.Trim(s, s[:1]) == "" || strings.Contains(s, "**") {
		return false
	}
	return !slices.ContainsFunc(slices.Concat(passwordOptionNames, []string{name}), func(n string) bool { return namesItself(s, n) })
}

// notPassword are values code gives a password's name that are none: a
// redaction's mark, a field's type.
var notPassword = []string{"redacted", "hidden", "masked", "text", "string"}

// namesItself says the value s names what name says it holds, as a
// label or a type does: the name itself (--password PASSWORD), or a word
// of letters and _ alone that holds it and three more letters
// (PrivateKey: "_RSAPrivateKey", SECRET_DO_NOT_PASS_THIS).
func namesItself(s, name string) bool {
	s, name = labelSquash.Replace(s), labelSquash.Replace(name)
	if s == name {
		return true
	}
	letters := 0
	for _, c := range []byte(s) {
		if c < 'a' || c > 'z' {
			// A digit makes it a password's (hunter2pw), not a label's.
			return false
		}
		letters++
	}
	return strings.Contains(s, name) && letters >= len(name)+3
}

// labelSquash takes out of a word what a label's may hold between its
// parts: built once, not at each word a judge asks about.
var labelSquash = strings.NewReplacer("-", "", "_", "", ".", "")

// shortOptionPassword says a command gives a literal password to a
// program's short option that takes one (passwordOptions), in the same
// command (from its line's start, or a ; & | that begins it, to its
// end), as shell words or as a list's quoted words (["sshpass", "-p",
// "x"]). It looks for the options, rarer than the programs' names, and
// reads back for the program, and on for the option's value, within
// optionReach: one pass over a large bundle. (Read on to the command's
// end at each option, for each program's name before it, a line of
// "sshpass -p " said again and again cost a cube of its length: 1 KiB
// held a launch 16 s, a skill's file of 1 MiB for ever.)
func shortOptionPassword(data []byte) bool {
	for pos := range occurrences(data, "-") {
		if pos == 0 || pos+1 >= len(data) || strings.IndexByte("pawPUu", data[pos+1]) < 0 || !isSpace(data[pos-1]) && data[pos-1] != '"' && data[pos-1] != '\'' {
			continue
		}
		from := pos - min(pos, optionReach)
		if j := bytes.LastIndexAny(data[from:pos], "\n;&|"); j >= 0 {
			from += j + 1
		}
		end := min(len(data), pos+optionReach)
		if j := bytes.IndexAny(data[pos:end], "\n;&|"); j >= 0 {
			end = pos + j
		}
		// Each way of taking the option (its value attached or the next
		// word) is asked once, however many programs' names come before.
		var asked [2]bool
		for w := range words(data[from:pos], isCommandBreak, "\"'") {
			// Code names the program as a call's first argument too:
			// exec.Command("sshpass", …), spawn('redis-cli', [...]).
			w = w[max(bytes.LastIndexByte(w, '/'), bytes.LastIndexByte(w, '='), bytes.LastIndexByte(w, '('))+1:]
			opt, ok := passwordOptions[string(bytes.TrimLeft(w, "!($`\"'"))]
			if !ok || opt.option != string(data[pos:pos+2]) {
				continue
			}
			way := &asked[0]
			if opt.attached {
				way = &asked[1]
			}
			if *way {
				continue
			}
			*way = true
			if commandGivesPassword(data[pos:end], opt.option, opt.attached) {
				return true
			}
		}
	}
	return false
}

// optionReach bounds how far shortOptionPassword reads back from an
// option for the program's name, and on for its value.
const optionReach = 512

// commandWords are a command's words, split at spaces and a list's
// commas and brackets, their quotes taken off.
func commandWords(args []byte) [][]byte {
	return slices.Collect(words(args, isCommandBreak, "\"'"))
}

// isCommandBreak says c parts a command's words: a space or a tab, a
// list's comma or bracket.
func isCommandBreak(c byte) bool { return c == ' ' || c == '\t' || c == ',' || c == '[' || c == ']' }

// words are b's words, parted where split says, each with cut's bytes
// taken off its ends, in b: a judge that reads a few of them at each of
// many places makes no list of them all.
func words(b []byte, split func(byte) bool, cut string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for i := 0; i < len(b); {
			for i < len(b) && split(b[i]) {
				i++
			}
			j := i
			for j < len(b) && !split(b[j]) {
				j++
			}
			if j > i && !yield(bytes.Trim(b[i:j], cut)) {
				return
			}
			i = j
		}
	}
}

// commandGivesPassword says the words of args, which begin with option
// (split at spaces and a list's commas, their quotes taken off), give it
// a literal: attached (-pPASSWORD) where attached, else as the next word
// (smbclient's -U user%password, its password after the %). The
// command's later options are asked from where each stands.
func commandGivesPassword(args []byte, option string, attached bool) bool {
	split, cut := isCommandBreak, "\"'"
	if option == "-u" {
		// lftp's user,password is one word, its comma no list's (but
		// for the list's own, after its closing quote).
		split, cut = isSpace, "\"',[]"
	}
	var first [2][]byte
	n := 0
	for w := range words(args, split, cut) {
		first[n] = w
		if n++; n == len(first) {
			break
		}
	}
	switch w := first[0]; {
	case n == 0:
	case attached && len(w) > len(option) && bytes.HasPrefix(w, []byte(option)):
		return literalPassword(bytes.Trim(w[len(option):], "\"'"), "password")
	case !attached && string(w) == option && n > 1:
		v := first[1]
		switch option {
		case "-U":
			_, v, _ = bytes.Cut(v, []byte("%"))
		case "-u":
			_, v, _ = bytes.Cut(v, []byte(","))
		}
		return literalPassword(v, "password")
	}
	return false
}

// opensslPassword says text gives OpenSSL a password as a literal
// (-passin pass:PASSWORD, -pass pass:…), not a variable's (env:NAME) or
// a file's.
func opensslPassword(data []byte) bool {
	for start := range occurrences(data, "pass:") {
		at := start + len("pass:")
		if start == 0 || !isSpace(data[start-1]) && strings.IndexByte("\"'=", data[start-1]) < 0 {
			continue
		}
		n := tokenRun(data[at:], func(c byte) bool { return !isSpace(c) && strings.IndexByte("\"';&|)`", c) < 0 })
		if literalPassword(data[at:at+n], "pass") {
			return true
		}
	}
	return false
}

// basicInCode says text holds HTTP's basic credentials: "Basic" (in
// lower or upper case), a space, and base64 that reads as user:password
// (so that prose's "Basic authentication" is none).
func basicInCode(data []byte) bool {
	for _, word := range []string{"asic ", "ASIC "} {
		for pos := range occurrences(data, word) {
			at := pos
			b := at > 0 && (data[at-1] == 'b' || data[at-1] == 'B')
			at += len(word)
			if !b {
				continue
			}
			n := tokenRun(data[at:], func(c byte) bool { return isWordByte(c) && c != '_' || c == '+' || c == '/' })
			if n < 8 {
				continue
			}
			run := data[at : at+n+min(2, tokenRun(data[at+n:], func(c byte) bool { return c == '=' }))]
			decoded, err := base64.StdEncoding.DecodeString(string(run))
			if err != nil {
				decoded, err = base64.RawStdEncoding.DecodeString(string(data[at : at+n]))
			}
			if user, password, ok := bytes.Cut(decoded, []byte(":")); err == nil && ok && len(user) > 0 && len(password) > 0 && printableASCII(decoded) {
				return true
			}
		}
	}
	return false
}

func printableASCII(b []byte) bool {
	return !slices.ContainsFunc(b, func(c byte) bool { return c < 0x20 || c >= 0x7f })
}

// codeSecretNames are how the names end that say a password, a secret
// or a key in code (DB_PASSWORD, apiKey, client_secret), in lower case,
// each given a literal of any length; a token's name is given one of 16
// or more token characters only (codeTokenName), as a tokenizer's
// pad_token = "[PAD]" is none.
var codeSecretNames = []string{"password", "passwd", "passphrase", "secret", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "secretkey", "secret_key", "secret-key"}

const codeTokenName = "token"

// codeKeyName ends any other name of a key (openai_key, g:anthropic_key),
// given a literal keyLike says is one, not a snake_case word's
// (cache_key = "user_profile_v2_key").
const codeKeyName = "key"

// assignedInCode says code gives a string literal to a name that says a
// password, a secret or a key (DB_PASSWORD = "hunter2", apiKey: 'x',
// password: "x", connect(password="x"), "x-api-key": "x", a comparison
// with one too), as a word ending in it, not a part of a longer name
// (password_hash), by = : => := == or ===, the literal quoted: not a
// call, a variable (password = os.environ[...]), prose with a space
// (password: "Enter your password"), a placeholder, nothing, nor the
// name itself (PASSWORD = "password", a form field's).
func assignedInCode(data, lower []byte) bool {
	for _, anchor := range codeNameAnchors {
		for pos := range occurrences(lower, anchor) {
			at := pos + len(anchor)
			if at < len(data) && isTokenByte(data[at]) {
				continue
			}
			from := at - tokenRun(reversed(lower[max(0, at-64):at]), isTokenByte)
			whole := string(lower[from:at])
			name := codeTokenName
			if j := slices.IndexFunc(codeSecretNames, func(n string) bool { return strings.HasSuffix(whole, n) }); j >= 0 {
				name = codeSecretNames[j]
			} else if strings.HasSuffix(whole, codeKeyName) {
				name = codeKeyName
			} else if !strings.HasSuffix(whole, codeTokenName) {
				continue
			}
			p := at
			if p < len(data) && (data[p] == '"' || data[p] == '\'') {
				p++
			}
			p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
			ops := tokenRun(data[p:], func(c byte) bool { return c == '=' || c == ':' || c == '>' })
			if ops == 0 || ops > 3 {
				continue
			}
			p += ops
			p += tokenRun(data[p:], func(c byte) bool { return c == ' ' || c == '\t' })
			if p >= len(data) || strings.IndexByte("\"'`", data[p]) < 0 {
				continue
			}
			quote := data[p]
			p++
			n := tokenRun(data[p:], func(c byte) bool { return c != quote && c != '\n' && c != '\\' })
			if p+n >= len(data) || data[p+n] != quote {
				continue
			}
			v := data[p : p+n]
			if bytes.ContainsAny(v, " \t") || name == codeTokenName && (n < 16 || tokenRun(v, func(c byte) bool { return isTokenByte(c) || c == '.' }) < n) {
				continue
			}
			if name == codeKeyName && !keyLike(v) {
				continue
			}
			if literalPassword(v, whole) && literalPassword(v, name) {
				return true
			}
		}
	}
	return false
}

// shellAssignedInString says code hands a shell a command, as a string,
// that gives a literal to a variable whose name says a credential, as
// shellAssignment reads a command line (os.system("PGPASSWORD=x psql"),
// execSync(`MYSQL_PWD=x mysql`)): the name begins a shell word inside a
// string (a quote opened on its line before it), is followed by = and
// the value, a word of its own that a space or the string's end ends.
// Code's own keyword arguments (connect(password=pw)), outside any
// string, a placeholder or a variable ({pw}, %s, $PW) are none. One pass
// over the places of =, each read a few bytes back: a bundle of 16 MiB
// holds a million of them.
func shellAssignedInString(data, lower []byte) bool {
	for eq := range occurrences(data, "=") {
		if eq < 3 {
			continue
		}
		// The last three letters of every name shellCredentialName
		// takes, before any other look.
		switch string(lower[eq-3 : eq]) {
		case "ass", "swd", "ord", "ret", "ken", "key", "pwd", "uth":
		default:
			continue
		}
		from := eq
		for from > max(0, eq-64) && isTokenByte(data[from-1]) {
			from--
		}
		if from == 0 || strings.IndexByte("\"'` \t;&|", data[from-1]) < 0 {
			continue
		}
		name := string(lower[from:eq])
		if !shellCredentialName(name) {
			continue
		}
		p := eq + 1
		if p < len(data) && (data[p] == '"' || data[p] == '\'') {
			p++
		}
		n := tokenRun(data[p:], func(c byte) bool { return c > ' ' && c < 0x7f && strings.IndexByte("\"'`$;&|()<>\\{}%,", c) < 0 })
		if n == 0 || p+n >= len(data) || strings.IndexByte("\"'` \t;&|", data[p+n]) < 0 {
			continue
		}
		if literalPassword(data[p:p+n], name) && inStringOnLine(data, from) {
			return true
		}
	}
	return false
}

// stringLookBack bounds how far back inStringOnLine reads a line.
const stringLookBack = 256

// shellCredentialName says a shell variable's name says a credential, as
// shellAssignment's names do: a password, a secret, a token, an API,
// secret, access or private key, a name ending in _pass, or a program's
// own variable for one.
func shellCredentialName(name string) bool {
	for _, end := range []string{"password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "_pass", "-pass"} {
		if strings.HasSuffix(name, end) {
			return true
		}
	}
	for _, kind := range []string{"secret", "access", "private"} {
		for _, sep := range []string{"", "_", "-"} {
			if strings.HasSuffix(name, kind+sep+"key") {
				return true
			}
		}
	}
	return slices.Contains([]string{"pass", "sshpass", "mysql_pwd", "rediscli_auth"}, name)
}

// inStringOnLine says the byte at pos lies inside a string opened on its
// line: an odd count of one kind of quote before it there, a quote
// escaped with a backslash not counted; of a line longer than
// stringLookBack (a minified bundle's), its last stringLookBack bytes.
func inStringOnLine(data []byte, pos int) bool {
	base := max(0, pos-stringLookBack)
	var counts [3]int
	for j := base + bytes.LastIndexByte(data[base:pos], '\n') + 1; j < pos; j++ {
		if q := strings.IndexByte("\"'`", data[j]); q >= 0 && (j == 0 || data[j-1] != '\\') {
			counts[q]++
		}
	}
	return counts[0]%2 == 1 || counts[1]%2 == 1 || counts[2]%2 == 1
}

// keyLike says v, given to a name of a key, is one: 16 or more token
// characters with a digit and a letter, not a snake_case word's.
func keyLike(v []byte) bool {
	return len(v) >= 16 && tokenRun(v, isTokenByte) == len(v) && bytes.ContainsAny(v, "0123456789") &&
		bytes.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) && bytes.Count(v, []byte("_")) < 2
}

// codeNameAnchors are what the names codeSecretNames and codeTokenName
// end in, searched for in their place: a k or a w is rarer in code
// than a name's first letter, and a search costs a candidate for each
// place its first byte is.
var codeNameAnchors = []string{"key", "ken", "wd", "word", "phrase", "cret"}

// reversed is b's bytes in reverse order, a copy.
func reversed(b []byte) []byte {
	r := slices.Clone(b)
	slices.Reverse(r)
	return r
}

// passwordCalls are the calls code gives a user and then a password, as
// two arguments: an HTTP client's basic credentials (requests' and
// httpx's auth=(user, password), HTTPBasicAuth, aiohttp's BasicAuth) and
// a mail or file server's login (smtplib's, imaplib's, poplib's and
// ftplib's .login(user, password)), in lower case.
var passwordCalls = []string{"auth=(", "auth = (", "basicauth(", "digestauth(", ".login("}

// callPassword says code gives one of passwordCalls a literal as the
// password, its second argument: a skill's requests.get(url,
// auth=("ci", "…")) and smtp.login("ops@…", "…") crossed.
func callPassword(data, lower []byte) bool {
	for _, call := range passwordCalls {
		for pos := range occurrences(lower, call) {
			p := pos + len(call)
			// Both arguments are read within optionReach: a line of
			// .login( said again and again, read to its end from each,
			// cost the square of its length (a skill's file of 1 MiB:
			// minutes).
			reach := data[:min(len(data), p+optionReach)]
			// The user: any argument, up to the comma before the password.
			comma := bytes.IndexAny(reach[p:], ",)\n")
			if comma < 0 || reach[p+comma] != ',' {
				continue
			}
			p += comma + 1
			p += tokenRun(reach[p:], func(c byte) bool { return c == ' ' || c == '\t' })
			if p >= len(reach) || reach[p] != '"' && reach[p] != '\'' {
				continue
			}
			quote := reach[p]
			end := bytes.IndexByte(reach[p+1:], quote)
			if end < 0 {
				continue
			}
			if v := reach[p+1 : p+1+end]; bytes.IndexByte(v, '\n') < 0 && literalPassword(v, "password") {
				return true
			}
		}
	}
	return false
}

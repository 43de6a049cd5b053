package credential

import (
	"strings"
	"testing"
)

// TestInSettings: a settings file holds a credential where a key that
// names one is given a literal, however short, or a .netrc's password is
// written; a number, a switch, a variable's reference, a placeholder or
// nothing is none, nor a key that only mentions one.
func TestInSettings(t *testing.T) {
	for text, want := range map[string]bool{
		"password: hunter2\n":                              true,
		"server: x\n  db_password: 'hunter2'\n":            true,
		"db.password=hunter2\n":                            true,
		`{"url": "https://api", "apiKey": "abc123"}`:       true,
		"[db]\npassword = \"hunter2\"\n":                   true,
		"client_secret: s3cr3t\n":                          true,
		"machine api.corp login ci password hunter2\n":     true,
		"machine api.corp\n  password hunter2\n":           true,
		"token: ghp_abcdefghijklmnopqrstuvwxyz0123\n":      true,
		"max_tokens: 4096\nuse_token: true\n":              false,
		"password: ${DEPLOY_PASSWORD}\ntoken: $TOKEN\n":    false,
		"password: <your password>\napi_key: \"\"\n":       false,
		`{"token": null, "secret": false}`:                 false,
		"token_file: token.txt\nsecret_name: x\n":          false,
		"password_min_length: 12\n":                        false,
		"# Set password in the vault\n":                    false,
		"keywords: [token, secret]\n":                      false,
		"export DEPLOY_TOKEN=hunter2\n":                    true,
		"export DEPLOY_TOKEN=$VAULT_TOKEN\n":               false,
		"<server><password>hunter2</password></server>":    true,
		"<token>\n  <value>x</value>\n</token>":            false,
		"<maxTokens>4096</maxTokens><password></password>": false,
		// A word too short to look for inside a name, as the whole name,
		// after a separator or capitalised.
		`{"url": "https://corp.atlassian.net", "email": "a@example.com", "key": "ATATT3xFfGF0abc"}`: true,
		"db.pass=hunter2\n":                true,
		"dbPwd: x1\n":                      true,
		"passphrase = \"correct horse\"\n": true,
		"[api]\nauth = Zk3wQp9L\n":         true,
		`{"session_cookie": "s%3Aabc"}`:    true,
		`{"monkey": "banana", "spinner": "dots", "keyboard": "us", "key_file": "~/.k"}`: false,
		`{"keys": ["a"], "pin": 4711, "auth": "none", "key": ""}`:                       false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestInCommandHints: the hints that spare the expressions leave out no
// text they match: a token, a webhook, a user's password and a URL's, in
// upper case, and a name spelt with the Kelvin sign or a long s, which a
// case-insensitive expression takes for a k or an s.
func TestInCommandHints(t *testing.T) {
	for _, text := range []string{
		"curl -H 'Authorization: BEARER xoxb-1234567890-abcdef' https://slack.com/api/x",
		"export GH=GHP_abcdefghijklmnopqrstuvwxyz0123",
		"SLACK_TOKEN=T0123456789abcdefXYZ ./notify",
		"SLACK_TO\u212aEN=T0123456789abcdefXYZ ./notify",
		"DEPLOY_\u017fECRET=T0123456789abcdefXYZ ./deploy",
		"curl -d x HTTPS://HOOKS.SLACK.COM/services/T0AAAAAAA/B0BBBBBBB/abcdefghijkl",
		"curl -u ci:hunter2hunter2 https://x",
		"curl --user\n ci:hunter2hunter2 https://x",
		"curl https://user:hunter2@example.com/hook",
		"if [ -x /usr/bin/id ]; then id -u; fi",
		"PS1='${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ '",
	} {
		data := []byte(text)
		want := commandCredential().Match(data) || webhookURL().Match(data) || userPassword().Match(data) || urlCredential().Match(data) || assignedLiteral(data)
		if got := InCommand(data); got != want {
			t.Errorf("InCommand(%q) = %v, the expressions say %v", text, got, want)
		}
	}
	for _, text := range []string{"SLACK_TO\u212aEN=T0123456789abcdefXYZ", "DEPLOY_\u017fECRET=T0123456789abcdefXYZ"} {
		if !InCommand([]byte(text)) {
			t.Errorf("InCommand(%q) = false, want true", text)
		}
	}
}

// TestInDocument: prose holds a credential where it shows a known
// service's token, a bearer token, a webhook's URL or a URL with a
// password; not where it names auth, a mail address or a token's name.
func TestInDocument(t *testing.T) {
	for text, want := range map[string]bool{
		"Post to https://hooks.slack.com/services/T0000/B0000/abcdefghijkl\n":    true,
		"Run `curl -H 'Authorization: Bearer abcdefghijklmnopqrstuv' https://x`": true,
		"Clone https://oauth2:glpat-abcdefghijkl@gitlab.corp/x.git\n":            true,
		"Use ghp_abcdefghijklmnopqrstuvwxyz0123456789.\n":                        true,
		"Auth: src/middleware/authentication.ts\n":                               false,
		"Questions to alice@example.com, clone git@github.com:org/repo.\n":       false,
		"password: set it in the vault; token_limit: 4096\n":                     false,
		"Pass the bearer token in $TOKEN.\n":                                     false,
		"Questions: [write to us](mailto:team@example.com)\n":                    false,
		"Use the proxy corp:hunter2hunter2@proxy.corp:3128\n":                    true,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkInSettings judges a package.json of 2 KiB, whose author's
// address and keywords are hints of a credential on their own lines.
func BenchmarkInSettings(b *testing.B) {
	var pkg strings.Builder
	pkg.WriteString("{\n  \"name\": \"@scope/plugin\",\n  \"author\": \"A <a@example.com>\",\n  \"keywords\": [\"token\"],\n")
	for pkg.Len() < 2048 {
		pkg.WriteString("  \"dependency-with-a-long-name\": \"^1.2.3\",\n")
	}
	pkg.WriteString("  \"version\": \"1.0.0\"\n}\n")
	data := []byte(pkg.String())
	for b.Loop() {
		if InSettings(data) {
			b.Fatal("a package.json holds a credential")
		}
	}
}

// TestInCode: code holds a credential where it writes a known service's
// token, a webhook's URL, a bearer token or a URL with a password; not
// where it names one, builds one from variables or shows a template's.
func TestInCode(t *testing.T) {
	for text, want := range map[string]bool{
		`TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123"`:                         true,
		`fetch("https://hooks.slack.com/services/T0/B0/abcdefghijkl")`:         true,
		`headers={"Authorization": "Bearer abcdefghijklmnopqrstuv"}`:           true,
		`DB = "postgres://app:hunter2@db.corp/app"`:                            true,
		`curl https://ci:s3cret@jenkins.corp/job`:                              true,
		`token = tokenizer.encode_batch_plus(text)`:                            false,
		`secret_key = os.environ["SECRET_KEY"]`:                                false,
		`prefix = "ghp_"; x = "xghp_abcdefghijklmnop"`:                         false,
		`url = f"postgresql://{user}:{password}@{host}/db"`:                    false,
		`"Bearer " + token; Bearer ${TOKEN}`:                                   false,
		`git clone git@github.com:org/repo.git https://alice@host.corp/x`:      false,
		`DSN = "mysql://root:$MYSQL_PASSWORD@db/app" + "://" + user + "@" + h`: false,
		"curl -fsS -u ci:hunter2R24 https://jenkins.corp/":                     true,
		`curl --user="ci:s3cret99" https://x; http -a me:passw0rd x`:           true,
		"wget --auth admin:longpass https://x":                                 true,
		`curl -u "ci:$CI_PASSWORD" x; curl --user "$U" x; sort -u a:b`:         false,
		`a-u b:abcdefgh; x=-u; tar -a -cf x.tgz; echo -u`:                      false,
	} {
		if got := InCode([]byte(text)); got != want {
			t.Errorf("InCode(%q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkInCode judges a minified bundle's shape, one line of 90 KiB
// with addresses and hooks in it, as a skill's script may be.
func BenchmarkInCode(b *testing.B) {
	data := []byte(strings.Repeat(`function(e,t){return e.valHooks&&t.propHooks?"mail@example.com":e.bearer_of(t)}`, 1100))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if InCode(data) {
			b.Fatal("a credential found in code holding none")
		}
	}
}

func TestInLargeSettings(t *testing.T) {
	filler := strings.Repeat("# a line of what the team wrote down, at length\n", 400)
	for text, want := range map[string]bool{
		"database:\n  host: db\n  password: hunter2\n":                      true,
		`{"a":[1,2],"db":{"api_key":"abc123"}}`:                             true,
		"<server><password>hunter2</password></server>":                     true,
		"export DEPLOY_TOKEN=abc\n":                                         true,
		"machine ci.corp login me\n  password hunter2\n":                    true,
		"curl -u ci:hunter2R24 https://x":                                   true,
		"token_budget: 4096\npassword: ${DB_PASSWORD}\nuse_token: true\n":   false,
		"the password you chose is kept by the vault\nkey: value\n":         false,
		`{"tokenizer": "bpe", "secret": {"$ref": "#/defs/s"}, "key": "k1"}`: false,
		strings.Repeat(`"token": 1, `, 70):                                  true,
	} {
		if got := InLargeSettings([]byte(filler + text + filler)); got != want {
			t.Errorf("InLargeSettings(%.60q) = %v, want %v", text, got, want)
		}
	}
}

// BenchmarkInLargeSettings judges 200 KiB of settings with a few keys
// that name a credential given no literal, as a skill's data file may be.
func BenchmarkInLargeSettings(b *testing.B) {
	data := []byte(strings.Repeat("  - name: stage\n    run: make all\n    env: {LEVEL: 3}\n", 4000) + "token_budget: 4096\npassword: ${DB_PASSWORD}\n")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if InLargeSettings(data) {
			b.Fatal("a credential found in settings holding none")
		}
	}
}

// TestInScript: a script is judged a line at a time (with the next), as
// InCommand judges it whole.
func TestInScript(t *testing.T) {
	for text, want := range map[string]bool{
		"#!/bin/sh\nset -eu\nexport GITHUB_TOKEN=ghp_abcdefghijklmnop\n":               true,
		"#!/bin/sh\n# ünïcödé\ncurl -u ci:hunter2R24 https://x\n":                      true,
		"#!/bin/sh\ncurl -H 'Authorization: Bearer\n  abcdefghijklmnopqrstuvwxyz' x\n": true,
		"#!/bin/sh\n# to\u212aen\ncurl -H \"Authorization: Bearer $TOKEN\" x\n":        false,
		"#!/bin/sh\nexport \u017fecret_key=abcdefghijklmnopqrstuvwxyz\n":               true,
		"#!/usr/bin/env python3\n# ünïcödé\nimport os\nprint(os.environ['API'])\n":     false,
	} {
		if got := InScript([]byte(text)); got != want {
			t.Errorf("InScript(%q) = %v, want %v", text, got, want)
		}
		if got := InCommand([]byte(text)); got != want {
			t.Errorf("InCommand(%q) = %v, want %v: InScript is to say as it says", text, got, want)
		}
	}
}

// TestInCommandAssigned: a literal assigned to a name that says a
// credential is one however short; a variable, a switch, a number, a
// call's argument or result are not.
func TestInCommandAssigned(t *testing.T) {
	for text, want := range map[string]bool{
		"PGPASSWORD=hunter2 psql -c 'select 1'":                     true,
		"cd db && MYSQL_PASSWORD='s3cr' mysql":                      true,
		"!DEPLOY_TOKEN=abc123 ./deploy.sh":                          true,
		"export DB_PASSWORD=hunter2":                                true,
		"tool --api-key=k3y --verbose":                              true,
		"PGPASSWORD=$DB_PASS psql; TOKEN=\"$(cat f)\" x":            false,
		"MAX_TOKENS=4096 GIT_ASKPASS=true claude":                   false,
		"client = OpenAI(api_key=key); f(x, password=pw)":           false,
		"password=getpass.getpass(); n = len(token)":                false,
		"TOKEN_FILE=~/.token ./run; --max-tokens=10":                false,
		"secret= ; token=\"\"":                                      false,
		"DB_PASS=hunter2 ./migrate; export SSHPASS=hunter2":         true,
		"MYSQL_PWD=hunter2 mysql; REDISCLI_AUTH=hunter2 redis-cli":  true,
		"export AWS_SECRET_ACCESS_KEY=hunter2":                      true,
		"SSH_ASKPASS=/usr/bin/ksshaskpass; OLDPWD=/tmp; --bypass=x": false,
	} {
		if got := InCommand([]byte(text)); got != want {
			t.Errorf("InCommand(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestPasswordsGivenToOptions: a command, a script or code holds a
// credential where it gives a literal to a program's option that takes a
// password, holds HTTP's basic credentials, or, as code, gives a string
// literal to a name that says a password, a secret or a key; a variable,
// a prompt, standard input, a placeholder, a label, a type's name, a
// tokenizer's token or prose is none.
func TestPasswordsGivenToOptions(t *testing.T) {
	for text, want := range map[string]bool{
		"sshpass -p hunter2 ssh deploy@db":                               true,
		"!mysql -u root -phunter2 app":                                   true,
		"mysqldump -p'hunter2' app":                                      true,
		"redis-cli -h cache -a hunter2 FLUSHALL":                         true,
		"docker login -u ci --password hunter2 registry":                 true,
		"docker login -u ci -p hunter2 registry":                         true,
		"psql --password=hunter2":                                        true,
		"gpg --batch --passphrase hunter2 -d x.gpg":                      true,
		"ldapsearch -x -D cn=admin -w hunter2 -b dc=corp":                true,
		"smbclient //fs/share -U ci%hunter2":                             true,
		"openssl enc -d -aes256 -pass pass:hunter2 -in a":                true,
		"unzip -P hunter2 backup.zip":                                    true,
		"lftp -u ci,hunter2 ftp.corp":                                    true,
		"curl --oauth2-bearer hunter2 https://x":                         true,
		"ssh -o 'ProxyCommand=sshpass -p hunter2 ssh jump' host":         true,
		"lftp -u ci ftp.corp":                                            false,
		`subprocess.run(["sshpass", "-p", "hunter2", "ssh", "db"])`:      true,
		`run(["tool", "--api-key", "hunter2"])`:                          true,
		`fetch(u, {headers: {Authorization: "Basic Y2k6aHVudGVyMg=="}})`: true,
		`DB_PASSWORD = "hunter2"`:                                        true,
		`const apiKey = 'hunter2';`:                                      true,
		`Client.new(user: "ci", password: "hunter2")`:                    true,
		`psycopg.connect(host="db", password="hunter2")`:                 true,
		`{"client_secret": "hunter2"}`:                                   true,
		`auth_token = "abcdefghijklmnop0123"`:                            true,
		"mysql -u root -p app":                                           false,
		`sshpass -p "$DEPLOY_PW" ssh db`:                                 false,
		`echo "$PW" | docker login -u ci --password-stdin registry`:      false,
		"openssl enc -d -pass env:KEY -in a":                             false,
		"tool --token TOKEN --password <password>":                       false,
		`echo "use --token to log in, or the --password options"`:        false,
		"mkdir -p build && cp -a src build":                              false,
		"gzip -p 4 x":                                                    false,
		"Basic authentication is sent as Basic base64(user:pass)":        false,
		`password = os.environ["DB_PASSWORD"]`:                           false,
		`PASSWORD = "password"`:                                          false,
		`pad_token = "[PAD]"; eos_token = "</s>"`:                        false,
		`token = tok.encode(text)`:                                       false,
		`secret = ""; password: "Enter your password"`:                   false,
		`def sign(private_key: "_RSAPrivateKey", data: bytes):`:          false,
		`url.password = "REDACTED"; mask = {password: "********"}`:       false,
		`if password == "": pass`:                                        false,
	} {
		if got := InCode([]byte(text)); got != want {
			t.Errorf("InCode(%q) = %v, want %v", text, got, want)
		}
		if got := InScript([]byte(text)); got != want {
			t.Errorf("InScript(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestLowerASCII: every byte, at every place of a word, is put in lower
// case as ASCII does, and only A to Z change.
func TestLowerASCII(t *testing.T) {
	all := make([]byte, 0, 256*9)
	for pad := range 9 {
		all = append(all, make([]byte, pad)...)
		for c := range 256 {
			all = append(all, byte(c))
		}
	}
	got := lowerASCII(all)
	for i, c := range all {
		want := c
		if 'A' <= c && c <= 'Z' {
			want += 'a' - 'A'
		}
		if got[i] != want {
			t.Fatalf("lowerASCII of byte %#x at %d = %#x, want %#x", c, i, got[i], want)
		}
	}
}

// TestInScriptAssignedHints: a script's line that gives a program's own
// variable a password is read, whatever hint it holds.
func TestInScriptAssignedHints(t *testing.T) {
	for _, text := range []string{"#!/bin/sh\nMYSQL_PWD=hunter2 mysql app\n", "#!/bin/sh\nexport SSHPASS=hunter2\n", "#!/bin/sh\nDB_PASS=hunter2 ./run\n"} {
		if !InScript([]byte(text)) {
			t.Errorf("InScript(%q) = false, want true", text)
		}
	}
}

// TestMoreTokenPrefixes: Vault's, PyPI's, Google's and Stripe's tokens
// are found by their prefixes in code, commands and prose.
func TestMoreTokenPrefixes(t *testing.T) {
	for _, text := range []string{
		`VAULT = "hvs.CAESIJabcdefghijklmnop0123"`,
		`password = "pypi-AgEIcHlwaS5vcmcCJGabcdef"`,
		`const key = "AIzaSyA0123456789abcdefghijklmnopqrs"`,
		`stripe.api = "sk_live_0123456789abcdefghij"`,
	} {
		if !InCode([]byte(text)) || !InCommand([]byte(text)) || !InDocument([]byte(text)) {
			t.Errorf("InCode, InCommand, InDocument(%q) = %v, %v, %v, want true", text, InCode([]byte(text)), InCommand([]byte(text)), InDocument([]byte(text)))
		}
	}
	for _, text := range []string{"graphs.example", "ths.abcdefghijklmnop", "disk_live_count"} {
		if InCode([]byte(text)) {
			t.Errorf("InCode(%q) = true, want false", text)
		}
	}
}

// TestShellAssignmentInCodeString: a command that code hands a shell as a
// string gives a literal to a variable the way a shell line does; code's
// own keyword arguments and variables are no literal.
func TestShellAssignmentInCodeString(t *testing.T) {
	for text, want := range map[string]bool{
		`os.system("PGPASSWORD=hunter2 psql -h db")`:                     true,
		`subprocess.run("export DB_PASS=hunter2; ./deploy", shell=True)`: true,
		"execSync(`MYSQL_PWD=hunter2 mysql app`)":                        true,
		`system('REDISCLI_AUTH=hunter2 redis-cli ping')`:                 true,
		`cmd = "API_KEY=hunter2"`:                                        true,
		`conn = connect(host=h, password=pw, user=u)`:                    false,
		"conn = connect(\n    password=pw\n)":                            false,
		`    password=pw if secure else None,`:                           false,
		`f"PGPASSWORD={pw} psql"`:                                        false,
		`"PGPASSWORD=%s psql" % pw`:                                      false,
		`os.system("PGPASSWORD=$PGPASSWORD psql")`:                       false,
		`print("token=" + token)`:                                        false,
		`x = "a", password=pw ` + "\n":                                   false,
	} {
		if got := InCode([]byte(text)); got != want {
			t.Errorf("InCode(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestInURLPath: a URL's path segment crosses only where each of its
// parts reads as a word or a version, or is short; a registry's token in
// the path (Cloudsmith's, hex or mixed) does not.
func TestInURLPath(t *testing.T) {
	for text, want := range map[string]bool{
		"https://dl.cloudsmith.io/Zk3wQp9LmT2vXr7B/acme/go/go/,direct":         true,
		"index-url = https://pypi.corp.example.com/t/8f14e45fceea167a/simple":  true,
		"https://npm.fury.io/a1b2c3d4e5f6g7h8i9j0/acme/":                       true,
		"https://hc-ping.com/123e4567-e89b-12d3-a456-426614174000":             true,
		"GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct":    false,
		"https://pypi.corp.example.com/repository/python3-v2/simple":           false,
		"https://nexus.example.com/repository/Maven-Public/ubuntu2204/x86_64/": false,
		"https://proxy.golang.org,direct":                                      false,
		"https://gitlab.com/api/v4/projects/12345678/packages/pypi/simple":     false,
		"https://ACME.example.com/ACMEPROXY/k8s-infra/v1beta1":                 false,
		"/home/alice/8f14e45fceea167a/bin":                                     false,
		"https://example.com?token=Zk3wQp9LmT2vXr7B":                           false,
		"https://slack.com/api/chat.postMessage":                               false,
		"https://dl.cloudsmith.io/ZkwQpLmTvXrB/acme/":                          true,
		"https://dl.cloudsmith.io/QpwZkLmTvXrB/acme/":                          true,
		"https://github.com/GoogleCloudPlatform/python-docs-samples.git":       false,
		"https://github.com/microsoft/TypeScript.git":                          false,
		"https://github.com/DefinitelyTyped/DefinitelyTyped":                   false,
		"https://github.com/JuliaLang/julia.git":                               false,
	} {
		if got := InURLPath([]byte(text)); got != want {
			t.Errorf("InURLPath(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestInURLQuery(t *testing.T) {
	for text, want := range map[string]bool{
		"curl 'https://notify.azurewebsites.net/api/done?code=Zx8qPl4mNb7Vc2Rt%3D%3D'":                        true,
		"https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&sig=Zx8qPl4mNb7Vc2RtZx8q%3D":               true,
		"https://apim.example.com/anthropic?subscription-key=9f8e2a1b7c6d45e3a0b1c2d3e4f5a6b7":                true,
		"GOPROXY=https://goproxy.corp.example/go?key=Zx8qPl4mNb7Vc2Rt,direct":                                 true,
		"https://app.example.com/cb#access_token=Zx8qPl4mNb7Vc2Rt&token_type=bearer":                          true,
		"https://api.github.com/repos/acme/app/commits?per_page=100&page=2&sha=main":                          false,
		"substituters = https://cache.nixos.org?priority=40 s3://b?region=eu-west-1&endpoint=minio.corp:9000": false,
		"L<http://search.cpan.org/search?query=App%3A%3AProve+Plugin>":                                        false,
		"https://groups.google.com/forum/#!original/comp.unix.shell/x1345iu10eg/Nn1n-1r1uU0J":                 false,
		`curl "https://x.example.com/api?token=$TOKEN&q=${QUERY}&k={key}"`:                                    false,
		"https://example.com/docs#section-three":                                                              false,
		"?code=Zx8qPl4mNb7Vc2Rt with no scheme":                                                               false,
	} {
		if got := InURLQuery([]byte(text)); got != want {
			t.Errorf("InURLQuery(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestHeaderLiteral: a header whose name says a credential is given a
// literal however short; a variable, a command's output or an
// authorization's scheme alone is none.
func TestHeaderLiteral(t *testing.T) {
	for text, want := range map[string]bool{
		"curl -s -H 'X-Api-Key: 7f3kQ2pLm9Xv4Bn' https://api.example.com":                                  true,
		"curl -H 'Ocp-Apim-Subscription-Key: 0123456789abcdef' https://apim.example.com":                   true,
		`curl --header="PRIVATE-TOKEN: abc123" https://gitlab.example.com/api/v4/projects`:                 true,
		"wget --header 'Cookie: session=abc' https://example.com":                                          true,
		`curl -H "Authorization: Basic dXNlcjpwdw==" https://example.com`:                                  true,
		`curl -H "Authorization: Bearer $TOKEN" https://example.com`:                                       false,
		"curl -H 'X-Api-Key: ${KEY}' -H 'Content-Type: application/json' https://example.com":              false,
		`curl -H "X-Api-Key: $(pass show api)" -H "Cookie: ` + "`cat ~/.cookie`" + `" https://example.com`: false,
		`curl -H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28" https://x`:    false,
		"ls -h; du -sh .": false,
	} {
		if got := InCommand([]byte(text)); got != want {
			t.Errorf("InCommand(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestInLinkerFlags(t *testing.T) {
	for text, want := range map[string]bool{
		"-ldflags=-X=main.dbPass=hunter2":                              true,
		"-mod=mod -ldflags=-X=main.apiKey=Zk3wQp9LmT2v":                true,
		"-ldflags=-X=github.com/acme/app/config.token=s3cr3t":          true,
		"-ldflags=-X=main.build=8f14e45fceea167a":                      true,
		`-ldflags="-X main.Secret=R31linker"`:                          true,
		"-ldflags=-X=main.version=v1.2.3":                              false,
		"-ldflags=-X=main.mode=release -trimpath":                      false,
		"-ldflags=-X=github.com/acme/app/version.Channel=stable-amd64": false,
		"-mod=vendor -tags=netgo":                                      false,
		"-ldflags=-s -w":                                               false,
	} {
		if got := InLinkerFlags([]byte(text)); got != want {
			t.Errorf("InLinkerFlags(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestHeaderLiteralInProse: prose that shows a header's key is judged to
// hold it, not where the key reads as words, a placeholder's.
func TestHeaderLiteralInProse(t *testing.T) {
	for text, want := range map[string]bool{
		"Check it with `curl -s -H \"X-Api-Key: Kq8z2PLm4x9W\" https://api.example.com/status`": true,
		"Call it with `curl -H \"X-Api-Key: YOUR_API_KEY\" https://api.example.com`":            false,
		"curl -H 'x-api-key: your-key-here' https://api.example.com":                            false,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestPrivateKey: a private key is one by its armor and body, whatever
// judge reads it; its armor's name alone (a parser's constant, prose
// about it) is none.
func TestPrivateKey(t *testing.T) {
	body := "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
	for text, want := range map[string]bool{
		"-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----\n":                true,
		"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123\n\n" + body + "\n": true,
		`key := "-----BEGIN EC PRIVATE KEY-----\n" +` + "\n\t\"" + body + `\n"`:                                 true,
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "\n=R33x\n-----END PGP PRIVATE KEY BLOCK-----\n":   true,
		"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIAaaaa\n":                  true,
		`const header = "-----BEGIN RSA PRIVATE KEY-----"` + "\nif !strings.HasPrefix(b, header) {\n":           false,
		"A key begins with `-----BEGIN OPENSSH PRIVATE KEY-----`; keep it in ~/.ssh.\n":                         false,
		"-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n":                                false,
	} {
		for name, judge := range map[string]func([]byte) bool{"InSettings": InSettings, "InScript": InScript, "InDocument": InDocument, "InCode": InCode, "InCommand": InCommand} {
			if got := judge([]byte(text)); got != want {
				t.Errorf("%s(%q) = %v, want %v", name, text, got, want)
			}
		}
	}
}

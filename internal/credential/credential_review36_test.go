package credential

import "testing"

// TestCommandWordsOfAList: a user and password given to curl, httpie or
// lftp as a list's words, as Codex's prefix_rule and Gemini CLI's
// commandPrefix keep a command, are one; a list whose words hold none
// is not.
func TestCommandWordsOfAList(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`prefix_rule(pattern=["curl", "-u", "deploy:R36listCurl"], decision="allow")`, true},
		{`prefix_rule(pattern=["curl","--user","ci:R36listUser"], decision="allow")`, true},
		{`prefix_rule(pattern=["curl", "--user=ci:R36listUserEq"])`, true},
		{`prefix_rule(pattern=["http", "-a", "ops:R36listHttpie", "GET"])`, true},
		{`prefix_rule(pattern=["lftp", "-u", "ci,R36listLftp", "ftp.example.com"])`, true},
		{"commandPrefix = ['curl', '-u', 'deploy:R36listGemini']\n", true},
		{`{"args": ["-u", "svc:R36listArgs", "https://mcp.example.com"]}`, true},
		{`prefix_rule(pattern=["git", "-C", "src", "status"], decision="allow")`, false},
		{`prefix_rule(pattern=["ls", "-a", "src"])`, false},
		{`prefix_rule(pattern=["curl", "-u", "$USER:$PASS"])`, false},
		{`prefix_rule(pattern=["docker", "run", "-u", "1000:1000", "img"])`, false},
	} {
		if got := InSettings([]byte(c.text)); got != c.want {
			t.Errorf("InSettings(%q) = %v, want %v", c.text, got, c.want)
		}
		if got := InCommand([]byte(c.text)); got != c.want {
			t.Errorf("InCommand(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestInjectedCommand: what a Gemini CLI command's !{…} runs is judged
// as a command, braces and all; and a settings file's line that gives a
// program a password, with no other hint of one, is found.
func TestInjectedCommand(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`prompt = "Check: !{sshpass -p R36bangSshpass ssh ops@db uptime}"`, true},
		{`prompt = "Rows: !{mysql -uops -pR36bangMysql shop -e 'select 1'}"`, true},
		{`prompt = "Queue: !{redis-cli -a R36bangRedis llen jobs}"`, true},
		{"prompt = \"\"\"\n!{ldapsearch -x -D cn=admin -w R36bangLdap -b dc=corp}\n\"\"\"", true},
		{`prompt = "!{vault login R36bangVaultToken}"`, true},
		{`prompt = "!{htpasswd -b .htpasswd ops R36bangHtpasswd}"`, true},
		{`prompt = "!{echo {a,b} | sshpass -p R36bangNested ssh h}"`, true},
		{`prompt = "!{sshpass -p R36bangOpen ssh h`, true},
		{"dump: mysqldump -uops -pR36plainMysql shop\n", true},
		{"users: ldapsearch -x -D cn=admin -w R36plainLdap -b dc=corp\n", true},
		{"login: vault login R36plainVaultToken\n", true},
		{`prompt = "Summarise: !{git log -5 --format=%s}"`, false},
		{`prompt = "!{ls -a {src,test}}"`, false},
		{`prompt = "!{vault login -method=oidc}"`, false},
		{"help: run mysql -p shop to be asked for the password\n", false},
		{"note: use redis-cli -a $REDIS_PASSWORD\n", false},
	} {
		if got := InSettings([]byte(c.text)); got != c.want {
			t.Errorf("InSettings(%q) = %v, want %v", c.text, got, c.want)
		}
		if got := InCommand([]byte(c.text)); c.want && !got {
			t.Errorf("InCommand(%q) = false, want true", c.text)
		}
	}
}

// TestSudoEchoAfterClaudeBang: a password echoed into sudo -S after
// Claude Code's !` is one, as after a backquote; a pipe into sudo with
// no password is not.
func TestSudoEchoAfterClaudeBang(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Status: !`echo R36sudoPw | sudo -S systemctl restart app`\n", true},
		{"Status: `echo R36sudoPw | sudo -S systemctl restart app`\n", true},
		{"Status: !`systemctl status app | sudo tee /tmp/x`\n", false},
		{"Status: !`echo \"$SUDO_PW\" | sudo -S true`\n", false},
	} {
		if got := InDocument([]byte(c.text)); got != c.want {
			t.Errorf("InDocument(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestFrontMatterAsSettings: a Markdown file's front matter is judged as
// settings are (an agent's MCP server's env and headers, a hook's
// command), its body as prose; front matter that holds none, and prose
// that gives a literal to a name within a line (at a line's end it is a
// note's: TestLabelledSecretInProse), are none.
func TestFrontMatterAsSettings(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"---\nname: dba\nmcpServers:\n  db:\n    env:\n      DB_PASSWORD: R36fmDbPw\n---\nBody\n", true},
		{"---\nname: s\nmcpServers:\n  w:\n    headers:\n      X-Api-Key: R36fmHdrKey\n---\nBody\n", true},
		{"\ufeff---\r\nname: r\r\nhooks:\r\n  Stop:\r\n    - hooks:\r\n        - type: command\r\n          command: PGPASSWORD=R36fmPg psql\r\n---\r\nBody\r\n", true},
		{"---\nname: x\npassword: R36fmOpen # the old one\n", false},
		{"---\nname: docs\ndescription: Writes docs about the password reset flow\ntools: Read, Grep\nmodel: sonnet\n---\nBody\n", false},
		{"---\nname: docs\ndescription: x\n---\nThe password: hunter2 is an example prose writes.\n", false},
		{"Intro\n---\npassword: R36notFront # the old one\n---\n", false},
	} {
		if got := InDocument([]byte(c.text)); got != c.want {
			t.Errorf("InDocument(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestScriptCallArguments: a script's list of a program's words and a
// library call's user and password, two arguments, give a password
// where one is a literal; a variable, a prompt or a name's own word is
// none.
func TestScriptCallArguments(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`subprocess.run(["curl", "-sf", "-u", "ci:R36pyCurl", url], check=True)`, true},
		{`exec.Command("curl", "-u", "ci:R36goCurl", url)`, true},
		{`exec.Command("sshpass", "-p", "R36goSshpass", "ssh", "h")`, true},
		{`execFileSync('sshpass', ['-p', 'R36jsSshpass', 'rsync', 'a', 'b'])`, true},
		{`spawn('redis-cli', ['-a', 'R36jsRedis', 'ping'])`, true},
		{`requests.post(url, auth=("ci", "R36pyAuthTuple"))`, true},
		{`httpx.get(url, auth = ("ci", "R36pyHttpx"))`, true},
		{`requests.get(url, auth=HTTPBasicAuth('ci', 'R36pyBasic'))`, true},
		{`s.login("ops@example.com", "R36pySmtpLogin")`, true},
		{`subprocess.run(["git", "-C", "/srv", "status"], check=True)`, false},
		{`exec.Command("curl", "-u", user+":"+pw, url)`, false},
		{`requests.get(url, auth=(user, password))`, false},
		{`requests.get(url, auth=("user", "password"))`, false},
		{`s.login(user, os.environ["SMTP_PASSWORD"])`, false},
		{`s.login("ops", getpass.getpass())`, false},
		{`page.login("admin", "{password}")`, false},
	} {
		if got := InCode([]byte(c.text)); got != c.want {
			t.Errorf("InCode(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

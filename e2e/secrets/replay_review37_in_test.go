package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview37InURLQueryInProseAndCode: a service that takes its
// key in a URL's query (a weather API's ?appid=, a maps API's ?key=, a
// calendar's feed ?private_token=, Azure Functions' ?code=) is called so
// in a skill's instructions, a command's !`curl …`, CLAUDE.md's notes
// and a skill's script; such a value was judged in a command's text, a
// setting and a variable, not in prose (Markdown, a .txt) or code, and
// crossed. The attack, from inside: read them. Proof: none is inside
// and the launch names each; a URL whose query reads as words (?q=Berlin
// &units=metric) still is.
func TestReplayReview37InURLQueryInProseAndCode(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "skills", "weather", "SKILL.md"), "---\nname: weather\ndescription: the weather\n---\nCall:\n\n    curl -s \"https://api.openweathermap.org/data/2.5/weather?q=Berlin&appid=3f2a9c7eR37skillAppid1b8d4f6a\"\n")
	h.Write(filepath.Join(claude, "skills", "weather", "forecast.py"), "import requests\n\nURL = \"https://api.weather.example/v1/forecast?city=Berlin&appid=Zk3wR37scriptKey9LmT2v\"\nprint(requests.get(URL).json())\n")
	h.Write(filepath.Join(claude, "skills", "weather", "links.txt"), "Feed: https://calendar.example.com/feed.ics?private_token=xQ7mR37txtToken4pZ9k\n")
	h.Write(filepath.Join(claude, "commands", "maps.md"), "---\ndescription: where\n---\nRoute: !`curl -s \"https://maps.example.com/api/directions/json?origin=a&destination=b&key=Lp4qR37commandKey8vN2x\"`\n")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\nTrigger the nightly job with https://jobs.azurewebsites.net/api/nightly?code=Hq2vR37claudeMdCode7Wn3k\n")
	h.Write(filepath.Join(claude, "skills", "plain", "SKILL.md"), "---\nname: plain\ndescription: words\n---\ncurl -s \"https://api.example.com/v1/weather?q=Berlin&units=metric\" # R37-HARMLESS-QUERY\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R37[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R37skillAppid", "R37scriptKey", "R37txtToken", "R37commandKey", "R37claudeMdCode"} {
		if strings.Contains(out, secret) {
			t.Errorf("a key in a URL's query in prose or code is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R37-HARMLESS-QUERY") {
		t.Errorf("inside, want the skill whose URL's query reads as words")
	}
	for _, f := range []string{"weather/SKILL.md", "weather/forecast.py", "weather/links.txt", "maps.md", "CLAUDE.md"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview37InListOrTableOfCredentials: a skill keeps a token
// per service in a table or a list under a name that says credentials
// ("tokens": {"jira": "…"}, aider's api-key: list of provider=key, a TOML
// [credentials] table); each value was judged by its own name (jira,
// linear), which says nothing, and crossed. The attack, from inside:
// read them. Proof: none is inside and the launch names each; a JSON
// schema of a password's field still is.
func TestReplayReview37InListOrTableOfCredentials(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "triage")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: triage\ndescription: triage issues\n---\nRead config.json for the tokens.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"tokens": {"jira": "ATATT3xR37jiraTable9fZ2", "linear": "lin_api_R37linear4Qp8vX"}}`+"\n")
	h.Write(filepath.Join(skill, "aider.yml"), "model: sonnet\napi-key:\n  - gemini=AIzR37geminiList7kLm2\n  - openrouter=sk-or-v1-R37orList3pQ9\n")
	h.Write(filepath.Join(skill, "services.toml"), "[credentials]\nsentry = \"R37sentryToml8d2f9a1c\"\n\n[ui]\ntheme = \"dark\"\n")
	h.Write(filepath.Join(skill, "schema.json"), `{"properties": {"password": {"type": "string", "minLength": 12, "description": "R37-HARMLESS-SCHEMA"}}}`+"\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R37[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R37jiraTable", "R37linear", "R37geminiList", "R37orList", "R37sentryToml"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token in a list or a table of credentials is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R37-HARMLESS-SCHEMA") {
		t.Errorf("inside, want the schema of a password's field, which holds none")
	}
	for _, f := range []string{"triage/config.json", "triage/aider.yml", "triage/services.toml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview37InPgpassAndMultiLineString: a skill that queries a
// database keeps PostgreSQL's password file beside its queries
// (PGPASSFILE names any file, and Windows calls it pgpass.conf), whose
// host:port:database:user:password lines have no name for the
// password; and a TOML multi-line string given to a password's name
// (password = """…""") was read from the first character past the
// quote, a quote, and taken for nothing. Both crossed. The attack, from
// inside: read them. Proof: none is inside and the launch names each;
// a multi-line description still is.
func TestReplayReview37InPgpassAndMultiLineString(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "dbq")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: dbq\ndescription: query the shop's database\n---\nRun `PGPASSFILE=pgpass psql -h db.internal shop`.\n")
	h.Write(filepath.Join(skill, "pgpass"), "db.internal:5432:shop:ops:R37pgpassPlain9x\n")
	h.Write(filepath.Join(skill, "pgpass.conf"), "*:*:*:report:R37pgpassConf4k\n")
	h.Write(filepath.Join(skill, "config.toml"), "[db]\nhost = \"db.internal\"\npassword = \"\"\"\nR37tomlMultiLine7q\"\"\"\n")
	h.Write(filepath.Join(skill, "notes.toml"), "description = \"\"\"\nR37-HARMLESS-MULTILINE: the password lives in pgpass\"\"\"\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R37[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R37pgpassPlain", "R37pgpassConf", "R37tomlMultiLine"} {
		if strings.Contains(out, secret) {
			t.Errorf("a password in a PostgreSQL password file or a TOML multi-line string is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R37-HARMLESS-MULTILINE") {
		t.Errorf("inside, want the multi-line description, which holds none")
	}
	for _, f := range []string{"dbq/pgpass", "dbq/pgpass.conf", "dbq/config.toml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

package credential

import (
	"strings"
	"testing"
)

// TestURLQueryInProseAndCode: a key in a URL's query was judged in a
// command's text, a setting and a variable, not in prose or code.
func TestURLQueryInProseAndCode(t *testing.T) {
	for _, c := range []struct {
		text      string
		doc, code bool
	}{
		{"curl -s \"https://api.openweathermap.org/data/2.5/weather?q=Berlin&appid=3f2a9c7e1b8d4f6a0e5c2b7d9a1f3e8c\"\n", true, true},
		{"Route: !`curl -s \"https://maps.example.com/api/directions/json?origin=a&key=Lp4qX8vN2xR7tK3m\"`\n", true, true},
		{"Trigger it: https://jobs.azurewebsites.net/api/nightly?code=Hq2vZk7Wn3kP9xQ4mB\n", true, true},
		{"URL = \"https://api.weather.example/v1/forecast?city=Berlin&appid=Zk3wQp9LmT2v\"\n", true, true},
		{"fetch(`https://calendar.example.com/feed.ics#private_token=xQ7mT4pZ9kW2`)\n", true, true},
		{"otpauth://totp/AWS:alice?secret=JBSWY3DPEHPK3PXP&issuer=AWS\n", true, true},
		// Known to hold none: words, numbers, versions, a template's
		// field, a variable's reference, an anchor.
		{"curl -s \"https://api.example.com/v1/weather?q=Berlin&units=metric&cnt=16\"\n", false, false},
		{"See https://github.com/org/repo/issues?q=is%3Aopen+label%3Abug and https://docs.example.com/guide#installation\n", false, false},
		{"url = f\"https://api.example.com/v1?appid={API_KEY}&lang=en\"\n", false, false},
		{"curl \"https://api.example.com/v1?key=$MAPS_KEY\" # ${KEY}\n", false, false},
		{"const u = \"https://api.example.com/v1?key=\" + key;\n", false, false},
		{"![badge](https://img.shields.io/npm/v/pkg.svg?style=flat-square&v=1.2.3)\n", false, false},
		{"no scheme here ?appid=3f2a9c7e1b8d4f6a and ://?x=3f2a9c7e1b8d4f6a\n", false, false},
	} {
		if got := InDocument([]byte(c.text)); got != c.doc {
			t.Errorf("InDocument(%q) = %v, want %v", c.text, got, c.doc)
		}
		if got := InCode([]byte(c.text)); got != c.code {
			t.Errorf("InCode(%q) = %v, want %v", c.text, got, c.code)
		}
	}
}

// BenchmarkInURLQuery reads a minified bundle's shape, 16 MiB with a
// URL and its query every 80 bytes, as InCode reads a skill's bundle.
func BenchmarkInURLQuery(b *testing.B) {
	data := []byte(strings.Repeat(`e.get("https://api.example.com/v1/items?page=2&sort=name",t);`, 16<<20/61))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if InURLQuery(data) {
			b.Fatal("a credential found in a query of words")
		}
	}
}

// TestListOrTableOfCredentials: a list or a table under a name that says
// credentials holds them under names that say nothing, or none.
func TestListOrTableOfCredentials(t *testing.T) {
	for text, want := range map[string]bool{
		`{"tokens": {"jira": "ATATT3xFfGF0aBcD9eF", "linear": "lin_api_Zk3wQp9LmT2vX"}}`:  true,
		"api_keys:\n  mistral: Zk3wQp9LmT2vXa8\n  openai: ${OPENAI_KEY}\n":                true,
		"api-key:\n  - gemini=Zk3wQp9LmT2vXa8\n  - openrouter=Lp4qX8vN2xR7tK3m\n":         true,
		"[credentials]\njira = \"ATATT3xFfGF0aBcD9eF\"\n":                                 true,
		"[ui]\ntheme = \"dark\"\n[secrets.prod]\n# the deploy's\nsentry = 8d2f9a1c7e3b\n": true,
		`{"api_keys": ["Zk3wQp9LmT2vXa8"]}`:                                               true,
		"passwords:\n\n  - Tr0ubadorHorse7x\n":                                            true,
		"password: [Tr0ubadorHorse7x]\n":                                                  true,
		`{"password": {"value": "Tr0ubadorHorse7x"}}`:                                     true,
		// Known to hold none: a schema, a policy, names of variables or
		// files, a reference, switches and numbers, words, identifiers.
		`{"properties": {"password": {"type": "string", "minLength": 8, "pattern": "^(?=.*[A-Z]).{8,}$", "description": "The user's password"}}}`: false,
		`{"Credentials": {"$ref": "#/definitions/BasicAuthenticationCredentials"}}`:                                                               false,
		"password:\n  min_length: 8\n  require_digits: true\n  hash: bcrypt\nname: app\n":                                                         false,
		"tokens:\n  - name: jira\n    env: JIRA_TOKEN\n":                                                                                          false,
		"secrets:\n  db_password:\n    file: ./secrets/db.txt\n":                                                                                  false,
		`{"secrets": ["DB_PASSWORD", "API_KEY"], "tokens": {"max": 4096, "reserve": 0.5}}`:                                                        false,
		"[secrets]\nprovider = \"vault\"\npath = \"kv/app\"\n[db]\nhost = \"db9f8e7d6c5b\"\n":                                                     false,
		"token:\n  ttl: 3600\n  issuer: https://auth.example.com\nhost: db9f8e7d6c5b\n":                                                           false,
		`{"ListWorkspaceServiceAccountTokens": {"non_aggregate_keys": ["serviceAccountId", "workspaceId"]}}`:                                      false,
		"keys:\n  up: k\n  down: Zk3wQp9LmT2vXa8\n":                                                                                               false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestPgpassAndMultiLineString: a PostgreSQL password file's line under
// any name, and a TOML multi-line string given to a password's name.
func TestPgpassAndMultiLineString(t *testing.T) {
	for text, want := range map[string]bool{
		"db.internal:5432:shop:ops:Tr0ubadorHorse7x\n":                 true,
		"*:*:*:postgres:hunter2\n":                                     true,
		"password = \"\"\"\nTr0ubadorHorse7x\"\"\"\n":                  true,
		"[db]\ntoken = '''\n  Zk3wQp9LmT2vXa8\n'''\n":                  true,
		"root:x:0:0:root:/root:/bin/bash\n":                            false,
		"daemon:*:19000:0:99999:7:::\n":                                false,
		"a:1:b:c:$PGPASSWORD\n":                                        false,
		"12:30:00:45:99\n":                                             false,
		"description = \"\"\"\nthe password is kept elsewhere\"\"\"\n": false,
		"password = \"\"\"\n${DB_PASSWORD}\"\"\"\n":                    false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

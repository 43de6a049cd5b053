package audit

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHarmfulDotenvKeys: an application's .env (what cp .env.example .env
// makes) sets nothing harmful; each key the host's gemini, or what it
// runs, would obey is named, wherever dotenv reads a key: after export,
// with a colon, blanks before the =, after a line separator of
// JavaScript's, after a multi-line value that ends early.
func TestHarmfulDotenvKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"PORT=3000\nDATABASE_URL=postgres://localhost/app\nSECRET_KEY=changeme\n# a comment\nVITE_API_URL=http://localhost:8080\n", ""},
		{"APP_CERT=\"-----BEGIN KEY-----\nMIIEvQIBADANBg\nNODE_OPTIONS_IS_TEXT=1\n-----END KEY-----\"\nAPP_NAME=x\n", ""},
		{"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/\n", "GOOGLE_GEMINI_BASE_URL"},
		{"export NODE_OPTIONS=--require ./x.js\n", "NODE_OPTIONS"},
		{"HTTPS_PROXY: http://evil\n", "HTTPS_PROXY"},
		{"BASH_ENV\n=./x.sh\n", "BASH_ENV"},
		{"PORT=1\u2028LD_PRELOAD=./x.so\n", "LD_PRELOAD"},
		{"\ufeffPATH=./bin\n", "PATH"},
		{"A_B='x\n'y\nNODE_OPTIONS=1'\n", "A_B,NODE_OPTIONS"},
		{"APP_X='a\\'b\nc' \nGIT_SSH_COMMAND=x\n", "GIT_SSH_COMMAND"},
		{"APP_=1\n", "APP_"},
	} {
		if got := strings.Join(HarmfulDotenvKeys([]byte(c.in)), ","); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDotenvKeysAgainstDotenv: for random .env files made of the pieces
// that move dotenv's line parse (quotes of three kinds, escapes, line
// separators, comments, blanks, export, colons), every key the dotenv of
// the host's gemini reads is among those dotenvKeys reads.
func TestDotenvKeysAgainstDotenv(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	pieces := []string{"A", "K_1", "export ", "=", ": ", " ", "\t", "\n", "\r\n", "\r", "\u2028", "\u00a0", "'", "\"", "`", "\\", "#", "v", "x y", "\n=", "Z.b-c"}
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(14) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	in, _ := json.Marshal(inputs)
	script := filepath.Join(t.TempDir(), "parse.js")
	// dotenv 16's parse, as gemini 0.61 bundles it.
	must(t, os.WriteFile(script, []byte(`
const LINE = /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`+"`"+`(?:\\`+"`"+`|[^`+"`"+`])*`+"`"+`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/mg
const inputs = JSON.parse(require('fs').readFileSync(0, 'utf8'))
console.log(JSON.stringify(inputs.map(src => {
  const keys = []
  const lines = src.replace(/\r\n?/mg, '\n')
  let m
  LINE.lastIndex = 0
  while ((m = LINE.exec(lines)) != null) keys.push(m[1])
  return keys
})))
`), 0o644))
	cmd := exec.Command(node, script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	must(t, err)
	var want [][]string
	must(t, json.Unmarshal(out, &want))
	for i, src := range inputs {
		got := dotenvKeys([]byte(src))
		for _, k := range want[i] {
			if !slices.Contains(got, k) {
				t.Errorf("%q: dotenv reads %q, dotenvKeys only %q", src, want[i], got)
				break
			}
		}
	}
}

// TestDotenvRunsAt: a .env that a shell sources or make includes runs
// what is more than a name and a literal value: a line passes only as a
// comment or NAME=VALUE, quoted or plain, with a comment after a blank.
func TestDotenvRunsAt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"# app\nPORT=3000\r\nexport NODE_ENV=development\nDATABASE_URL=postgres://u:p@localhost:5432/app?sslmode=disable\nSECRET_KEY='a b#c'  # quoted\nAPP_NAME=\"My app\"\nAPP_EMPTY=\n\n  DEBUG=1 # on\n", 0},
		{"DATABASE_URL=$(shell touch x)\n", 1},
		{"PORT=1\nDATABASE_URL=${HOME}\n", 2},
		{"PORT=1; touch x\n", 1},
		{"PORT=1 touch x\n", 1},
		{"PORT= touch\n", 1},
		{"PORT = 1\n", 1},
		{"PORT\n", 1},
		{"APP_X=\"`touch x`\"\n", 1},
		{"APP_X=\"a\\\"; touch x; \\\"\"\n", 1},
		{"APP_X='a'b\n", 1},
		{"APP_CERT=\"-----BEGIN\nNODE_OPTIONS=x\n-----END\"\n", 1},
		{"APP.X=1\n", 1},
		{"1X=1\n", 1},
		{"include evil.mk\n", 1},
		{"APP_NAME=Café\n", 1},
	} {
		if got := DotenvRunsAt([]byte(c.in)); got != c.want {
			t.Errorf("%q: line %d, want %d", c.in, got, c.want)
		}
	}
}

package claudesettings

import (
	"reflect"
	"strings"
	"testing"
)

func TestAddedRules(t *testing.T) {
	before := []byte(`{"permissions":{"allow":["Bash(ls:*)"]},"hooks":{}}`)
	after := []byte(`{"permissions":{"allow":["Bash(ls:*)","Bash(npm test:*)",7],"deny":["Read(./.env)"],"defaultMode":"bypassPermissions","additionalDirectories":["/"]},"hooks":{"Stop":[]}}`)
	got := AddedRules("/p/.claude/settings.local.json", before, after)
	want := []Rule{
		{File: "/p/.claude/settings.local.json", List: "allow", Rule: "Bash(npm test:*)"},
		{File: "/p/.claude/settings.local.json", List: "deny", Rule: "Read(./.env)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AddedRules = %v, want %v", got, want)
	}
	if got := AddedRules("f", before, []byte("not json")); got != nil {
		t.Errorf("AddedRules of a broken copy = %v, want none", got)
	}
}

func TestRefusal(t *testing.T) {
	for rule, refused := range map[string]bool{
		"Bash(git *)":             false,
		"Bash( *)":                true,
		"Bash(npm run test:*)":    false,
		"Edit(src/**)":            false,
		"WebFetch(domain:go.dev)": false,
		"mcp__github__get_issue":  false,
		"mcp__github":             true,
		"mcp__github__*":          true,
		"Bash":                    true,
		"Bash(*)":                 true,
		"Bash(:*)":                true,
		"Edit(**)":                true,
		"Write(//**)":             true,
		"Read(~/**)":              true,
		"WebFetch(domain:*)":      true,
		"Bash(ls\x1b]52;c;x\x07)": true,
		"Bash(ls\u202e)":          true,
		"Bash(ls:*":               true,
		"Bash(*e*)":               true,
		"Bash(e*)":                true,
		"Bash(/usr/bin/*)":        true,
		"Bash(e *)":               false,
		"Bash(make)":              false,
		"Edit(**/?*)":             true,
		"Edit(*.py)":              true,
		"Read(s*)":                true,
		"Read(//etc/[a-z]*)":      false,
		"Edit(docs/*.md)":         false,
		"WebFetch(domain:*.x.io)": true,
	} {
		if got := Refusal(Rule{List: "allow", Rule: rule}); (got != "") != refused {
			t.Errorf("Refusal(allow %q) = %q, want refused %v", rule, got, refused)
		}
	}
	if got := Refusal(Rule{List: "deny", Rule: "Bash"}); got != "" {
		t.Errorf("a deny rule for a whole tool is refused: %s", got)
	}
}

func TestMergePermissions(t *testing.T) {
	rules := []Rule{{List: "allow", Rule: "Bash(npm test:*)"}, {List: "allow", Rule: "Bash(ls:*)"}, {List: "deny", Rule: "Read(./.env)"}}
	for name, c := range map[string]struct{ in, want string }{
		"new file": {"", "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\",\n      \"Bash(ls:*)\"\n    ],\n    \"deny\": [\n      \"Read(./.env)\"\n    ]\n  }\n}\n"},
		"kept as written": {
			"{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\"\n    ],\n    \"defaultMode\": \"default\"\n  },\n  \"n\": 1.50,\n  \"s\": \"\\u00e9\"\n}\n",
			"{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\",\n      \"Bash(npm test:*)\"\n    ],\n    \"defaultMode\": \"default\",\n    \"deny\": [\n      \"Read(./.env)\"\n    ]\n  },\n  \"n\": 1.50,\n  \"s\": \"\\u00e9\"\n}\n",
		},
	} {
		got, err := MergePermissions([]byte(c.in), rules)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: MergePermissions = %v\n%s\nwant\n%s", name, err, got, c.want)
		}
	}
	for _, bad := range []string{`[]`, `{"a":1,"a":2}`, `{"permissions":{"allow":"Bash"}}`, `{"a":1} {}`, `{"permissions":[]}`} {
		if got, err := MergePermissions([]byte(bad), rules); err == nil {
			t.Errorf("MergePermissions(%s) = %s, want it refused", bad, got)
		}
	}
}

// Sessions ending together each add their rules; none is lost.
func TestAddPendingTogether(t *testing.T) {
	state, dir := t.TempDir(), "/state/projects/abc"
	done := make(chan error)
	for i := range 8 {
		go func() {
			done <- AddPending(state, dir, []Rule{{File: "/p/.claude/settings.local.json", List: "allow", Rule: "Bash(make t" + string(rune('0'+i)) + ":*)"}})
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if rules, err := Pending(state, dir); err != nil || len(rules) != 8 {
		t.Errorf("Pending = %d rules, %v; want 8", len(rules), err)
	}
	if err := ForgetPending(state, dir); err != nil {
		t.Fatal(err)
	}
	if rules, _ := Pending(state, dir); rules != nil {
		t.Errorf("after ForgetPending: %v", rules)
	}
}

// TestRisk: an allow rule is kept with the others only when it is known
// to grant no more than it names; one that runs any code, reads outside
// the project or edits what the host runs is marked with what it grants.
func TestRisk(t *testing.T) {
	for rule, marked := range map[string]bool{
		"Bash(python3:*)":               true,
		"Bash(python3.12 -c *)":         true,
		"Bash(bash:*)":                  true,
		"Bash(node:*)":                  true,
		"Bash(npx vitest:*)":            true,
		"Bash(env FOO=1 ls:*)":          true,
		"Bash(xargs:*)":                 true,
		"Bash(make:*)":                  true,
		"Bash(npm test:*)":              true,
		"Bash(git *)":                   true,
		"Bash(git -c x=y status:*)":     true,
		"Bash(git log:*)":               true,
		"Bash(cat:*)":                   true,
		"Bash(echo:*)":                  true,
		"Bash(ls; python3 x.py)":        true,
		"Bash(ls $(id))":                true,
		"Bash(ls > ~/.bashrc)":          true,
		"Bash(/bin/ls:*)":               true,
		"Bash(ls:*)":                    false,
		"Bash(ls -la src)":              false,
		"Bash(pwd)":                     false,
		"Bash(git status:*)":            false,
		"Bash(git status --short)":      false,
		"Read(~/.ssh/**)":               true,
		"Read(//etc/shadow)":            true,
		"Read(../other/**)":             true,
		"Grep(~/.aws/**)":               true,
		"Read(src/**)":                  false,
		"Read(./docs/a.md)":             false,
		"Edit(~/.bashrc)":               true,
		"Write(//home/u/.profile)":      true,
		"Edit(.envrc)":                  true,
		"Edit(.git/hooks/pre-commit)":   true,
		"Edit(./.claude/settings.json)": true,
		"Edit(src/**)":                  true,
		"Edit(src/main.go)":             false,
		"Write(docs/guide.md)":          false,
		"WebFetch(domain:go.dev)":       true,
		"mcp__github__get_issue":        true,
		"Task(Explore)":                 true,
	} {
		if got := Risk(Rule{List: "allow", Rule: rule}); (got != "") != marked {
			t.Errorf("Risk(allow %q) = %q, want marked %v", rule, got, marked)
		}
	}
	for _, list := range []string{"ask", "deny"} {
		if got := Risk(Rule{List: list, Rule: "Bash(python3:*)"}); got != "" {
			t.Errorf("a %s rule, which only narrows, is marked: %s", list, got)
		}
	}
	if got := Risk(Rule{List: "allow", Rule: "Bash(python3:*)"}); !strings.Contains(got, "runs any code") {
		t.Errorf("Risk(Bash(python3:*)) = %q, want it to say it runs any code", got)
	}
}

// LeavePending keeps exactly the rules given; none removes the record.
func TestLeavePending(t *testing.T) {
	state, dir := t.TempDir(), "/state/projects/abc"
	a, b := Rule{File: "f", List: "allow", Rule: "Bash(ls:*)"}, Rule{File: "f", List: "allow", Rule: "Bash(python3:*)"}
	if err := AddPending(state, dir, []Rule{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := LeavePending(state, dir, []Rule{b}); err != nil {
		t.Fatal(err)
	}
	if rules, _ := Pending(state, dir); !reflect.DeepEqual(rules, []Rule{b}) {
		t.Errorf("after LeavePending(b): %v", rules)
	}
	if err := LeavePending(state, dir, nil); err != nil {
		t.Fatal(err)
	}
	if rules, _ := Pending(state, dir); rules != nil {
		t.Errorf("after LeavePending(none): %v", rules)
	}
}

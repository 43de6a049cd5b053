package claudesettings

import (
	"reflect"
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

package credential

import "testing"

// TestPgpassPasswordAsLibpqReadsIt: libpq takes a password file line's
// password to its first colon no backslash escapes, spaces and escaped
// colons in it, and an escaped colon in any field before it: such a
// line crossed, as its password, read to the line's end without a space
// or a colon, matched nothing.
func TestPgpassPasswordAsLibpqReadsIt(t *testing.T) {
	for text, want := range map[string]bool{
		"db.internal:5432:shop:ops:Tr0ub\\:adorHorse7x\n":   true,
		"db.internal:5432:shop:ops:correct horse battery\n": true,
		"db.internal:5432:shop:o\\:ps:Tr0ubadorHorse7x\n":   true,
		"\\:\\:1:5432:shop:ops:Tr0ubadorHorse7x\r\n":        true,
		"db.internal:5432:shop:ops:Tr0ub\\\\adorHorse7x\n":  true,
		"root:x:0:0:root:/root:/bin/bash\n":                 false,
		"daemon:*:19000:0:99999:7:::\n":                     false,
		"a:1:b:c:$PGPASSWORD\n":                             false,
		"a:1:b:c: \n":                                       false,
		"12:30:00:45:99\n":                                  false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestCredentialsListValueWithPunctuation: a password or a token in a
// list or a table of credentials that holds a parenthesis, a bar, a
// question mark, a caret, a bracket or a backslash is still one; only a
// pattern (anchored, or with a class's range, an escape's class, a
// quantified class or any character, a group's (?) and prose (a space)
// are none. Every such value crossed, taken for a pattern.
func TestCredentialsListValueWithPunctuation(t *testing.T) {
	for text, want := range map[string]bool{
		"tokens:\n  jira: Xk9(mP2)vLq77\n":                        true,
		"passwords:\n  - \"Tr0ub4dor|3xk\"\n":                     true,
		`{"tokens": {"jira": "Xk9?mP2vLq77"}}`:                    true,
		`{"tokens": {"jira": "Xk9^mP2vLq77"}}`:                    true,
		"[credentials]\njira = Xk9mP2vLq7[7]\n":                   true,
		`{"secrets": {"db": "Xk9\\mP2vLq77"}}`:                    true,
		`{"passwords": {"pattern": "^[a-z]+$"}}`:                  false,
		`{"passwords": {"pattern": "[A-Za-z0-9]{12,}"}}`:          false,
		`{"passwords": {"pattern": "^\\w{16}\\d{4}$"}}`:           false,
		`{"passwords": {"pattern": "(?i)secret\\d+"}}`:            false,
		`{"tokens": {"match": "ghp_[0-9a-zA-Z]+"}}`:               false,
		`{"secrets": {"glob": "config.*"}}`:                       false,
		`{"tokens": {"types": "image/jpeg|image/png"}}`:           false,
		`{"credentials": {"hint": "ask the team (ops) for one"}}`: false,
		`{"tokens": {"jira": "(see 1password)"}}`:                 false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
}

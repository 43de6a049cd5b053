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

package gitconfig

import (
	"strings"
)

// Format writes entries as a config file that git reads back as the same
// entries, in the same order: a section header before each, every value
// quoted. Comments and layout are not kept. An entry without a section,
// which git refuses, is left out.
func Format(entries []Entry) []byte {
	var b strings.Builder
	for _, e := range entries {
		section, rest, ok := strings.Cut(e.Key, ".")
		if !ok || rest == "" {
			continue
		}
		sub, name := "", rest
		if i := strings.LastIndexByte(rest, '.'); i >= 0 {
			sub, name = rest[:i], rest[i+1:]
		}
		b.WriteString("[" + section)
		if sub != "" {
			b.WriteString(` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + `"`)
		}
		b.WriteString("]\n\t" + name)
		if !e.NoValue {
			b.WriteString(` = "` + valueEscapes.Replace(e.Value) + `"`)
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// valueEscapes are the escapes git reads in a quoted value.
var valueEscapes = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`)

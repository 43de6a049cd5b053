package session

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/claudebox/claudebox/claudesettings"
)

// inlineJSONKept is claude's arguments with the inline JSON its
// --settings and --mcp-config take kept as a file they name is
// (claudesettings.FlagCopy): the sandbox reads its command line, and
// --dry-run prints it. leftOut names, by flag, what was left out.
func inlineJSONKept(args []string) (kept []string, leftOut map[string][]string) {
	keep := func(flag, value string) string {
		data, dropped := claudesettings.FlagCopy(flag, []byte(value))
		if len(dropped) > 0 {
			if leftOut == nil {
				leftOut = map[string][]string{}
			}
			leftOut[flag] = append(leftOut[flag], dropped...)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			return "{}"
		}
		return compact.String()
	}
	kept = append([]string(nil), args...)
	for i := 0; i < len(kept) && kept[i] != "--"; i++ {
		flag, value, eq := strings.Cut(kept[i], "=")
		if flag != claudesettings.SettingsFlag && flag != claudesettings.MCPConfigFlag {
			continue
		}
		if eq {
			if claudesettings.InlineJSON(flag, value) {
				kept[i] = flag + "=" + keep(flag, value)
			}
			continue
		}
		for i+1 < len(kept) && !strings.HasPrefix(kept[i+1], "-") {
			i++
			if claudesettings.InlineJSON(flag, kept[i]) {
				kept[i] = keep(flag, kept[i])
			}
			if flag != claudesettings.MCPConfigFlag {
				break
			}
		}
	}
	return kept, leftOut
}

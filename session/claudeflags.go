package session

import (
	"bytes"
	"encoding/json"

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
	for _, v := range claudeFlagValues(args) {
		if (v.flag != claudesettings.SettingsFlag && v.flag != claudesettings.MCPConfigFlag) || !claudesettings.InlineJSON(v.flag, v.value) {
			continue
		}
		if kept[v.i] = keep(v.flag, v.value); v.eq {
			kept[v.i] = v.flag + "=" + kept[v.i]
		}
	}
	return kept, leftOut
}

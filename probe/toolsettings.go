package probe

import (
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/untrusted"
)

// toolSettingsCopy is the private copy of a tool's settings file (real,
// its real path) the sandbox is shown: what its tool reads, never a
// comment, which no tool reads and where a note or a line turned off
// keeps a secret no shape finds (`# crates.io key: cio…`). A TOML file
// (cargo's, uv's) is written again from its keys, which drops inline
// comments too; pip.conf and go's env file (lines) lose their comment
// lines, the only comments their tools know. ok is false where the file
// cannot be read whole or parsed as its tool does.
func toolSettingsCopy(real string) (content string, ok bool) {
	b, err := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), 1<<20)
	if err != nil {
		return "", false
	}
	base := filepath.Base(real)
	if strings.HasSuffix(base, ".toml") || base == "config" {
		var v map[string]any
		if toml.Unmarshal(b, &v) != nil {
			return "", false
		}
		out, err := toml.Marshal(v)
		return string(out), err == nil
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if t := strings.TrimSpace(line); !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, ";") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, ""), true
}

package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/proxy"
)

// SaveAllowHosts adds entries (read as allow-hosts entries, each written
// normalised) to allow-hosts in the user's config.toml. The file is the
// user's: it is edited as text, its comments and other keys left as they
// are, and the result is written only once it reads back as the same
// settings with the entries added; it replaces the file in one rename (a
// symlinked file is replaced where the link points). It returns the
// entries added: those not there already.
func SaveAllowHosts(home string, entries []string) ([]string, error) {
	path := UserConfigPath(home)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var before map[string]any
	if err := toml.Unmarshal(old, &before); err != nil {
		return nil, hint.Errorf("fix the file first: claudebox --check reads it", "%s does not read as TOML: %v", path, err)
	}
	have := stringList(before["allow-hosts"])
	var add []string
	for _, e := range entries {
		r, err := proxy.ParseRule(e)
		if err != nil {
			return nil, allowHostsError(e, err)
		}
		if s := r.String(); !slices.Contains(have, s) && !slices.Contains(add, s) {
			add = append(add, s)
		}
	}
	if len(add) == 0 {
		return nil, nil
	}
	edited := withAllowHosts(old, add)
	var after map[string]any
	if toml.Unmarshal(edited, &after) != nil || !slices.Equal(stringList(after["allow-hosts"]), slices.Concat(add, have)) || !sameBut(before, after, "allow-hosts") {
		return nil, hint.Errorf("add them to allow-hosts in "+path+" yourself", "cannot add %s to %s without rewriting what you wrote there", strings.Join(add, ", "), path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return add, atomicfile.Write(path, edited, atomicfile.Mode(path, 0o644))
}

// allowHostsError is the error of an entry that is no allow-hosts entry.
func allowHostsError(e string, err error) error {
	return hint.Errorf("write host, *.domain or an IP address, each with an optional :port: github.com, *.example.com, 127.0.0.1:8080", "allow-hosts: %q: %v", e, err)
}

// ValidAllowHosts checks each entry reads as an allow-hosts entry.
func ValidAllowHosts(entries []string) error {
	for _, e := range entries {
		if _, err := proxy.ParseRule(e); err != nil {
			return allowHostsError(e, err)
		}
	}
	return nil
}

// topAllowHosts finds a top-level allow-hosts array's opening bracket.
var topAllowHosts = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*allow-hosts[ \t]*=[ \t]*\[`) })

// tableHeader finds the first table, where the top-level keys end.
var tableHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) })

// withAllowHosts is the file's text with add in its top-level allow-hosts:
// first in the array there is one, else in a new line at the top.
func withAllowHosts(text []byte, add []string) []byte {
	quoted := make([]string, len(add))
	for i, a := range add {
		quoted[i] = `"` + a + `"`
	}
	top := text
	if loc := tableHeader().FindIndex(text); loc != nil {
		top = text[:loc[0]]
	}
	if loc := topAllowHosts().FindIndex(top); loc != nil {
		// TOML allows the comma this leaves before an empty array's ].
		return slices.Concat(text[:loc[1]], []byte(strings.Join(quoted, ", ")+", "), text[loc[1]:])
	}
	line := "allow-hosts = [" + strings.Join(quoted, ", ") + "]\n"
	return slices.Concat([]byte(line), text)
}

// stringList is a decoded array's strings.
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// sameBut says two decoded files are the same but for key.
func sameBut(a, b map[string]any, key string) bool {
	a, b = cloneWithout(a, key), cloneWithout(b, key)
	return reflect.DeepEqual(a, b)
}

func cloneWithout(m map[string]any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

package claudesettings

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// secretOptionName is an option's name that says it holds a credential:
// a token, a secret, a password, a key, a login, a cookie, a JWT.
var secretOptionName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)token|secret|passw|key|auth|credential|cookie|session|private|pat$|dsn|webhook|jwt`)
})

// tokenLike says a value reads as a token whatever its name: a JWT, or
// 20 or more letters and digits (and - _ + / = ~), a digit and a letter
// among them, with no space, no dot and no path's start, as a key, a
// routing key or a password is, and no word, host or path is.
func tokenLike(value string) bool {
	if strings.HasPrefix(value, "eyJ") && strings.Count(value, ".") == 2 {
		return true
	}
	if len(value) < 20 || strings.ContainsAny(value[:1], "/~") {
		return false
	}
	digit, letter := false, false
	for _, c := range value {
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letter = true
		case !strings.ContainsRune("-_+/=~", c):
			return false
		}
	}
	return digit && letter
}

// secretOption says the option name, set to the string value, may hold
// a credential: by its name, or by its value (a known service's token, a
// URL with a credential or a webhook's, what reads as a token).
func secretOption(name, value string) bool {
	return secretOptionName().MatchString(name) || HasCommandCredential([]byte(value)) || tokenLike(value)
}

// pluginConfigsKept is a settings pluginConfigs block (a plugin's id →
// its options, and an MCP bundle's servers' settings: Claude Code keeps
// there what a plugin's manifest does not mark sensitive, a token a
// plugin asked for unmarked among it) without the string settings that
// may hold a credential (secretOption), at any depth, and what it left
// out, by path, never its value: nil and "pluginConfigs" for a block
// that is not an object.
func pluginConfigsKept(raw json.RawMessage) (json.RawMessage, []string) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var configs map[string]any
	if d.Decode(&configs) != nil || configs == nil {
		return nil, []string{"pluginConfigs"}
	}
	var dropped []string
	var walk func(path string, v any) any
	walk = func(path string, v any) any {
		switch v := v.(type) {
		case map[string]any:
			names := make([]string, 0, len(v))
			for name := range v {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if s, isString := v[name].(string); isString && secretOption(name, s) {
					delete(v, name)
					dropped = append(dropped, path+"."+name)
					continue
				}
				v[name] = walk(path+"."+name, v[name])
			}
		case []any:
			kept := v[:0]
			for _, x := range v {
				if s, isString := x.(string); isString && secretOption("", s) {
					dropped = append(dropped, path+"[]")
					continue
				}
				kept = append(kept, walk(path+"[]", x))
			}
			return kept
		}
		return v
	}
	walk("pluginConfigs", configs)
	out, err := json.Marshal(configs)
	if err != nil {
		return nil, []string{"pluginConfigs"}
	}
	return out, dropped
}

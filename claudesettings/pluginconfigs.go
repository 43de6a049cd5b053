package claudesettings

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// secretOptionName is an option's name that says it holds a credential:
// a token, a secret, a password, a key, a login, a cookie, a JWT, a
// PIN, a one-time password's seed.
var secretOptionName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)token|secret|passw|key|auth|credential|cookie|session|private|pat$|dsn|webhook|jwt|^pin|pin$|passcode|otp$`)
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

// placeOptionName is an option's name that says its value is a place: a
// host, a site, a server, an endpoint.
var placeOptionName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)host|site|domain|server|endpoint|url|origin|instance`)
})

// quantityWords are the words of an option's name that say its number is
// a quantity: a port, a time, a count, a bound, a size.
var quantityWords = map[string]bool{
	"port": true, "ports": true, "timeout": true, "interval": true, "delay": true, "retry": true, "retries": true,
	"count": true, "max": true, "min": true, "limit": true, "size": true, "width": true, "height": true, "depth": true,
	"level": true, "threshold": true, "concurrency": true, "workers": true, "threads": true, "ms": true, "seconds": true,
	"minutes": true, "hours": true, "days": true, "percent": true, "ratio": true, "weight": true, "priority": true,
	"verbosity": true, "columns": true, "lines": true, "indent": true, "temperature": true, "version": true,
}

// quantityName says one of name's words (split at what is no letter and
// where a capital follows a small letter: timeout_ms, maxResults) is one
// of quantityWords: accounts is not count.
func quantityName(name string) bool {
	word := func(w string) bool { return quantityWords[strings.ToLower(w)] }
	start := 0
	for i, r := range name {
		switch {
		case !unicode.IsLetter(r):
			if word(name[start:i]) {
				return true
			}
			start = i + utf8.RuneLen(r)
		case unicode.IsUpper(r) && i > start && unicode.IsLower(rune(name[i-1])):
			if word(name[start:i]) {
				return true
			}
			start = i
		}
	}
	return word(name[start:])
}

// numberLeftOut says a plugin's number option, or a number in its list,
// may be a credential: one crosses only under a name that says a
// quantity, and none secretOption names (a PIN, a numeric password, an
// account's number saved as a number crossed by any other name).
func numberLeftOut(name string) bool {
	return secretOption(name, "") || !quantityName(name)
}

// hostName matches a host's name with its domain (db.internal.example.com,
// acme.atlassian.net:8443): labels of letters, digits and hyphens, the last
// of letters only.
var hostName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i)([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}(:[0-9]{1,5})?$`)
})

// optionLeftOut says a plugin's string option may hold a credential: a
// string is kept only when it is known to hold none, being empty, a path
// (/…, ~/…), a URL with no user, password, query or fragment and no
// segment that reads as a token, or a host's name given to an option
// named for a place; and none secretOption names. A free word is what a
// password is (db_pwd, passphrase, a TOTP seed, a PIN crossed when only
// names that said a credential were left out).
func optionLeftOut(name, value string) bool {
	if secretOption(name, value) {
		return true
	}
	switch {
	case value == "", strings.HasPrefix(value, "/"), strings.HasPrefix(value, "~/"):
		return strings.ContainsAny(value, "\n\r")
	case strings.Contains(value, "://"):
		return !plainURL(value)
	}
	return !placeOptionName().MatchString(name) || !hostName().MatchString(value)
}

// plainURL says s is a URL with a scheme and a host, and no user,
// password, query, fragment or path segment that reads as a token.
func plainURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "@?#\n\r ") {
		return false
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if tokenLike(seg) {
			return false
		}
	}
	return true
}

// commandSecret says a setting's string has a credential written in it
// as a command's text holds one (a permission rule's curl -u ci:…); not
// in a URL's login, which the copy takes out of the URL instead (a
// marketplace's token).
func commandSecret(_, value string) bool {
	v, _ := WithoutURLCredentials([]byte(value))
	return HasCommandCredential(v)
}

// pluginConfigsKept is a settings pluginConfigs block (a plugin's id →
// its options, and an MCP bundle's servers' settings: Claude Code keeps
// there what a plugin's manifest does not mark sensitive, a token a
// plugin asked for unmarked among it) without the strings and numbers
// that may hold a credential (optionLeftOut, numberLeftOut), at any
// depth, and what it left
// out, by path, never its value: nil and "pluginConfigs" for a block
// that is not an object.
func pluginConfigsKept(raw json.RawMessage) (json.RawMessage, []string) {
	var configs map[string]any
	if decode(raw, &configs) != nil || configs == nil {
		return nil, []string{"pluginConfigs"}
	}
	var dropped []string
	out, err := json.Marshal(stringsKept("pluginConfigs", "", configs, optionLeftOut, numberLeftOut, &dropped))
	if err != nil {
		return nil, []string{"pluginConfigs"}
	}
	return out, dropped
}

// settingKept is the setting key's value without the strings that have a
// credential written in them as a command's text does (commandSecret),
// at any depth, and what it left out, by path: nil when the value itself
// is such a string, or cannot be read.
func settingKept(key string, raw json.RawMessage) (json.RawMessage, []string) {
	var v any
	if decode(raw, &v) != nil {
		return nil, []string{key}
	}
	if s, isString := v.(string); isString && commandSecret(key, s) {
		return nil, []string{key}
	}
	var dropped []string
	out, err := json.Marshal(stringsKept(key, key, v, commandSecret, nil, &dropped))
	if err != nil {
		return nil, []string{key}
	}
	return out, dropped
}

// decode reads JSON into v, numbers as written.
func decode(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// stringsKept is v, at path, under the option name, without the strings
// secret says may hold a credential (by the name they are given, "" in a
// list, and their value) and the numbers numberLeftOut says may be one
// (by the name they or their list are given; nil keeps every number),
// each named in dropped by its path.
func stringsKept(path, name string, v any, secret func(name, value string) bool, numberLeftOut func(name string) bool, dropped *[]string) any {
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			s, isString := v[name].(string)
			_, isNumber := v[name].(json.Number)
			if isString && secret(name, s) || isNumber && numberLeftOut != nil && numberLeftOut(name) {
				delete(v, name)
				*dropped = append(*dropped, path+"."+name)
				continue
			}
			v[name] = stringsKept(path+"."+name, name, v[name], secret, numberLeftOut, dropped)
		}
	case []any:
		kept := v[:0]
		for _, x := range v {
			s, isString := x.(string)
			_, isNumber := x.(json.Number)
			if isString && secret("", s) || isNumber && numberLeftOut != nil && numberLeftOut(name) {
				*dropped = append(*dropped, path+"[]")
				continue
			}
			kept = append(kept, stringsKept(path+"[]", name, x, secret, numberLeftOut, dropped))
		}
		return kept
	}
	return v
}

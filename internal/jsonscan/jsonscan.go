// Package jsonscan walks JSON without decoding it: it finds where each
// value ends by scanning for quotes and brackets, so skipping a large value
// (a transcript's tool output, ~/.claude.json's project entries) costs a
// search, not a parse. It never panics on malformed input; a walk stops at
// the first thing that is not well formed.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// shortString is how many of a string's bytes SkipString looks at one by
// one before it searches for its end.
const shortString = 16

// SkipString returns the index after the string starting at b[i], or -1.
func SkipString(b []byte, i int) int {
	// Most strings (keys, identifiers, flags' values) are short, and a
	// search costs more to set up than their bytes do to look at.
	j := i + 1
	for end := min(j+shortString, len(b)); j < end; j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	for {
		if j >= len(b) {
			return -1
		}
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// A quote preceded by an odd number of backslashes is escaped.
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// SkipValue returns the index after the value starting at b[i], or -1.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = SkipString(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// Object walks the object starting at b[i]: it calls fn with each
// member's key as it stands in b (quoted, its escapes undecoded) and the
// index where its value starts, and fn returns the index just after that
// value (SkipValue's, or where its own walk of the value ended), or -1 to
// stop. Object returns the index just after the object, or -1 if b holds
// there no object it can walk to its end. A walk into a value, in place
// of SkipValue, reads each byte once: a large value (~/.claude.json's
// projects) is not searched for its end first and then walked again.
func Object(b []byte, i int, fn func(quoted []byte, value int) int) int {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		end := SkipString(b, i)
		if end < 0 {
			return -1
		}
		quoted := b[i:end]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = fn(quoted, SkipSpace(b, i+1)); i < 0 {
			return -1
		}
		i = SkipSpace(b, i)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = SkipSpace(b, i+1)
	}
}

// Key is the key an object's member's quoted bytes (Object's) spell, its
// escapes decoded; false if they do not decode.
func Key(quoted []byte) (string, bool) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), true
	}
	var key string
	return key, json.Unmarshal(quoted, &key) == nil
}

// Members calls fn with each key of the object b (escapes decoded) and its
// value's bytes; false if b is not an object it can walk to its end.
func Members(b []byte, fn func(key string, value []byte)) bool {
	return Object(b, 0, func(quoted []byte, i int) int {
		key, ok := Key(quoted)
		if !ok {
			return -1
		}
		end := SkipValue(b, i)
		if end >= 0 {
			fn(key, b[i:end])
		}
		return end
	}) >= 0
}

// Elements calls fn with each element of the array b; false if b is not
// an array it can walk to its end.
func Elements(b []byte, fn func(value []byte)) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		end := SkipValue(b, i)
		if end < 0 {
			return false
		}
		fn(b[i:end])
		i = SkipSpace(b, end)
		if i < len(b) && b[i] == ']' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

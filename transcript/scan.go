package transcript

import (
	"bytes"
	"encoding/json"
)

// The first pass needs a dozen small fields of each record, and most of a
// transcript's bytes are in strings it does not need (tool results, file
// contents). encoding/json would scan each line twice at a few hundred
// MB/s; this scanner finds the fields' values and skips every other string
// with bytes.IndexByte. It never panics on malformed input: a record it
// cannot walk is skipped like one that is not JSON.

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that opens at b[i],
// or -1.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// skipValue returns the index just past the value that starts at b[i], or
// -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\r' && b[i] != '\t' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// fields calls fn with each key of the object b (whitespace around it
// allowed) and its value's bytes; false if b is not an object it can
// walk.
func fields(b []byte, fn func(key string, value []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return false
		}
		if bytes.IndexByte(key, '\\') < 0 {
			fn(string(key), b[i:vend])
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == '}' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// elements calls fn with each element of the array b.
func elements(b []byte, fn func(value []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		end := skipValue(b, i)
		if end < 0 {
			return false
		}
		fn(b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ']' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
}

// scanHead fills h from the record line, as json.Unmarshal would for the
// fields the first pass reads; false if the line is not a record.
func scanHead(line []byte, h *head) bool {
	ok := true
	str := func(v []byte, into *string) {
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, into) != nil {
			ok = false
		}
	}
	flag := func(v []byte, into *bool) { *into = string(v) == "true" }
	walked := fields(line, func(key string, v []byte) {
		switch key {
		case "type":
			str(v, &h.Type)
		case "uuid":
			str(v, &h.UUID)
		case "parentUuid":
			if v[0] == '"' {
				var p string
				str(v, &p)
				h.ParentUUID = &p
			}
		case "logicalParentUuid":
			str(v, &h.LogicalParentUUID)
		case "isSidechain":
			flag(v, &h.IsSidechain)
		case "isMeta":
			flag(v, &h.IsMeta)
		case "isCompactSummary":
			flag(v, &h.IsCompactSummary)
		case "timestamp":
			str(v, &h.Timestamp)
		case "version":
			str(v, &h.Version)
		case "gitBranch":
			str(v, &h.GitBranch)
		case "summary":
			str(v, &h.Summary)
		case "aiTitle":
			str(v, &h.AITitle)
		case "customTitle":
			str(v, &h.CustomTitle)
		case "message":
			fields(v, func(key string, v []byte) {
				switch key {
				case "id":
					str(v, &h.Message.ID)
				case "model":
					str(v, &h.Message.Model)
				case "usage":
					json.Unmarshal(v, &h.Message.Usage)
				case "content":
					h.Message.Content.scan(v)
				}
			})
		}
	})
	return walked && ok
}

// scan classifies a user message's content as promptClass's UnmarshalJSON
// does, skipping the blocks that are not text.
func (p *promptClass) scan(v []byte) {
	if v[0] == '"' {
		p.prompt = true
		json.Unmarshal(v, &p.preview)
		return
	}
	elements(v, func(el []byte) {
		var typ string
		var text []byte
		fields(el, func(key string, v []byte) {
			switch key {
			case "type":
				json.Unmarshal(v, &typ)
			case "text":
				text = v
			}
		})
		if typ == "text" {
			p.prompt = true
			if p.preview == "" && text != nil {
				json.Unmarshal(text, &p.preview)
			}
		}
	})
}

// unquote decodes the JSON string raw (quotes included) as encoding/json
// would, copying runs without escapes whole; false if raw is not one.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s), true
	}
	out := make([]byte, 0, len(s))
	for {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return string(append(out, s...)), true
		}
		out = append(out, s[:i]...)
		if i+1 >= len(s) {
			return "", false
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			// Rare: let encoding/json handle surrogates and bad escapes.
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return "", false
			}
			return v, true
		default:
			return "", false
		}
		s = s[i+2:]
	}
}

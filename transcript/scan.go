package transcript

import (
	"bytes"
	"encoding/json"

	"github.com/claudebox/claudebox/internal/jsonscan"
)

// The first pass needs a dozen small fields of each record, and most of a
// transcript's bytes are in strings it does not need (tool results, file
// contents). encoding/json would scan each line twice at a few hundred
// MB/s; jsonscan finds the fields' values and skips every other string
// with bytes.IndexByte. It never panics on malformed input: a record it
// cannot walk is skipped like one that is not JSON.

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
	walked := jsonscan.Members(line, func(key string, v []byte) {
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
			jsonscan.Members(v, func(key string, v []byte) {
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
	jsonscan.Elements(v, func(el []byte) {
		var typ string
		var text []byte
		jsonscan.Members(el, func(key string, v []byte) {
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

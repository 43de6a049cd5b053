package instance

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzMergeClaudeJSON: whatever the sandbox left in its claude.json, the
// merge returns a JSON object that holds the carried keys and the host's
// trust decisions, keeps every other key of the sandbox's object as it was,
// is stable (a second merge changes nothing), and is not much larger than
// what the sandbox wrote: a launch must not amplify it.
func FuzzMergeClaudeJSON(f *testing.F) {
	for _, s := range []string{
		"", "null", "[1,2", `{"theme":"light","numStartups":7}`,
		`{"projects":{"/p":{"allowedTools":["Bash"]}},"x":{"y":[1,{"z":null}]}}`,
		`{"projects":"x","theme":1}`, `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"a":1,"a":2}`, `{"proj\u0065cts":{"/p":{"hasTrustDialogAccepted":false}}}`,
	} {
		f.Add([]byte(s))
	}
	trustPaths := []string{"/p", "/q"}
	c := carried{
		Keys:    map[string]json.RawMessage{"theme": json.RawMessage(`"dark"`), "userID": json.RawMessage(`"u"`)},
		Trusted: map[string]bool{"/p": true, "/q": false},
	}
	f.Fuzz(func(t *testing.T, sandbox []byte) {
		out, changed, err := mergeClaudeJSON(c, sandbox, trustPaths)
		if err != nil {
			t.Fatal(err)
		}
		if !changed && !bytes.Equal(out, sandbox) {
			t.Fatal("unchanged, but not the sandbox's copy")
		}
		if limit := 2*len(sandbox) + 1024; len(out) > limit {
			t.Fatalf("%d bytes out of %d", len(out), len(sandbox))
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil || got == nil {
			t.Fatalf("not a JSON object: %v\n%s", err, out)
		}
		for k, v := range c.Keys {
			if !jsonEqual(got[k], v) {
				t.Fatalf("%s = %s, want %s", k, got[k], v)
			}
		}
		var projects map[string]map[string]json.RawMessage
		if err := json.Unmarshal(got["projects"], &projects); err != nil || !jsonEqual(projects["/p"]["hasTrustDialogAccepted"], json.RawMessage("true")) {
			t.Fatalf("/p is not trusted: %s", got["projects"])
		}
		var before map[string]json.RawMessage
		if json.Unmarshal(sandbox, &before) == nil {
			for k, v := range before {
				if _, carriedKey := c.Keys[k]; !carriedKey && k != "projects" && k != mcpServersKey && !jsonEqual(got[k], v) {
					t.Fatalf("%s: %s became %s", k, v, got[k])
				}
			}
		}
		if again, changed, err := mergeClaudeJSON(c, out, trustPaths); err != nil || changed {
			t.Fatalf("a second merge changes it: %v\n%s\n%s", err, out, again)
		}
	})
}

// FuzzCarriedKeys: on any host file that is well-formed JSON without
// repeated keys, the scan that skips values unparsed carries exactly what
// encoding/json reads there; on any other, it carries only valid JSON.
func FuzzCarriedKeys(f *testing.F) {
	for _, s := range []string{
		`{"theme":"dark","projects":{"/p":{"hasTrustDialogAccepted":true}}}`,
		`{"th\u0065me" : [1, "]", {"a":"\"}"}], "userID":"x\\"}`, `{"projects":{"/p":{"hasTrustDialogAccepted":tru}}}`,
		` { "projects" : { "/p" : { "x" : 1 , "hasTrustDialogAccepted" : true } } } `, `{"theme":1e5,"userID":-0.5}`,
	} {
		f.Add([]byte(s))
	}
	paths := []string{"/p", "/q"}
	f.Fuzz(func(t *testing.T, host []byte) {
		keys, trusted := carriedKeys(host, paths)
		for k, v := range keys {
			if !json.Valid(v) {
				t.Fatalf("%s carries %q", k, v)
			}
		}
		if !json.Valid(host) || repeatsKeys(host) {
			return
		}
		var top map[string]json.RawMessage
		json.Unmarshal(host, &top)
		for _, k := range identityKeys {
			if v, ok := top[k]; ok != (keys[k] != nil) || ok && !jsonEqual(v, keys[k]) {
				t.Fatalf("%s: carried %s, encoding/json reads %s", k, keys[k], v)
			}
		}
		var projects map[string]map[string]json.RawMessage
		json.Unmarshal(top["projects"], &projects)
		for _, p := range paths {
			if want := jsonEqual(projects[p]["hasTrustDialogAccepted"], json.RawMessage("true")); trusted[p] != want {
				t.Fatalf("%s: trusted %v, encoding/json reads %v", p, trusted[p], want)
			}
		}
	})
}

// repeatsKeys reports whether some object in the well-formed JSON b names
// a key twice, where readers may differ on which one counts.
func repeatsKeys(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: tok == '{', keys: map[string]bool{}, key: true})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.key {
				if top.keys[tok] {
					return true
				}
				top.keys[tok] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}

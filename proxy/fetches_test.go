package proxy

import "testing"

// fetches finds what has the API reach a URL, however the JSON spells it,
// and passes what Claude Code sends.
func TestFetches(t *testing.T) {
	for body, refused := range map[string]bool{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi \"type\":\"url\" mcp_servers"}]}]}`: false,
		`{"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],"messages":[]}`:          false,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA=="}}]}]}`:                           false,
		`{"mcp_servers":[]}`:                                                                              true,
		`{"m\u0063p_servers":[{"url":"https://x"}]}`:                                                      true,
		`{"mcp_servers":[{"url":"https://x"}],"mcp_servers":[]}`:                                          true,
		`{"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`:                                    true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"url","url":"https://x/?d=1"}}]}]}`: true,
		`{"messages":[{"content":[{"type":"image","source":{"url":"https://x","type":"\u0075rl"}}]}]}`:    true,
		`{"a":{"b":[1,{"c":null,"type":"url"}]}}`:                                                         true,
		`{"a":{"type":"urls"},"b":"url","type":["url"]}`:                                                  false,
	} {
		if got := fetches([]byte(body)) != nil; got != refused {
			t.Errorf("fetches(%s) refused = %v, want %v", body, got, refused)
		}
	}
}

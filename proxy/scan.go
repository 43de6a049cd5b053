package proxy

import (
	"io"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads a request body's JSON a byte at a time, as strictly as
// RFC 8259 writes it (a body an API's lenient parser would read otherwise
// is refused), and checks each key and value where it stands. Keys are
// compared as the most lenient of the APIs' parsers reads them: escapes
// decoded, without regard to ASCII case, underscores ignored (Google's
// reads fileData and file_data alike); a key given twice is checked each
// time.
type scanner struct {
	shape apiShape
	// keys are the top-level keys that pass; nil: any.
	keys []string
	// projects, where not nil, says a Google Cloud project a Code Assist
	// call names may be named.
	projects func(string) bool
	state    scanState
	stack    []frame
	// str is the string being read: what of it is decoded so far (up to
	// maxNoted bytes), whether it is a key, and where an escape stands.
	str      []byte
	long     bool
	isKey    bool
	esc      int // 0: none; 1: after \; 2-5: in \uXXXX
	hex      rune
	surr     rune // a high surrogate waiting for its low half
	word     []byte
	wordWant string
	// The root's closing brace goes on only at the end, once the whole
	// body passed, and so does the whitespace after it (counted:
	// whitespace is all alike).
	trailing int64
}

type scanState uint8

const (
	sStart      scanState = iota // before the root object
	sValue                       // a value is next
	sValueOrEnd                  // a value or ] is next (after [)
	sKey                         // a key is next (after ,)
	sKeyOrEnd                    // a key or } is next (after {)
	sColon                       // : is next
	sAfter                       // , or the container's end is next
	sString
	sWord   // true, false, null
	sNumber // -, digits, ., e, E, +
	sDone   // the root closed: whitespace only
)

// place is where a value stands, for the rules that apply there.
type place uint8

const (
	free           place = iota // no rule: a schema, a setting, a tool's text
	anthMessage                 // the Messages API: every key and type, at any depth
	anthTurns                   // the request's messages: each is anthTurn
	anthTurn                    // a message: as anthMessage, and its content anthBlocks
	anthBlocks                  // a message's, the system prompt's or a block's content: each is anthTypedBlock
	anthTypedBlock              // a content block: as anthBlock, and its type a known one
	anthContent                 // a content array elsewhere (a tool's input): its blocks are anthBlock
	anthBlock                   // a content block: as anthMessage, and its source
	anthSource                  // a content block's source: its content given inline
	anthTools                   // the request's tools: each is anthTool
	anthTool                    // a tool: as anthMessage, and its type a known one
	anthSafeguards              // the request's safeguards: each is anthSafeguard
	anthSafeguard               // a safeguard: as anthMessage, and its type a known one
	anthToolChange              // a tool added or removed mid-conversation: a definition (anthTool) or a reference
	anthMetadata                // the request's metadata: only user_id
	oaRoot
	oaTools // an array of tools
	oaTool
	oaInput          // the input items, and everything in them
	oaClientMetadata // Codex's description of its call: only known keys
	gRoot
	gTools
	gTool
	gContent  // contents and the system instruction, and everything in them
	gMetadata // Code Assist's client metadata
	gLabels   // a model call's labels: none
)

// valueRule is what a member's value must be, by its key.
type valueRule uint8

const (
	anyValue     valueRule = iota
	typeName               // a type: checked by place
	dataURL                // OpenAI's image_url: inline data, never a URL
	webAccess              // OpenAI's external_web_access: made false
	cloudProject           // a Google Cloud project Code Assist bills and logs the call in
)

type frame struct {
	object bool
	place  place
	// key is the current member's key, normalised; rule its value's.
	key  string
	rule valueRule
	// For an OpenAI tool: its type, and whether its live web access was
	// turned off.
	toolType      string
	sawType       bool
	webAccessSaid bool
}

// normalKey is a key as the check compares it.
func normalKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(k), "_", "")
}

func (s *scanner) top() *frame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// inConversation says the value now scanned stands in a Messages API
// request's messages or system prompt.
func (s *scanner) inConversation() bool {
	return s.shape == messagesAPI && len(s.stack) > 1 && (s.stack[0].key == "messages" || s.stack[0].key == "system")
}

// valuePlace is the place and rule of the value that starts now.
func (s *scanner) valuePlace() (place, valueRule) {
	f := s.top()
	if f == nil {
		return map[apiShape]place{messagesAPI: anthMessage, responsesAPI: oaRoot, geminiAPI: gRoot}[s.shape], anyValue
	}
	if !f.object {
		return elementOf(f.place), anyValue
	}
	switch f.place {
	case anthMessage, anthTurn, anthTypedBlock, anthBlock, anthSource, anthTool, anthSafeguard, anthToolChange:
		// A content source's content is blocks too, whose sources are
		// checked as any block's, and so is the system prompt. The
		// blocks of a message, of the system prompt and within them are
		// of the known types; content elsewhere (a tool's input) is the
		// tool's own. A tool added mid-conversation (a system turn's
		// tool_addition block, a compaction's tool_changes) is checked as
		// the request's tools are: the API runs it as one.
		block := f.place == anthBlock || f.place == anthTypedBlock
		switch {
		case f.key == "messages" && len(s.stack) == 1:
			return anthTurns, f.rule
		case f.key == "system" && len(s.stack) == 1,
			f.key == "content" && (f.place == anthTurn || f.place == anthTypedBlock || f.place == anthSource),
			f.key == "toolchanges" && f.place == anthTypedBlock:
			return anthBlocks, f.rule
		case f.key == "content", f.key == "toolchanges" && f.place == anthBlock:
			return anthContent, f.rule
		case f.key == "source" && block:
			return anthSource, f.rule
		case f.key == "tool" && block:
			return anthToolChange, f.rule
		case f.key == "definition" && f.place == anthToolChange:
			return anthTool, f.rule
		case f.key == "tools" && len(s.stack) == 1:
			return anthTools, f.rule
		case f.key == "safeguards" && len(s.stack) == 1:
			return anthSafeguards, f.rule
		case f.key == "metadata" && len(s.stack) == 1:
			return anthMetadata, f.rule
		}
		return anthMessage, f.rule
	case oaInput, gContent:
		return f.place, f.rule
	case oaRoot:
		switch f.key {
		case "tools":
			return oaTools, anyValue
		case "input":
			return oaInput, anyValue
		case "clientmetadata":
			return oaClientMetadata, anyValue
		}
	case oaTool:
		if f.key == "tools" {
			return oaTools, anyValue
		}
		return free, f.rule
	case gRoot:
		switch f.key {
		case "tools":
			return gTools, anyValue
		case "request":
			return gRoot, anyValue
		case "contents", "systeminstruction":
			return gContent, anyValue
		case "metadata":
			return gMetadata, anyValue
		case "labels":
			return gLabels, anyValue
		}
	}
	return free, anyValue
}

// elementOf is the place of an element of a list at p (p itself where
// p is no list's). An object where a list belongs stands there too:
// Google's parser reads it as a list of one (its own examples send
// "contents": {"parts": {"text": …}}), and "tools": {"url_context": {}}
// turned on the tool a list of it was refused.
func elementOf(p place) place {
	switch p {
	case anthTurns:
		return anthTurn
	case anthBlocks:
		return anthTypedBlock
	case anthContent:
		return anthBlock
	case anthTools:
		return anthTool
	case anthSafeguards:
		return anthSafeguard
	case oaTools:
		return oaTool
	case gTools:
		return gTool
	}
	return p
}

// onKey checks a member's key where it stands, and sets its value's rule.
func (s *scanner) onKey(f *frame, raw string) error {
	k := normalKey(raw)
	if s.long {
		k = "\x00long"
	}
	f.key, f.rule = k, anyValue
	switch f.place {
	case anthMessage, anthTurn, anthTypedBlock, anthBlock, anthTool, anthSafeguard, anthToolChange:
		switch k {
		case "mcpservers":
			return &refusal{what: "mcp_servers (the API's servers would connect to the MCP servers it names)"}
		case "type":
			f.rule = typeName
		case "fileid":
			// A code execution's output names the files it made by
			// id, and Claude Code sends them back as answered; the API
			// reads what a block names for the key, another stored file
			// as well. Claude Code declares no code execution tool.
			if f.place == anthTypedBlock {
				return &refusal{what: "a stored file by its id (file_id)"}
			}
		}
		if len(s.stack) == 1 {
			return s.requestKey(k, raw)
		}
		if f.place == anthSafeguard || f.place == anthSafeguards && f.object {
			if !knownKey(safeguardKeys, k) {
				return &refusal{what: "the safeguard key " + quote(printableNote(raw)) + " (only those Claude Code sends pass: " + strings.Join(safeguardKeys, ", ") + ")"}
			}
		}
	case oaRoot:
		return s.requestKey(k, raw)
	case oaClientMetadata:
		if !knownKey(clientMetadataKeys, k) {
			return &refusal{what: "the client_metadata key " + quote(printableNote(raw)) + " (only those Codex sends pass: " + strings.Join(clientMetadataKeys, ", ") + ")"}
		}
	case anthMetadata:
		// Claude Code sends only the user's id (measured), which the API
		// reads to tell abuse apart; what else a key would ask of the
		// API is unknown.
		if k != "userid" {
			return &refusal{what: "the metadata key " + quote(printableNote(raw)) + " (only user_id passes)"}
		}
	case anthSource:
		// A source of an inline type names no URL or file beside it
		// either: what the API makes of one naming both is its own.
		switch k {
		case "type":
			f.rule = typeName
		case "mediatype", "data", "content":
		case "fileid":
			return &refusal{what: "a stored file by its id (file_id)"}
		default:
			return &refusal{what: "a source with the key " + quote(printableNote(raw)) + " (only content given inline passes: type, media_type, data, content)"}
		}
	case oaTool:
		switch k {
		case "type":
			f.rule = typeName
		case "externalwebaccess":
			f.rule = webAccess
		}
	case oaInput:
		switch k {
		case "imageurl":
			f.rule = dataURL
		case "fileurl":
			return &refusal{what: "a file by URL (file_url: the API's servers would fetch it)"}
		case "fileid":
			return &refusal{what: "a stored file by its id (file_id)"}
		case "serverurl", "connectorid":
			return &refusal{what: "a remote MCP server (" + printableNote(raw) + ")"}
		}
	case gRoot:
		switch k {
		case "cachedcontent":
			return &refusal{what: "a cached content by name (" + printableNote(raw) + ": the API would read what is stored under it, tools and files included)"}
		case "project", "cloudaicompanionproject":
			f.rule = cloudProject
		}
		return s.requestKey(k, raw)
	case gLabels:
		// Vertex AI adds a call's labels to the billing of the project
		// that pays; gemini-cli's request has the key, which it never
		// fills.
		return &refusal{what: "the label " + quote(printableNote(raw)) + " (Gemini CLI sends none)"}
	case gMetadata:
		if k == "duetproject" {
			f.rule = cloudProject
		}
	case gTool:
		switch k {
		case "functiondeclarations", "googlesearch":
		default:
			return &refusal{what: "the tool " + quote(printableNote(raw)) + " (the API's servers would fetch, run or read for it; only function declarations and Google Search pass)"}
		}
	case gContent:
		switch k {
		case "filedata", "fileuri":
			return &refusal{what: "a file by URI (" + printableNote(raw) + ": the API's servers would read or fetch it)"}
		}
	}
	return nil
}

// onString checks a string value by its member's rule.
func (s *scanner) onString(f *frame, v string) error {
	if f == nil || !f.object {
		return nil
	}
	switch f.rule {
	case typeName:
		t := strings.ToLower(v)
		if s.long {
			t = "\x00long"
		}
		if f.place == anthTool {
			if knownTool(t) {
				return nil
			}
			return &refusal{what: "a tool of type " + quote(printableNote(v)) + " (the API's servers would run it, and only the tools known to reach nothing outside pass: custom, " + strings.Join(knownToolFamilies, ", ") + ")"}
		}
		if f.place == anthToolChange {
			if t == "tool_definition" || t == "tool_reference" {
				return nil
			}
			return &refusal{what: "a tool change of type " + quote(printableNote(v)) + " (only a tool's definition, checked as the request's tools are, or a reference to one passes: tool_definition, tool_reference)"}
		}
		if f.place == anthSafeguard {
			if t == "dangerous_tool_use" {
				return nil
			}
			return &refusal{what: "a safeguard of type " + quote(printableNote(v)) + " (only dangerous_tool_use, the check of auto mode's actions, passes)"}
		}
		if f.place == anthTypedBlock && !slices.Contains(knownBlockTypes, t) {
			return &refusal{what: "a content block of type " + quote(printableNote(v)) + " (only the blocks Claude Code is known to send, or to get from the API and send back, pass; a newer Claude Code's new one may be refused until claudebox knows it)"}
		}
		switch f.place {
		case anthMessage, anthTurn, anthTypedBlock, anthBlock:
			if t == "url" || strings.HasPrefix(t, "web_fetch") {
				return &refusal{what: "a source or tool of type " + quote(printableNote(v)) + " (the API's servers would fetch a URL)"}
			}
			if t == "container_upload" {
				return &refusal{what: "a block of type " + quote(printableNote(v)) + " (the API's servers would read a stored file)"}
			}
			return nil
		}
		if f.place == anthSource {
			switch t {
			case "base64", "text", "content":
				return nil
			}
			return &refusal{what: "a source of type " + quote(printableNote(v)) + " (the API's servers would fetch it or read a stored file; only content given inline passes: base64, text, content)"}
		}
		// An OpenAI tool: the types Codex declares, which run on the
		// client (web_search made cached below).
		switch t {
		case "function", "custom", "namespace", "local_shell", "web_search":
			f.toolType, f.sawType = t, true
			return nil
		}
		return &refusal{what: "a tool of type " + quote(printableNote(v)) + " (the API runs it on its own servers: a remote MCP server, a fetch, stored files, code; only function, custom, namespace, local_shell and cached web_search tools pass)"}
	case dataURL:
		if !strings.HasPrefix(strings.ToLower(v), "data:") {
			return &refusal{what: "an image by URL (image_url: the API's servers would fetch it)"}
		}
	case webAccess:
		return &refusal{what: "web search with external_web_access " + quote(printableNote(v))}
	case cloudProject:
		if s.projects != nil && (s.long || !s.projects(v)) {
			return &refusal{what: "the Google Cloud project " + quote(printableNote(v)) + " (Code Assist keeps what a call sends in its project's logs, which the project's owner reads; only the project your host names, GOOGLE_CLOUD_PROJECT, or the one Google gave your login at the setup passes)"}
		}
	}
	return nil
}

// onWord checks true, false or null by its member's rule, and returns
// what goes on in its place: a tool's live web access is turned off,
// which leaves Codex's web search working from the provider's cache.
func (s *scanner) onWord(f *frame, w string) (string, error) {
	if f == nil || !f.object {
		return w, nil
	}
	switch f.rule {
	case typeName:
		if strictType(f.place) {
			return w, &refusal{what: "a tool, source or safeguard of type " + w}
		}
	case dataURL:
		return w, &refusal{what: "an image_url of " + w}
	case cloudProject:
		if s.projects != nil && w != "null" {
			return w, &refusal{what: "a Google Cloud project of " + w}
		}
	case webAccess:
		f.webAccessSaid = true
		if w == "true" {
			return "false", nil
		}
	}
	return w, nil
}

// strictType says a type at p passes only as a string from a known list.
func strictType(p place) bool {
	switch p {
	case oaTool, anthSource, anthTool, anthSafeguard, anthToolChange, anthTypedBlock:
		return true
	}
	return false
}

// onContainer checks an object or array that starts where a rule wants a
// string or a word.
func (s *scanner) onContainer(f *frame) error {
	if f == nil || !f.object {
		return nil
	}
	switch {
	case f.rule == dataURL:
		return &refusal{what: "an image_url that is not inline data (the API's servers would fetch it)"}
	case f.rule == webAccess, f.rule == typeName && strictType(f.place), f.rule == cloudProject && s.projects != nil:
		return errNotJSON
	}
	return nil
}

// onClose checks an object as it ends, and returns what goes before its
// brace: a web search tool that did not say how it reaches the web is
// told to use the cache (the API's default is live).
func (s *scanner) onClose(f *frame) (string, error) {
	if f.place != oaTool {
		return "", nil
	}
	if !f.sawType {
		return "", &refusal{what: "a tool without a type"}
	}
	if f.toolType == "web_search" && !f.webAccessSaid {
		return `,"external_web_access":false`, nil
	}
	return "", nil
}

// messagesKeys are the Messages API request's keys that pass: those
// Claude Code 2.1.330 sends (measured against a local listener, with an
// API key and with a login, in auto mode too: its safeguards ask the API
// to check each tool call before Claude Code runs it) and the sampling
// settings it may add. None reaches what the API stores for the key: a
// container (and the skills it names by id), MCP servers, and whatever
// the API adds next are refused.
var messagesKeys = []string{"model", "messages", "system", "max_tokens", "metadata", "stream", "thinking", "tools", "tool_choice", "temperature", "top_p", "top_k", "stop_sequences", "context_management", "output_config", "output_format", "speed", "safeguards"}

// knownBlockTypes are the content blocks that pass in a message, the
// system prompt and the blocks within them. Measured with Claude Code
// 2.1.330 against a local listener: what it sends itself (text, images
// and PDFs read, tool calls and results, a tool search's references) and
// what it sends back as the API answered it (thinking, server tools'
// calls and results, compaction), which is every type, an unknown one
// too: the list stands between the API's answers and the API. Read from
// its program: the advisor's results, a system turn's tool changes, a
// search result. The result and error shapes of the server tools that
// pass are the API's documented ones. Left out: what has the API fetch
// or read what it stores (web_fetch_tool_result, container_upload), MCP
// blocks (the request names no MCP server), and whatever comes next.
var knownBlockTypes = []string{
	"text", "image", "document", "search_result", "tool_use", "tool_result", "tool_reference",
	"thinking", "redacted_thinking", "compaction", "tool_addition", "tool_removal", "server_tool_use",
	"web_search_tool_result", "web_search_result", "web_search_tool_result_error",
	"code_execution_tool_result", "code_execution_result", "code_execution_output", "code_execution_tool_result_error",
	"bash_code_execution_tool_result", "bash_code_execution_result", "bash_code_execution_output", "bash_code_execution_tool_result_error",
	"text_editor_code_execution_tool_result", "text_editor_code_execution_view_result", "text_editor_code_execution_create_result",
	"text_editor_code_execution_str_replace_result", "text_editor_code_execution_tool_result_error",
	"tool_search_tool_result", "tool_search_tool_search_result", "tool_search_tool_result_error",
	"advisor_tool_result", "advisor_result", "advisor_redacted_result", "advisor_tool_result_error",
}

// safeguardKeys are a safeguard's keys that pass: those Claude Code
// 2.1.330 sends (its type, the context the check reads, the project's
// CLAUDE.md), checked as the messages are. What else the API may take
// there, a check's own model or where it reports, is refused.
var safeguardKeys = []string{"type", "classifier_context", "claude_md"}

// responsesKeys are the Responses API request's keys that pass: those
// codex-cli 0.169.0 sends over HTTP (measured), for its own API key and
// the ChatGPT login alike. The state the API stores for the key, a
// previous response, a conversation, a prompt by its id, is refused.
var responsesKeys = []string{"model", "instructions", "input", "tools", "tool_choice", "parallel_tool_calls", "reasoning", "store", "stream", "stream_options", "include", "service_tier", "prompt_cache_key", "prompt_cache_options", "text", "client_metadata"}

// clientMetadataKeys are the keys of the Responses API request's
// client_metadata that pass: those codex-cli 0.169.0 sends (measured,
// with a key and the ChatGPT login: its conversation's ids and its
// installation's), and the subagent's and window's, which its headers
// carry too. The API reads the others as it likes: a routing override
// among its headers chooses the account a call goes to.
var clientMetadataKeys = []string{"root_turn_id", "session_id", "thread_id", "turn_id", "x-codex-installation-id", "x-codex-turn-metadata", "x-codex-window-id", "x-codex-parent-thread-id", "x-openai-subagent"}

// geminiKeys are the keys that pass in a Gemini model call and in the
// request Code Assist wraps: those gemini-cli 0.61.0 sends with an API
// key (measured) and through Code Assist (its request's shape), but the
// cached content, refused by name. Code Assist's other calls (its setup,
// quotas, metrics) are no model call, and keep their own keys.
var geminiKeys = []string{"contents", "systemInstruction", "tools", "toolConfig", "safetySettings", "generationConfig", "labels", "session_id", "model", "project", "user_prompt_id", "request", "enabled_credit_types"}

// requestKeys are the top-level keys that pass in a model call of each
// API (none for a call that is no model call).
func requestKeys(shape apiShape) []string {
	switch shape {
	case messagesAPI:
		return messagesKeys
	case responsesAPI:
		return responsesKeys
	case geminiAPI:
		return geminiKeys
	}
	return nil
}

// requestKey refuses a request's key (normalised: k) its API's list does
// not know; s.keys is nil where the call is no model call.
func (s *scanner) requestKey(k, raw string) error {
	if s.keys == nil || knownKey(s.keys, k) {
		return nil
	}
	return &refusal{what: "the request key " + quote(printableNote(raw)) + " (only the keys known to reach no state stored with the API pass: " + strings.Join(s.keys, ", ") + ")"}
}

// knownKey says the normalised key k is one of keys.
func knownKey(keys []string, k string) bool {
	return slices.ContainsFunc(keys, func(known string) bool { return normalKey(known) == k })
}

// knownToolFamilies are the Messages API's tools, besides the client's own
// (custom, or no type), that reach nothing outside: web search (Claude
// Code's WebSearch asks the API for it), the advisor (another model's
// advice, which Claude Code 2.1.330 asks for with advisorModel set), code
// execution (a container without network), and the tools the client runs
// (bash, the text editor, computer use, memory) or that search its own
// tool list. Each is named with its version's date: a new version of one
// passes, a new tool does not.
var knownToolFamilies = []string{"web_search", "advisor", "code_execution", "bash", "text_editor", "computer", "memory", "tool_search_tool_regex", "tool_search_tool_bm25"}

// knownTool says t (lower case) is a Messages API tool type known to
// reach nothing outside: custom, or a known family and an 8-digit date.
func knownTool(t string) bool {
	if t == "custom" {
		return true
	}
	i := strings.LastIndexByte(t, '_')
	if i < 0 || len(t)-i-1 != 8 || !slices.Contains(knownToolFamilies, t[:i]) {
		return false
	}
	for _, c := range t[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// printableNote is a name from the body as a message may show it.
func printableNote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '"' || r == '\\' || r == utf8.RuneError {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// feed scans p, appending to out what passes, and stops at the first
// refusal.
func (s *scanner) feed(out, p []byte) ([]byte, error) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch s.state {
		case sString:
			// Most of a body is the text of its strings: a run without
			// quote, backslash or control character goes on at once.
			if s.esc == 0 {
				j := i
				for j < len(p) && p[j] != '"' && p[j] != '\\' && p[j] >= 0x20 {
					j++
				}
				if j > i {
					s.noteRaw(p[i:j])
					out = append(out, p[i:j]...)
					i = j - 1
					continue
				}
			}
			if err := s.stringByte(c); err != nil {
				return out, err
			}
			out = append(out, c)
			if s.state != sString {
				if err := s.endString(); err != nil {
					return out, err
				}
			}
			continue
		case sWord:
			s.word = append(s.word, c)
			if !strings.HasPrefix(s.wordWant, string(s.word)) {
				return out, errNotJSON
			}
			if len(s.word) == len(s.wordWant) {
				w, err := s.onWord(s.top(), s.wordWant)
				if err != nil {
					return out, err
				}
				out = append(out, w...)
				s.state = sAfter
			}
			continue
		case sNumber:
			if c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
				out = append(out, c)
				continue
			}
			s.state = sAfter
		case sDone:
			if !isSpace(c) {
				return out, errNotJSON
			}
			s.trailing++
			continue
		}
		if isSpace(c) {
			out = append(out, c)
			continue
		}
		var err error
		out, err = s.structural(out, c)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// structural takes c outside a string, word or number.
func (s *scanner) structural(out []byte, c byte) ([]byte, error) {
	f := s.top()
	switch s.state {
	case sStart:
		if c != '{' {
			return out, errNotJSON
		}
		return s.open(out, c)
	case sKey, sKeyOrEnd:
		if c == '}' && s.state == sKeyOrEnd {
			return s.close(out, c)
		}
		if c != '"' {
			return out, errNotJSON
		}
		s.startString(true)
		return append(out, c), nil
	case sColon:
		if c != ':' {
			return out, errNotJSON
		}
		s.state = sValue
		return append(out, c), nil
	case sAfter:
		switch {
		case c == ',':
			if f.object {
				s.state = sKey
			} else {
				s.state = sValue
			}
			return append(out, c), nil
		case c == '}' && f.object, c == ']' && !f.object:
			return s.close(out, c)
		}
		return out, errNotJSON
	case sValue, sValueOrEnd:
		if c == ']' && s.state == sValueOrEnd {
			return s.close(out, c)
		}
		switch {
		case c == '{' || c == '[':
			if err := s.onContainer(f); err != nil {
				return out, err
			}
			return s.open(out, c)
		case c == '"':
			s.startString(false)
			return append(out, c), nil
		case c == 't' || c == 'f' || c == 'n':
			s.wordWant = map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
			s.word = append(s.word[:0], c)
			s.state = sWord
			return out, nil
		case c == '-' || c >= '0' && c <= '9':
			if f != nil && f.object && (f.rule == dataURL || f.rule == webAccess || f.rule == typeName && strictType(f.place)) {
				return out, errNotJSON
			}
			s.state = sNumber
			return append(out, c), nil
		}
	}
	return out, errNotJSON
}

// open starts an object or array.
func (s *scanner) open(out []byte, c byte) ([]byte, error) {
	if len(s.stack) >= maxDepth {
		return out, errNotJSON
	}
	p, _ := s.valuePlace()
	if c == '{' {
		p = elementOf(p)
	}
	s.stack = append(s.stack, frame{object: c == '{', place: p})
	s.state = sValueOrEnd
	if c == '{' {
		s.state = sKeyOrEnd
	}
	return append(out, c), nil
}

// close ends the innermost object or array; the root's brace is held.
func (s *scanner) close(out []byte, c byte) ([]byte, error) {
	f := s.top()
	if f.object {
		extra, err := s.onClose(f)
		if err != nil {
			return out, err
		}
		out = append(out, extra...)
	}
	s.stack = s.stack[:len(s.stack)-1]
	if len(s.stack) == 0 {
		s.state = sDone
		return out, nil
	}
	s.state = sAfter
	return append(out, c), nil
}

// end is the body's end: the held brace goes on once the body was one
// whole object (the whitespace after it is the caller's to add).
func (s *scanner) end(out []byte) ([]byte, error) {
	if s.state != sDone {
		return out, errNotJSON
	}
	return append(out, '}'), io.EOF
}

func (s *scanner) startString(key bool) {
	s.state, s.isKey, s.str, s.long, s.esc, s.surr = sString, key, s.str[:0], false, 0, 0
}

// note adds r to the decoded string, up to maxNoted bytes.
func (s *scanner) note(r rune) {
	if s.surr != 0 {
		hi := s.surr
		s.surr = 0
		if r2 := utf16.DecodeRune(hi, r); r2 != utf8.RuneError {
			r = r2
		} else {
			s.note(utf8.RuneError)
		}
	}
	if utf16.IsSurrogate(r) && r < 0xdc00 {
		s.surr = r
		return
	}
	if len(s.str)+utf8.RuneLen(r) > maxNoted {
		s.long = true
		return
	}
	s.str = utf8.AppendRune(s.str, r)
}

// stringByte takes one byte of a string, after its opening quote: of an
// escape, or a quote, backslash or control character.
func (s *scanner) stringByte(c byte) error {
	switch {
	case s.esc == 1:
		s.esc = 0
		switch c {
		case '"', '\\', '/':
			s.note(rune(c))
		case 'b':
			s.note('\b')
		case 'f':
			s.note('\f')
		case 'n':
			s.note('\n')
		case 'r':
			s.note('\r')
		case 't':
			s.note('\t')
		case 'u':
			s.esc, s.hex = 2, 0
		default:
			return errNotJSON
		}
	case s.esc >= 2:
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return errNotJSON
		}
		s.hex = s.hex<<4 | d
		if s.esc++; s.esc == 6 {
			s.esc = 0
			s.note(s.hex)
		}
	case c == '\\':
		s.esc = 1
	case c == '"':
		s.state = sAfter
		if s.isKey {
			s.state = sColon
		}
	case c < 0x20:
		return errNotJSON
	}
	// Other bytes come in runs, which feed gives noteRaw.
	return nil
}

// noteRaw adds raw bytes of a string to what is decoded of it. They are
// kept as they come: a key or name the check knows is ASCII, and bytes
// that are not ASCII match none of them.
func (s *scanner) noteRaw(b []byte) {
	if s.surr != 0 {
		s.surr = 0
		s.note(utf8.RuneError)
	}
	if room := maxNoted - len(s.str); len(b) > room {
		b, s.long = b[:max(room, 0)], true
	}
	s.str = append(s.str, b...)
}

// endString checks the string just closed, as a key or a value.
func (s *scanner) endString() error {
	if s.surr != 0 {
		s.surr = 0
		s.note(utf8.RuneError)
	}
	f := s.top()
	if s.isKey {
		return s.onKey(f, string(s.str))
	}
	return s.onString(f, string(s.str))
}

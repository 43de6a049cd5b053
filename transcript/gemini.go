package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/claudebox/claudebox/internal/jsonscan"
	"github.com/claudebox/claudebox/untrusted"
)

// Gemini CLI's chats (measured with 0.61.0), in the instance as its
// sessions bind them: agents/gemini/tmp/<project>/chats/session-<when>-<id>.jsonl.
// A chat is one JSON record a line: a header (sessionId, projectHash,
// startTime, lastUpdated, kind); messages (id, timestamp, type "user",
// "gemini", "info", "warning" or "error", content, and for gemini its
// thoughts, tokens, model and toolCalls, each with its args and result),
// a message written again under its id when it changes (its tool calls
// done); {"$set": {...}}, whose messages, when there, replace them all;
// {"$rewindTo": id}, which drops that message and those after it. They
// are hostile input like Claude's transcripts, and read the same way.
const geminiChats = "agents/gemini/tmp"

// eachGemini calls visit for each Gemini chat of the instance dir.
func eachGemini(dir string, visit func(found)) error {
	return untrusted.EachEntry(dir, geminiChats, func(p fs.DirEntry) {
		if !p.IsDir() {
			return
		}
		chats := path.Join(geminiChats, p.Name(), "chats")
		untrusted.EachEntry(dir, chats, func(f fs.DirEntry) {
			id, ok := geminiID(f.Name())
			if !ok || !f.Type().IsRegular() {
				return
			}
			if fi, err := f.Info(); err == nil {
				visit(found{path.Join(chats, f.Name()), id, fi.ModTime(), describeGemini})
			}
		})
	})
}

// geminiID is the id a chat is listed and exported by: "gemini-" and its
// file's name between "session-" and ".jsonl", when that is letters,
// digits and dashes (it names the --export-all file).
func geminiID(name string) (string, bool) {
	stem, ok := strings.CutSuffix(strings.TrimPrefix(name, "session-"), ".jsonl")
	if !ok || stem == "" || len(stem) > maxID || !strings.HasPrefix(name, "session-") {
		return "", false
	}
	for _, c := range stem {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return "", false
		}
	}
	return "gemini-" + stem, true
}

// isGemini says name is a Gemini chat's path in the instance.
func isGemini(name string) bool { return strings.HasPrefix(name, geminiChats+"/") }

// geminiRef is where one message of the chat is: its bytes in the file,
// a line of its own or an element of a line's messages.
type geminiRef struct {
	id   string
	off  int64
	size int
}

// geminiIndex is the first pass over a chat: its messages as Gemini CLI
// would load them, in order, by reference.
type geminiIndex struct {
	refs       []geminiRef
	start, end time.Time
	skipped    int
	lines      int // read
	capped     bool
}

// geminiHead is what the first pass reads of a record.
type geminiHead struct {
	ID        *string `json:"id"`
	Rewind    *string `json:"$rewindTo"`
	SessionID *string `json:"sessionId"`
	Set       *struct {
		Messages    *[]struct{ ID *string } `json:"messages"`
		LastUpdated string                  `json:"lastUpdated"`
	} `json:"$set"`
	Messages    []struct{ ID *string } `json:"messages"`
	StartTime   string                 `json:"startTime"`
	LastUpdated string                 `json:"lastUpdated"`
	Timestamp   string                 `json:"timestamp"`
}

// readGemini is the first pass.
func readGemini(f *os.File) (*geminiIndex, error) {
	ix := &geminiIndex{}
	pos := map[string]int{}
	put := func(r geminiRef) {
		if i, ok := pos[r.id]; ok {
			ix.refs[i] = r
			return
		}
		if len(ix.refs) >= maxRecords {
			ix.capped = true
			return
		}
		pos[r.id] = len(ix.refs)
		ix.refs = append(ix.refs, r)
	}
	// putAll puts the messages of the line at off, each by where its own
	// bytes are: a reading again decodes that message alone, not its line
	// (which, read for each message a chat's order alternates to, held a
	// listing for hours on a chat of kilobytes).
	putAll := func(off int64, line []byte, messages []struct{ ID *string }, spans [][2]int) {
		if len(spans) != len(messages) {
			ix.skipped++ // a line the two readings of JSON disagree on
			return
		}
		for i, m := range messages {
			if m.ID != nil && len(*m.ID) <= maxID {
				put(geminiRef{id: *m.ID, off: off + int64(spans[i][0]), size: spans[i][1]})
			}
		}
	}
	drop := func(from int) {
		for _, r := range ix.refs[from:] {
			delete(pos, r.id)
		}
		ix.refs = ix.refs[:from]
	}
	when := func(ts string) {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return
		}
		if ix.start.IsZero() || t.Before(ix.start) {
			ix.start = t
		}
		if t.After(ix.end) {
			ix.end = t
		}
	}
	n, err := lines(f, func(off int64, line []byte) {
		var h geminiHead
		if json.Unmarshal(line, &h) != nil {
			ix.skipped++
			return
		}
		when(h.Timestamp)
		when(h.StartTime)
		when(h.LastUpdated)
		switch {
		case h.Rewind != nil:
			if i, ok := pos[*h.Rewind]; ok {
				drop(i)
			} else {
				drop(0)
			}
		case h.ID != nil:
			if len(*h.ID) <= maxID {
				put(geminiRef{id: *h.ID, off: off, size: len(line)})
			}
		case h.Set != nil:
			when(h.Set.LastUpdated)
			if h.Set.Messages != nil {
				drop(0)
				putAll(off, line, *h.Set.Messages, messageSpans(line, true))
			}
		case h.SessionID != nil:
			putAll(off, line, h.Messages, messageSpans(line, false))
		}
	})
	ix.lines, ix.skipped = n.lines, ix.skipped+n.skipped
	ix.capped = ix.capped || n.capped
	return ix, err
}

// geminiMessage is one message, as rendered.
type geminiMessage struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Model     string          `json:"model"`
	Content   json.RawMessage `json:"content"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []geminiToolCall `json:"toolCalls"`
	Tokens    struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cached int64 `json:"cached"`
	} `json:"tokens"`
}

type geminiToolCall struct {
	Name          string          `json:"name"`
	DisplayName   string          `json:"displayName"`
	Status        string          `json:"status"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
}

// messageSpans is where each element of the line's messages array (its
// $set's, with set) is in the line, the keys matched as encoding/json
// matches them, regardless of case, the last of several.
func messageSpans(line []byte, set bool) [][2]int {
	var spans [][2]int
	elements := func(v []byte) {
		spans = nil
		jsonscan.Elements(v, func(el []byte) {
			// el is line's: its capacity tells where it starts.
			spans = append(spans, [2]int{cap(line) - cap(el), len(el)})
		})
	}
	jsonscan.Members(line, func(key string, v []byte) {
		switch {
		case set && strings.EqualFold(key, "$set"):
			jsonscan.Members(v, func(key string, v []byte) {
				if strings.EqualFold(key, "messages") {
					elements(v)
				}
			})
		case !set && strings.EqualFold(key, "messages"):
			elements(v)
		}
	})
	return spans
}

// geminiReader reads the messages of an index again, one at a time.
type geminiReader struct {
	f   *os.File
	buf []byte
}

// message reads r's message; false when the file changed or it is not one.
func (g *geminiReader) message(r geminiRef) (geminiMessage, bool) {
	var m geminiMessage
	if cap(g.buf) < r.size {
		g.buf = make([]byte, r.size)
	}
	g.buf = g.buf[:r.size]
	if _, err := g.f.ReadAt(g.buf, r.off); err != nil {
		return m, false
	}
	return m, json.Unmarshal(g.buf, &m) == nil
}

// geminiParts are a message's content: a string, or parts of which the
// text ones are read; the rest (tool responses, files) are counted.
func geminiParts(content json.RawMessage) (text string, other int) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, 0
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	json.Unmarshal(content, &parts)
	var b []string
	for _, p := range parts {
		if p.Text != nil {
			b = append(b, *p.Text)
		} else {
			other++
		}
	}
	return strings.Join(b, "\n"), other
}

// geminiContext is how Gemini CLI's own first message, the environment it
// describes to the model, begins: it is not the user's.
const geminiContext = "<session_context>"

// isGeminiPrompt says m is a prompt the user wrote.
func isGeminiPrompt(m geminiMessage) (string, bool) {
	if m.Type != "user" {
		return "", false
	}
	text, _ := geminiParts(m.Content)
	text = strings.TrimSpace(text)
	return text, text != "" && !strings.HasPrefix(text, geminiContext)
}

// describeGemini is a chat's entry in the list.
func describeGemini(dir, name, id string, rd *reading) Session {
	return describeFile(dir, name, id, "gemini", rd, func(f *os.File, s *Session) (int, error) {
		ix, err := readGemini(f)
		if err != nil {
			return ix.lines, err
		}
		s.Start, s.End = ix.start, ix.end
		g := &geminiReader{f: f}
		for _, r := range ix.refs {
			m, ok := g.message(r)
			if text, prompt := isGeminiPrompt(m); ok && prompt {
				if s.Turns == 0 {
					s.FirstPrompt = redact(clip(strings.Join(strings.Fields(text), " "), maxMeta))
				}
				s.Turns++
			}
		}
		s.Title = s.FirstPrompt
		return ix.lines, nil
	})
}

// exportGemini renders the Gemini chat name of the instance dir.
func exportGemini(w io.Writer, dir, name string, opt Options) error {
	f, err := openTranscript(dir, name)
	if err != nil {
		return err
	}
	defer f.Close()
	ix, err := readGemini(f)
	if err != nil {
		return err
	}
	id, _ := geminiID(path.Base(name))
	bw := bufio.NewWriterSize(w, 64<<10)
	r := &renderer{w: bw, opt: opt, level: "##", tools: map[string]string{}, agents: map[string]string{}}
	g := &geminiReader{f: f}
	var models []string
	var input, output, cached int64
	title := ""
	// A first reading for the front matter; the messages are read again
	// as they are rendered, never all held.
	for _, ref := range ix.refs {
		m, ok := g.message(ref)
		if !ok {
			continue
		}
		if text, prompt := isGeminiPrompt(m); prompt && title == "" {
			title = clip(strings.Join(strings.Fields(text), " "), maxMeta)
		}
		if m.Type == "gemini" {
			if m.Model != "" && !contains(models, m.Model) && len(models) < 8 {
				models = append(models, m.Model)
			}
			input, output, cached = input+m.Tokens.Input, output+m.Tokens.Output, cached+m.Tokens.Cached
		}
	}
	if title == "" {
		title = "(untitled)"
	}
	title = r.clean(title)
	fm := []string{
		"---",
		"session: " + yamlString(id),
		"title: " + yamlString(title),
		"agent: gemini",
		"project: " + yamlString(replacePath(opt.Root, opt.Home, "~")),
	}
	if !ix.start.IsZero() {
		fm = append(fm, "start: "+ix.start.UTC().Format(time.RFC3339), "end: "+ix.end.UTC().Format(time.RFC3339))
	}
	if len(models) > 0 {
		fm = append(fm, "models: "+yamlList(models))
	}
	fm = append(fm, fmt.Sprintf("tokens: {input: %d, output: %d, cached: %d}", input, output, cached), "detail: "+string(opt.Detail))
	r.closeFrontMatter(fm, title)
	for _, ref := range ix.refs {
		if m, ok := g.message(ref); ok {
			r.geminiMessage(m)
		}
	}
	if ix.skipped > 0 {
		r.note(fmt.Sprintf("%d lines of the chat were left out: longer than %s, or not JSON", ix.skipped, size(maxLine)))
	}
	if ix.capped {
		r.note(fmt.Sprintf("the chat has more than %d lines or messages; the rest were left out", maxRecords))
	}
	return bw.Flush()
}

// geminiMessage renders one message.
func (r *renderer) geminiMessage(m geminiMessage) {
	switch m.Type {
	case "user":
		if text, ok := isGeminiPrompt(m); ok {
			r.open("User", m.Timestamp)
			r.para(quote(safeMarkdown(r.clean(text))))
		}
	case "gemini":
		r.open("Gemini", m.Timestamp)
		if r.opt.Thinking {
			for _, t := range m.Thoughts {
				th := strings.TrimSpace(t.Subject + "\n\n" + t.Description)
				if th != "" {
					r.para("<details><summary>Thinking</summary>\n\n" + safeMarkdown(r.clean(th)) + "\n\n</details>")
				}
			}
		}
		if text, _ := geminiParts(m.Content); strings.TrimSpace(text) != "" {
			r.para(safeMarkdown(r.clean(strings.TrimSpace(text))))
		}
		if r.opt.Detail != Chat {
			for _, c := range m.ToolCalls {
				r.geminiToolCall(c)
			}
		}
	case "info", "warning", "error":
		if text, _ := geminiParts(m.Content); strings.TrimSpace(text) != "" && r.opt.Detail != Chat {
			r.section = ""
			r.para("*Gemini CLI (" + m.Type + "):*\n\n" + quote(safeMarkdown(r.clean(strings.TrimSpace(text)))))
		}
	}
}

// geminiToolCall renders a tool call as one line with its key input, and
// its result, collapsed and cut unless the detail is Full.
func (r *renderer) geminiToolCall(c geminiToolCall) {
	var in map[string]any
	json.Unmarshal(c.Args, &in)
	str := func(k string) string {
		s, _ := in[k].(string)
		return r.clean(s)
	}
	name := r.clean(c.Name)
	label := name
	switch c.Name {
	case "run_shell_command":
		cmd := str("command")
		label = "Shell " + firstLine(cmd)
		if strings.Contains(cmd, "\n") || len(cmd) > 160 {
			r.para(oneLine("Shell", str("description")) + "\n\n" + codeBlock(cmd, "bash"))
		} else {
			r.para(oneLine("Shell", "") + " " + inlineCode(cmd) + descr(str("description")))
		}
	case "read_file", "write_file", "replace", "list_directory":
		p := str("file_path")
		if p == "" {
			p = str("dir_path")
		}
		label = name + " " + p
		r.para(oneLine(name, "") + " " + inlineCode(p))
		if c.Name == "write_file" && r.opt.Detail == Full {
			r.para(codeBlock(str("content"), ""))
		}
		if c.Name == "replace" {
			r.para(codeBlock("@@\n"+prefixLines(str("old_string"), "-")+prefixLines(str("new_string"), "+"), "diff"))
		}
	default:
		raw := r.clean(string(c.Args))
		if r.opt.Detail == Full {
			r.para(oneLine(name, "") + "\n\n" + codeBlock(raw, "json"))
		} else {
			r.para(oneLine(name, "") + " " + inlineCode(clip(strings.Join(strings.Fields(raw), " "), 160)))
		}
	}
	text := geminiResult(c)
	if text == "" {
		return
	}
	text = r.clean(text)
	if c.Status == "error" {
		r.para("**Error** from " + inlineCode(clip(label, 100)) + ":\n\n" + codeBlock(text, "text"))
		return
	}
	if r.opt.Detail != Full {
		text = cut(text, resultLines, resultBytes)
	}
	r.para("<details><summary>Result: " + summaryText(clip(label, 100)) + "</summary>\n\n" + codeBlock(text, "text") + "\n</details>")
}

// geminiResult is a tool call's result as Gemini CLI showed it
// (resultDisplay, when a string), else the output it gave the model.
func geminiResult(c geminiToolCall) string {
	var display string
	if json.Unmarshal(c.ResultDisplay, &display) == nil && strings.TrimSpace(display) != "" {
		return display
	}
	var parts []struct {
		FunctionResponse struct {
			Response map[string]json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	json.Unmarshal(c.Result, &parts)
	var out []string
	for _, p := range parts {
		for _, k := range []string{"output", "error"} {
			var s string
			if json.Unmarshal(p.FunctionResponse.Response[k], &s) == nil && s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n")
}

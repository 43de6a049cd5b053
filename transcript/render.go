package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/internal/jsonscan"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// Detail is how much of a session an export shows.
type Detail string

const (
	// Chat is what the user and Claude wrote, nothing else.
	Chat Detail = "chat"
	// Tools adds each tool call as one line and its result, collapsed and
	// cut; the default.
	Tools Detail = "tools"
	// Full shows results whole, every tool's input, and slash commands'
	// output.
	Full Detail = "full"
)

// Options are the choices of an export.
type Options struct {
	Detail   Detail
	Thinking bool // include Claude's thinking
	NoRedact bool // keep secrets of known shapes as they are
	// Root and Home are shown as "." and "~".
	Root, Home string
	// Generator names claudebox and its version in the front matter.
	Generator string
	// Rendered, if set, runs when Sync has rendered an export and not yet
	// put it in the inbox: the fault tests hold the supervisor there.
	Rendered func()
}

// Result cuts, for Tools.
const (
	resultLines = 40
	resultBytes = 4 << 10
)

// Export renders the session whose transcript is name in the instance dir
// as Markdown to w.
func Export(w io.Writer, dir, name string, opt Options) error {
	if isCodex(name) {
		return exportCodex(w, dir, name, opt)
	}
	if isGemini(name) {
		return exportGemini(w, dir, name, opt)
	}
	f, err := openTranscript(dir, name)
	if err != nil {
		return err
	}
	defer f.Close()
	ix, err := read(f)
	if err != nil {
		return err
	}
	id := strings.TrimSuffix(path.Base(name), ".jsonl")
	bw := bufio.NewWriterSize(w, 64<<10)
	agents, more := subagents(dir, strings.TrimSuffix(name, ".jsonl"))
	r := &renderer{w: bw, opt: opt, level: "##", tools: map[string]string{}, agents: map[string]string{}}
	for _, a := range agents {
		if a.ToolUseID != "" {
			r.agents[a.ToolUseID] = a.id
		}
	}
	chain := ix.chain(false)
	r.frontMatter(id, ix, chain)
	r.chain(f, ix, chain)
	if opt.Detail == Chat {
		return bw.Flush()
	}
	// Each subagent's conversation, as a section the call links to, all of
	// them within what one transcript may hold: the sandbox can give a
	// session any number of subagents, each a name of one long transcript
	// (400 of 20,000 records held --export past a minute).
	budget := maxRecords
	for i, a := range agents {
		if budget <= 0 {
			more += len(agents) - i
			break
		}
		budget--
		r.section, r.level = "", "###"
		r.para("## Subagent " + a.id)
		if a.Description != "" {
			r.para("*" + safeLine(strings.Join(strings.Fields(controls(r.clean(a.Description))), " ")) + "*")
		}
		sf, err := openTranscript(dir, a.file)
		if err != nil {
			r.note("its transcript could not be read: " + err.Error())
			continue
		}
		six, err := read(sf)
		if err == nil {
			budget -= six.lines
			r.chain(sf, six, six.chain(true))
		}
		sf.Close()
	}
	if more > 0 {
		r.section, r.level = "", "###"
		r.note(fmt.Sprintf("%d more subagents were left out: an export reads at most %d, of %d lines in all", more, maxAgents, maxRecords))
	}
	return bw.Flush()
}

// chain renders the records of chain, read again from f.
func (r *renderer) chain(f *os.File, ix *index, chain []int) {
	buf := make([]byte, 0, 64<<10)
	for _, i := range chain {
		e := ix.entries[i]
		if cap(buf) < e.size {
			buf = make([]byte, e.size)
		}
		buf = buf[:e.size]
		if _, err := f.ReadAt(buf, e.off); err != nil {
			r.note("a record could not be read again: the transcript changed during the export")
			continue
		}
		var rec record
		if !scanRecord(buf, &rec) {
			continue
		}
		r.record(rec)
	}
	if ix.skipped > 0 {
		r.note(fmt.Sprintf("%d lines of the transcript were left out: longer than %s, or not JSON", ix.skipped, size(maxLine)))
	}
	if ix.capped {
		r.note(fmt.Sprintf("the transcript has more than %d lines; the rest were left out", maxRecords))
	}
}

// agent is a subagent's transcript: <session>/subagents/agent-<id>.jsonl,
// and what its agent-<id>.meta.json says of it.
type agent struct {
	id, file    string
	Description string `json:"description"`
	ToolUseID   string `json:"toolUseId"`
}

// maxAgents bounds the subagents an export lists of one session.
const maxAgents = 1000

// subagents lists the subagent transcripts of the session whose directory
// (the transcript's name without .jsonl) is session, in name order: the
// first maxAgents the directory lists, read a part at a time, and how
// many more it holds.
func subagents(dir, session string) (out []agent, more int) {
	sub := path.Join(session, "subagents")
	untrusted.EachEntry(dir, sub, func(e fs.DirEntry) {
		id, ok := strings.CutPrefix(e.Name(), "agent-")
		id, ok2 := strings.CutSuffix(id, ".jsonl")
		switch {
		case !ok || !ok2 || !e.Type().IsRegular() || !isAgentID(id):
			return
		case len(out) == maxAgents:
			more++
			return
		}
		a := agent{id: id, file: path.Join(sub, e.Name())}
		if b, err := untrusted.ReadFile(dir, path.Join(sub, "agent-"+id+".meta.json"), 64<<10); err == nil {
			json.Unmarshal(b, &a)
			a.Description = clip(a.Description, maxMeta)
			a.ToolUseID = clip(a.ToolUseID, maxID)
		}
		out = append(out, a)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	return out, more
}

// isAgentID accepts the ids Claude Code gives subagents, which become
// anchors in the export.
func isAgentID(s string) bool {
	if s == "" || len(s) > maxID {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// record is what the second pass reads of a record on the chain; Content
// is the message's content, unparsed.
type record struct {
	Type, Subtype, Timestamp string
	IsMeta, IsCompactSummary bool
	Content                  []byte
}

// block is one block of a message's content.
type block struct {
	Type, Text, Thinking, ID, Name, ToolUseID, MediaType string
	Input, Content                                       []byte
	IsError                                              bool
	DataLen                                              int // an image's base64 length
}

// scanRecord reads rec from line with the first pass's scanner: a record's
// bulk is strings, which encoding/json would scan several times over.
func scanRecord(line []byte, rec *record) bool {
	return jsonscan.Members(line, func(key string, v []byte) {
		switch key {
		case "type":
			rec.Type, _ = unquote(v)
		case "subtype":
			rec.Subtype, _ = unquote(v)
		case "timestamp":
			rec.Timestamp, _ = unquote(v)
		case "isMeta":
			rec.IsMeta = string(v) == "true"
		case "isCompactSummary":
			rec.IsCompactSummary = string(v) == "true"
		case "message":
			jsonscan.Members(v, func(key string, v []byte) {
				if key == "content" {
					rec.Content = v
				}
			})
		}
	})
}

// blocks reads a message's content: a string is one text block.
func blocks(content []byte) []block {
	if len(content) == 0 {
		return nil
	}
	if content[0] == '"' {
		text, _ := unquote(content)
		return []block{{Type: "text", Text: text}}
	}
	var out []block
	jsonscan.Elements(content, func(el []byte) {
		var b block
		jsonscan.Members(el, func(key string, v []byte) {
			switch key {
			case "type":
				b.Type, _ = unquote(v)
			case "text":
				b.Text, _ = unquote(v)
			case "thinking":
				b.Thinking, _ = unquote(v)
			case "id":
				b.ID, _ = unquote(v)
			case "name":
				b.Name, _ = unquote(v)
			case "tool_use_id":
				b.ToolUseID, _ = unquote(v)
			case "input":
				b.Input = v
			case "content":
				b.Content = v
			case "is_error":
				b.IsError = string(v) == "true"
			case "source":
				jsonscan.Members(v, func(key string, v []byte) {
					switch key {
					case "media_type":
						b.MediaType, _ = unquote(v)
					case "data":
						b.DataLen = len(v)
					}
				})
			}
		})
		out = append(out, b)
	})
	return out
}

type renderer struct {
	w       *bufio.Writer
	opt     Options
	level   string            // the sections' heading: "##", "###" in a subagent's
	agents  map[string]string // an Agent call's tool_use id → its subagent's id
	section string            // the heading of the section being written
	tools   map[string]string // tool_use id → its one-line label
}

// clean is what every string from the transcript goes through before
// anything else: paths shortened, secrets redacted.
func (r *renderer) clean(s string) string {
	s = relativize(s, r.opt.Root, r.opt.Home)
	if !r.opt.NoRedact {
		s = redact(s)
	}
	return s
}

func (r *renderer) para(s string) {
	r.w.WriteString(strings.TrimRight(s, "\n"))
	r.w.WriteString("\n\n")
}

func (r *renderer) note(s string) {
	r.para("*" + htmlEscape(s) + "*")
}

// open starts a section when the speaker changes.
func (r *renderer) open(section, timestamp string) {
	if r.section == section {
		return
	}
	r.section = section
	line := r.level + " " + section
	if t, err := time.Parse(time.RFC3339Nano, timestamp); err == nil {
		line += "\n\n*" + t.UTC().Format("2006-01-02 15:04:05") + " UTC*"
	}
	r.para(line)
}

func (r *renderer) frontMatter(id string, ix *index, chain []int) {
	var models []string
	var total usage
	// Streamed pieces of one response repeat its usage: count each
	// response once, as its last piece says.
	byID := map[string]usage{}
	for _, i := range chain {
		e := ix.entries[i]
		if e.kind != kindAssistant {
			continue
		}
		if e.model != "" && e.model != "<synthetic>" && !contains(models, e.model) && len(models) < 8 {
			models = append(models, e.model)
		}
		if e.msgID == "" {
			total.add(e.usage)
		} else {
			byID[e.msgID] = e.usage
		}
	}
	for _, u := range byID {
		total.add(u)
	}
	title := r.clean(ix.bestTitle())
	fm := []string{
		"---",
		"session: " + yamlString(id),
		"title: " + yamlString(title),
		"project: " + yamlString(replacePath(r.opt.Root, r.opt.Home, "~")),
	}
	if !ix.start.IsZero() {
		fm = append(fm, "start: "+ix.start.UTC().Format(time.RFC3339), "end: "+ix.end.UTC().Format(time.RFC3339))
	}
	if len(ix.versions) > 0 {
		fm = append(fm, "claude-code: "+yamlList(ix.versions))
	}
	if len(models) > 0 {
		fm = append(fm, "models: "+yamlList(models))
	}
	if ix.branch != "" {
		fm = append(fm, "git-branch: "+yamlString(r.clean(ix.branch)))
	}
	fm = append(fm, fmt.Sprintf("tokens: {input: %d, output: %d, cache-read: %d, cache-creation: %d}", total.Input, total.Output, total.CacheRead, total.CacheCreation),
		"detail: "+string(r.opt.Detail))
	r.closeFrontMatter(fm, title)
}

func (u *usage) add(v usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheCreation += v.CacheCreation
}

// yamlString quotes s as a YAML double-quoted scalar: JSON's escapes are
// YAML's, control characters included. "<", ">", "&" (json's own escapes)
// and "[", "]" are escaped too: a viewer that does not know front matter
// shows it as text, where they would make HTML, a link or an image.
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return brackets.Replace(escapeControls(string(b)))
}

// escapeControls writes, in a JSON string, the controls json leaves as
// they are (C1, DEL, the bidirectional ones) as \u escapes, which YAML
// reads as JSON does: a cat of the export shows them, they do nothing.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if printable.IsControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var brackets = strings.NewReplacer("[", `\u005b`, "]", `\u005d`)

func yamlList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = yamlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (r *renderer) record(rec record) {
	switch rec.Type {
	case "user":
		r.user(rec)
	case "assistant":
		r.assistant(rec)
	case "system":
		if rec.Subtype == "compact_boundary" {
			r.section = ""
			r.para("---\n\n*The conversation was compacted here.*")
		}
	}
}

func (r *renderer) user(rec record) {
	if rec.IsMeta {
		return
	}
	content := blocks(rec.Content)
	if rec.IsCompactSummary {
		var b strings.Builder
		for _, bl := range content {
			b.WriteString(bl.Text)
		}
		r.section = ""
		r.para("<details><summary>Summary of the conversation before it</summary>\n\n" + safeMarkdown(r.clean(b.String())) + "\n\n</details>")
		return
	}
	for _, bl := range content {
		switch bl.Type {
		case "text":
			r.prompt(bl.Text, rec.Timestamp)
		case "image":
			r.open("User", rec.Timestamp)
			r.para(imagePlaceholder(bl))
		case "tool_result":
			r.result(bl)
		}
	}
}

// prompt renders what the user typed: slash commands as typed, Claude
// Code's reminders left out.
func (r *renderer) prompt(text, timestamp string) {
	if strings.HasPrefix(strings.TrimSpace(text), "[Request interrupted by user") {
		r.note("interrupted by the user")
		return
	}
	if isCommandOutput(text) {
		if r.opt.Detail == Full {
			r.para(codeBlock(r.clean(commandOutput(text)), "text"))
		}
		return
	}
	if name, ok := between(text, "<command-name>", "</command-name>"); ok {
		args, _ := between(text, "<command-args>", "</command-args>")
		r.open("User", timestamp)
		r.para(inlineCode(r.clean(strings.TrimSpace(name + " " + args))))
		return
	}
	if command, ok := between(text, "<bash-input>", "</bash-input>"); ok {
		r.open("User", timestamp)
		r.para(inlineCode(r.clean("! " + command)))
		return
	}
	text = strings.TrimSpace(stripReminders(text))
	if text == "" {
		return
	}
	r.open("User", timestamp)
	r.para(quote(safeMarkdown(r.clean(text))))
}

// commandOutput is what a slash or shell command printed, as Claude
// Code records it.
func commandOutput(s string) string {
	var out []string
	for _, tag := range []string{"local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr"} {
		if o, ok := between(s, "<"+tag+">", "</"+tag+">"); ok && o != "" {
			out = append(out, o)
		}
	}
	return strings.Join(out, "\n")
}

func (r *renderer) assistant(rec record) {
	content := blocks(rec.Content)
	if len(content) == 0 {
		return
	}
	r.open("Assistant", rec.Timestamp)
	for _, bl := range content {
		switch bl.Type {
		case "text":
			if t := strings.TrimSpace(bl.Text); t != "" {
				r.para(safeMarkdown(r.clean(t)))
			}
		case "thinking":
			if r.opt.Thinking && strings.TrimSpace(bl.Thinking) != "" {
				r.para("<details><summary>Thinking</summary>\n\n" + safeMarkdown(r.clean(strings.TrimSpace(bl.Thinking))) + "\n\n</details>")
			}
		case "tool_use":
			if r.opt.Detail != Chat {
				r.toolUse(bl)
			}
		}
	}
}

func imagePlaceholder(bl block) string {
	kind := safeText(strings.Join(strings.Fields(controls(clip(bl.MediaType, 120))), " "))
	if kind == "" {
		kind = "image"
	}
	return fmt.Sprintf("*[%s, %s, not included]*", kind, size(bl.DataLen*3/4))
}

// toolUse renders a tool call as one line with its key input, and for an
// edit the diff, for a todo list the checklist.
func (r *renderer) toolUse(bl block) {
	var in map[string]any
	json.Unmarshal(bl.Input, &in)
	str := func(k string) string {
		s, _ := in[k].(string)
		return r.clean(s)
	}
	name := r.clean(bl.Name)
	label, body := name, ""
	switch bl.Name {
	case "Bash":
		cmd := str("command")
		label = "Bash " + firstLine(cmd)
		if strings.Contains(cmd, "\n") || len(cmd) > 160 {
			body = codeBlock(cmd, "bash")
			r.para(oneLine("Bash", str("description")) + "\n\n" + body)
		} else {
			r.para(oneLine("Bash", "") + " " + inlineCode(cmd) + descr(str("description")))
		}
	case "Read", "Write", "NotebookEdit":
		p := str("file_path")
		if p == "" {
			p = str("notebook_path")
		}
		label = name + " " + p
		extra := ""
		if c, ok := in["content"].(string); ok && bl.Name == "Write" {
			extra = fmt.Sprintf(" (%d lines)", strings.Count(strings.TrimSuffix(c, "\n"), "\n")+1)
		}
		if off, ok := in["offset"].(float64); ok {
			extra += fmt.Sprintf(" from line %d", int(off))
		}
		r.para(oneLine(name, "") + " " + inlineCode(p) + extra)
		if bl.Name == "Write" && r.opt.Detail == Full {
			r.para(codeBlock(str("content"), ""))
		}
	case "Edit", "MultiEdit":
		p := str("file_path")
		label = name + " " + p
		edits := []map[string]any{in}
		if list, ok := in["edits"].([]any); ok {
			edits = edits[:0]
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					edits = append(edits, m)
				}
			}
		}
		var d strings.Builder
		for _, e := range edits {
			old, _ := e["old_string"].(string)
			nw, _ := e["new_string"].(string)
			d.WriteString("@@\n" + prefixLines(r.clean(old), "-") + prefixLines(r.clean(nw), "+"))
		}
		r.para(oneLine(name, "") + " " + inlineCode(p) + "\n\n" + codeBlock(d.String(), "diff"))
	case "Grep", "Glob":
		pat := str("pattern")
		label = name + " " + pat
		where := ""
		if p := str("path"); p != "" {
			where = " in " + inlineCode(p)
		}
		r.para(oneLine(name, "") + " " + inlineCode(pat) + where)
	case "TodoWrite":
		var list strings.Builder
		todos, _ := in["todos"].([]any)
		for _, t := range todos {
			m, _ := t.(map[string]any)
			content, _ := m["content"].(string)
			status, _ := m["status"].(string)
			box := "[ ]"
			if status == "completed" {
				box = "[x]"
			}
			line := safeLine(strings.Join(strings.Fields(controls(r.clean(content))), " "))
			if status == "in_progress" {
				line += " *(in progress)*"
			}
			list.WriteString("- " + box + " " + line + "\n")
		}
		r.para(oneLine(name, "") + "\n\n" + strings.TrimRight(list.String(), "\n"))
	case "WebFetch", "WebSearch":
		arg := str("url")
		if arg == "" {
			arg = str("query")
		}
		label = name + " " + arg
		r.para(oneLine(name, "") + " " + inlineCode(arg))
	case "Task", "Agent":
		label = name + " " + str("description")
		link := ""
		if id, ok := r.agents[bl.ID]; ok {
			link = " — [its transcript](#subagent-" + strings.ToLower(id) + ")"
		}
		r.para(oneLine(name, str("subagent_type")) + " " + safeLine(strings.Join(strings.Fields(controls(str("description"))), " ")) + link)
		if r.opt.Detail == Full {
			r.para(quote(safeMarkdown(str("prompt"))))
		}
	default:
		raw := r.clean(string(bl.Input))
		if r.opt.Detail == Full {
			r.para(oneLine(name, "") + "\n\n" + codeBlock(raw, "json"))
		} else {
			r.para(oneLine(name, "") + " " + inlineCode(clip(strings.Join(strings.Fields(raw), " "), 160)))
		}
	}
	if len(r.tools) < 100000 {
		r.tools[clip(bl.ID, maxID)] = clip(label, 100)
	}
}

// oneLine is a tool call's lead: its name in bold, and a note.
func oneLine(name, note string) string {
	s := "**" + safeLine(strings.Join(strings.Fields(controls(name)), " ")) + "**"
	if note != "" {
		s += " (" + safeLine(strings.Join(strings.Fields(controls(note)), " ")) + ")"
	}
	return s
}

func descr(d string) string {
	if d == "" {
		return ""
	}
	return " — " + safeLine(strings.Join(strings.Fields(controls(d)), " "))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func prefixLines(s, p string) string {
	if s == "" {
		return ""
	}
	return p + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+p) + "\n"
}

// result renders a tool's result: an error whole, anything else collapsed,
// and cut unless the detail is Full.
func (r *renderer) result(bl block) {
	if r.opt.Detail == Chat {
		return
	}
	var text string
	var images []string
	if len(bl.Content) > 0 && bl.Content[0] == '"' {
		text, _ = unquote(bl.Content)
	} else {
		var b []string
		for _, p := range blocks(bl.Content) {
			switch p.Type {
			case "text":
				b = append(b, p.Text)
			case "image":
				images = append(images, imagePlaceholder(p))
			}
		}
		text = strings.Join(b, "\n")
	}
	text = r.clean(text)
	label := r.tools[bl.ToolUseID]
	if bl.IsError {
		r.para("**Error** from " + inlineCode(label) + ":\n\n" + codeBlock(text, "text"))
		return
	}
	if r.opt.Detail != Full {
		text = cut(text, resultLines, resultBytes)
	}
	var b strings.Builder
	b.WriteString("<details><summary>Result: " + summaryText(label) + "</summary>\n\n")
	if strings.TrimSpace(text) != "" {
		b.WriteString(codeBlock(text, "text") + "\n")
	}
	for _, im := range images {
		b.WriteString(im + "\n\n")
	}
	b.WriteString("</details>")
	r.para(b.String())
}

// ExportFile renders the session into the file out, atomically: a new file
// beside it, renamed over it once complete. Redaction is best-effort: the
// export is the user's alone (0600).
func ExportFile(out, dir, name string, opt Options) error {
	return atomicfile.WriteFrom(out, 0o600, true, func(w io.Writer) error { return Export(w, dir, name, opt) })
}

// Latest is the most recent session: the one that ended last.
func Latest(sessions []Session) (Session, bool) {
	if len(sessions) == 0 {
		return Session{}, false
	}
	s := append([]Session(nil), sessions...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].End.Before(s[j].End) })
	return s[len(s)-1], true
}

// closeFrontMatter ends the front matter fm with what every export says
// (its redaction, what made it) and writes it, then the title's heading.
func (r *renderer) closeFrontMatter(fm []string, title string) {
	if r.opt.NoRedact {
		fm = append(fm, "redaction: none")
	} else {
		fm = append(fm, `redaction: "best-effort: keys, tokens and private keys of known shapes replaced by `+redacted+`; review before sharing"`)
	}
	if r.opt.Generator != "" {
		fm = append(fm, "exported-by: "+yamlString(r.opt.Generator))
	}
	fm = append(fm, "---")
	r.para(strings.Join(fm, "\n"))
	r.para("# " + safeLine(strings.Join(strings.Fields(controls(title)), " ")))
}

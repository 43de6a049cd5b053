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

	"github.com/claudebox/claudebox/untrusted"
)

// Codex's sessions (measured with codex-cli 0.169.0) are rollout files in
// the instance's agents/codex/sessions/YYYY/MM/DD/, named
// rollout-<local time>-<session id>.jsonl: one JSON record a line, each
// {"timestamp", "type", "payload"}. session_meta holds the session's id,
// cwd and cli_version; turn_context the model; response_item the
// conversation (message with role user, assistant or developer, reasoning,
// custom_tool_call and function_call with their _output, by call_id);
// event_msg token_count the running total of tokens. The sandbox writes
// them, so they are read as Claude's transcripts are: through untrusted,
// line by bounded line, every string neutralised.

// codexSessionsDir is where an instance holds Codex's rollouts.
const codexSessionsDir = "agents/codex/sessions"

// eachCodex calls visit for each of Codex's sessions of the instance dir:
// the regular files of codexSessionsDir/YYYY/MM/DD named as Codex names
// them.
func eachCodex(dir string, visit func(found)) error {
	walk := func(rel string, digits int, visit func(string)) {
		untrusted.EachEntry(dir, rel, func(e fs.DirEntry) {
			if e.IsDir() && len(e.Name()) == digits && strings.Trim(e.Name(), "0123456789") == "" {
				visit(path.Join(rel, e.Name()))
			}
		})
	}
	walk(codexSessionsDir, 4, func(year string) {
		walk(year, 2, func(month string) {
			walk(month, 2, func(day string) {
				untrusted.EachEntry(dir, day, func(f fs.DirEntry) {
					id, ok := codexRolloutID(f.Name())
					if !ok || !f.Type().IsRegular() {
						return
					}
					if fi, err := f.Info(); err == nil {
						visit(found{path.Join(day, f.Name()), id, fi.ModTime(), describeCodex})
					}
				})
			})
		})
	})
	return nil
}

// codexRolloutID is the session id in a rollout's name.
func codexRolloutID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "rollout-")
	rest, ok2 := strings.CutSuffix(rest, ".jsonl")
	if !ok || !ok2 || len(rest) < 36 {
		return "", false
	}
	id := rest[len(rest)-36:]
	return id, isSessionID(id) && strings.Count(id, "-") == 4
}

// isCodex says the transcript name is a Codex rollout.
func isCodex(name string) bool { return strings.HasPrefix(name, codexSessionsDir+"/") }

// codexRecord is what is read of a rollout's line.
type codexRecord struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Summary   json.RawMessage `json:"summary"`
		Name      string          `json:"name"`
		Input     string          `json:"input"`
		Arguments string          `json:"arguments"`
		CallID    string          `json:"call_id"`
		Output    json.RawMessage `json:"output"`
		// session_meta and turn_context.
		ID         string `json:"id"`
		CLIVersion string `json:"cli_version"`
		Model      string `json:"model"`
		// event_msg token_count.
		Info *struct {
			Total codexUsage `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

type codexUsage struct {
	Input  int64 `json:"input_tokens"`
	Cached int64 `json:"cached_input_tokens"`
	Output int64 `json:"output_tokens"`
}

// codexTexts are the texts of a message's content (input_text,
// output_text, summary_text items; a string is one text).
func codexTexts(raw json.RawMessage) []string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return []string{s}
	}
	var items []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &items)
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// codexContext says a user message's text is what Codex puts before the
// prompt (the AGENTS.md instructions, the environment), not the user's.
func codexContext(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "# AGENTS.md instructions") || strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
}

// codexFacts is the first pass over a rollout: what the front matter says.
type codexFacts struct {
	id, title        string
	start, end       time.Time
	versions, models []string
	usage            codexUsage
	turns, skipped   int
	lines            int // read
	// items are where the response items are, which the export reads
	// again: the lines left out are not read twice.
	items  []span
	capped bool
}

// span is where a line is in the rollout.
type span struct {
	off  int64
	size int
}

// readCodex reads the facts of the rollout f.
func readCodex(f io.Reader) (codexFacts, error) {
	var c codexFacts
	n, err := lines(f, func(off int64, line []byte) {
		var rec codexRecord
		if json.Unmarshal(line, &rec) != nil {
			c.skipped++
			return
		}
		if rec.Type == "response_item" {
			c.items = append(c.items, span{off, len(line)})
		}
		if t, err := time.Parse(time.RFC3339Nano, rec.Timestamp); err == nil {
			if c.start.IsZero() {
				c.start = t
			}
			c.end = t
		}
		p := rec.Payload
		switch {
		case rec.Type == "session_meta":
			c.id = clip(p.ID, maxID)
			if v := clip(p.CLIVersion, maxMeta); v != "" && !contains(c.versions, v) && len(c.versions) < 8 {
				c.versions = append(c.versions, v)
			}
		case rec.Type == "turn_context":
			if m := clip(p.Model, maxMeta); m != "" && !contains(c.models, m) && len(c.models) < 8 {
				c.models = append(c.models, m)
			}
		case rec.Type == "event_msg" && p.Type == "token_count" && p.Info != nil:
			c.usage = p.Info.Total
		case rec.Type == "response_item" && p.Type == "message" && p.Role == "user":
			for _, text := range codexTexts(p.Content) {
				if codexContext(text) || strings.TrimSpace(text) == "" {
					continue
				}
				c.turns++
				if c.title == "" {
					c.title = clip(promptLine(text), maxMeta)
				}
			}
		}
	})
	c.lines, c.skipped, c.capped = n.lines, c.skipped+n.skipped, n.capped
	return c, err
}

// describeCodex is the Session of the rollout name.
func describeCodex(dir, name, id string, rd *reading) Session {
	return describeFile(dir, name, id, "codex", rd, func(f *os.File, s *Session) (int, error) {
		c, err := readCodex(f)
		if err != nil {
			return c.lines, err
		}
		s.Title, s.FirstPrompt, s.Start, s.End, s.Turns = redact(c.title), redact(c.title), c.start, c.end, c.turns
		return c.lines, nil
	})
}

// exportCodex renders the Codex session whose rollout is name as Markdown.
func exportCodex(w io.Writer, dir, name string, opt Options) error {
	f, err := openTranscript(dir, name)
	if err != nil {
		return err
	}
	defer f.Close()
	c, err := readCodex(f)
	if err != nil {
		return err
	}
	id, ok := codexRolloutID(path.Base(name))
	if !ok {
		id = c.id
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	r := &renderer{w: bw, opt: opt, level: "##", tools: map[string]string{}, agents: map[string]string{}}
	r.codexFrontMatter(id, c)
	var buf []byte
	for _, it := range c.items {
		if cap(buf) < it.size {
			buf = make([]byte, it.size)
		}
		buf = buf[:it.size]
		var rec codexRecord
		if _, err := f.ReadAt(buf, it.off); err != nil || json.Unmarshal(buf, &rec) != nil {
			r.note("a record could not be read again: the rollout changed during the export")
			continue
		}
		r.codexItem(rec)
	}
	if c.capped {
		r.note(fmt.Sprintf("the rollout has more than %d lines; the rest were left out", maxRecords))
	}
	if c.skipped > 0 {
		r.note(fmt.Sprintf("%d lines of the rollout were left out: longer than %s, or not what Codex writes", c.skipped, size(maxLine)))
	}
	return bw.Flush()
}

func (r *renderer) codexFrontMatter(id string, c codexFacts) {
	title := r.clean(c.title)
	if title == "" {
		title = "(untitled)"
	}
	fm := []string{
		"---",
		"session: " + yamlString(id),
		"agent: codex",
		"title: " + yamlString(title),
		"project: " + yamlString(replacePath(r.opt.Root, r.opt.Home, "~")),
	}
	if !c.start.IsZero() {
		fm = append(fm, "start: "+c.start.UTC().Format(time.RFC3339), "end: "+c.end.UTC().Format(time.RFC3339))
	}
	if len(c.versions) > 0 {
		fm = append(fm, "codex: "+yamlList(c.versions))
	}
	if len(c.models) > 0 {
		fm = append(fm, "models: "+yamlList(c.models))
	}
	fm = append(fm, fmt.Sprintf("tokens: {input: %d, output: %d, cache-read: %d}", c.usage.Input, c.usage.Output, c.usage.Cached),
		"detail: "+string(r.opt.Detail))
	r.closeFrontMatter(fm, title)
}

// codexItem renders one response_item: the user's prompts, Codex's
// answers, its reasoning's summary (with Thinking), its tool calls and
// their output (but with Chat). The instructions Codex is given (role
// developer, and the context before a prompt) are left out.
func (r *renderer) codexItem(rec codexRecord) {
	p := rec.Payload
	switch p.Type {
	case "message":
		switch p.Role {
		case "user":
			for _, text := range codexTexts(p.Content) {
				if !codexContext(text) && strings.TrimSpace(text) != "" {
					r.open("User", rec.Timestamp)
					r.para(quote(safeMarkdown(r.clean(strings.TrimSpace(text)))))
				}
			}
		case "assistant":
			for _, text := range codexTexts(p.Content) {
				if t := strings.TrimSpace(text); t != "" {
					r.open("Codex", rec.Timestamp)
					r.para(safeMarkdown(r.clean(t)))
				}
			}
		}
	case "reasoning":
		if text := strings.TrimSpace(strings.Join(codexTexts(p.Summary), "\n\n")); r.opt.Thinking && text != "" {
			r.open("Codex", rec.Timestamp)
			r.para("<details><summary>Thinking</summary>\n\n" + safeMarkdown(r.clean(text)) + "\n\n</details>")
		}
	case "custom_tool_call", "function_call":
		if r.opt.Detail == Chat {
			return
		}
		r.open("Codex", rec.Timestamp)
		name := r.clean(p.Name)
		input, lang := p.Input, "javascript"
		if p.Type == "function_call" {
			input, lang = p.Arguments, "json"
		}
		input = r.clean(input)
		if r.opt.Detail != Full {
			input = cut(input, resultLines, resultBytes)
		}
		r.para(oneLine(name, "") + "\n\n" + codeBlock(input, lang))
		if len(r.tools) < 100000 {
			r.tools[clip(p.CallID, maxID)] = clip(name+" "+firstLine(strings.TrimSpace(p.Input)), 100)
		}
	case "custom_tool_call_output", "function_call_output":
		text, _ := json.Marshal(strings.Join(codexTexts(p.Output), "\n"))
		r.result(block{ToolUseID: clip(p.CallID, maxID), Content: text})
	}
}

package evalrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/claudebox/claudebox/printable"
)

// metrics is a run's metrics.json. The fields from the stream are what
// Claude Code reported, read as untrusted input.
type metrics struct {
	RunID            string          `json:"run_id"`
	WallTimeMS       int64           `json:"wall_time_ms"`
	ExitStatus       int             `json:"exit_status"`
	CostUSD          *float64        `json:"cost_usd"`
	Usage            json.RawMessage `json:"usage"`
	NumTurns         *int            `json:"num_turns"`
	DurationMS       *int64          `json:"duration_ms"`
	DurationAPIMS    *int64          `json:"duration_api_ms"`
	Result           string          `json:"result_subtype"`
	IsError          bool            `json:"is_error"`
	ClaudeCode       string          `json:"claude_code_version"`
	Claudebox        string          `json:"claudebox_version"`
	Model            string          `json:"model"`
	ModelAsked       string          `json:"model_requested,omitempty"`
	SessionID        string          `json:"session_id"`
	Network          network         `json:"network"`
	PromptDigest     string          `json:"prompt_digest"`
	InputCommit      string          `json:"input_commit"`
	Skills           []string        `json:"skills"`
	SkillsInvoked    []string        `json:"skills_invoked"`
	SkillsNotListed  int             `json:"skills_invoked_not_listed,omitempty"`
	TranscriptCutOff bool            `json:"transcript_cut_off,omitempty"`
	NotCopied        []skipped       `json:"not_copied,omitempty"`
}

// network is the run's network, as asked.
type network struct {
	Mode  string   `json:"mode"`
	Allow []string `json:"allow,omitempty"`
}

// streamEvent is what metrics reads of the stream's events: the system
// init event and the result event.
type streamEvent struct {
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	Version       string          `json:"claude_code_version"`
	Model         string          `json:"model"`
	SessionID     string          `json:"session_id"`
	TotalCostUSD  *float64        `json:"total_cost_usd"`
	Usage         json.RawMessage `json:"usage"`
	NumTurns      *int            `json:"num_turns"`
	DurationMS    *int64          `json:"duration_ms"`
	DurationAPIMS *int64          `json:"duration_api_ms"`
	IsError       bool            `json:"is_error"`
	Message       struct {
		Content []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Input struct {
				Skill string `json:"skill"`
			} `json:"input"`
		} `json:"content"`
	} `json:"message"`
}

// The model names the skill it calls, as long and as often as it likes:
// metrics.json lists skillsLimit calls at most, each name cut to
// skillNameLimit bytes (a skill's name is a folder's), and counts the rest.
const (
	skillsLimit    = 100
	skillNameLimit = 128
)

// shortened is name cut to skillNameLimit bytes, on a character's
// boundary, with "…" after it when cut.
func shortened(name string) string {
	if len(name) <= skillNameLimit {
		return name
	}
	cut := skillNameLimit
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…"
}

// lineLimit is the longest stream line read for metrics; longer ones
// (a tool's whole output) hold nothing metrics reads.
const lineLimit = 16 << 20

// readStream fills m from the stream's init and result events.
func (m *metrics) readStream(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			var e streamEvent
			if json.Unmarshal(line, &e) == nil {
				switch {
				case e.Type == "assistant":
					// A trigger eval's answer: the Skill tool called, and
					// for which skill.
					for _, c := range e.Message.Content {
						if c.Type != "tool_use" || c.Name != "Skill" {
							continue
						}
						if len(m.SkillsInvoked) == skillsLimit {
							m.SkillsNotListed++
							continue
						}
						m.SkillsInvoked = append(m.SkillsInvoked, shortened(c.Input.Skill))
					}
				case e.Type == "system" && e.Subtype == "init":
					m.ClaudeCode, m.Model, m.SessionID = e.Version, e.Model, e.SessionID
				case e.Type == "result":
					m.CostUSD, m.NumTurns, m.DurationMS, m.DurationAPIMS = e.TotalCostUSD, e.NumTurns, e.DurationMS, e.DurationAPIMS
					m.Result, m.IsError = e.Subtype, e.IsError
					if json.Valid(e.Usage) {
						m.Usage = e.Usage
					}
					if e.SessionID != "" {
						m.SessionID = e.SessionID
					}
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line, or nothing of one over lineLimit.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long && len(line)+len(chunk) <= lineLimit {
			line = append(line, chunk...)
		} else {
			long, line = true, nil
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// encode is m as metrics.json, indented. The characters printable
// escapes that encoding/json leaves as they are (DEL, the C1 controls,
// the bidirectional controls), which the stream's fields and the names
// of what was not copied may hold, are written as \u escapes: the user
// reads the file with cat, and they can only stand in its strings.
func (m metrics) encode() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	var out bytes.Buffer
	for _, r := range string(b) {
		if printable.IsControl(r) && r != '\n' {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

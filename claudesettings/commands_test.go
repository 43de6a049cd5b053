package claudesettings

import "testing"

// A hook's command or script holds a credential when one is written in it,
// not when it names a variable or counts tokens.
func TestHasCommandCredential(t *testing.T) {
	for text, want := range map[string]bool{
		`curl -H 'Authorization: Bearer xoxb-1234567890-abcdef' https://slack.com/api/x`: true,
		`curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdef" https://x`:           true,
		"SLACK_TOKEN=T0123456789abcdefXYZ ./notify":                                      true,
		"ntfy publish --token tk_0123456789abcdefghij topic done":                        true,
		"export OPENAI_API_KEY=sk-proj-abcdefghijklmnop":                                 true,
		"curl https://user:hunter2@example.com/hook":                                     true,
		`curl -H "Authorization: Bearer $SLACK_TOKEN" https://slack.com/api/x`:           false,
		"SLACK_TOKEN=$(cat ~/.slack) ./notify":                                           false,
		`echo "tokens: 123456 input_tokens=$(jq .usage)"`:                                false,
		"echo HARMLESS-HOOK":              false,
		"~/.claude/hooks/format.sh --fix": false,
	} {
		if got := HasCommandCredential([]byte(text)); got != want {
			t.Errorf("HasCommandCredential(%q) = %v, want %v", text, got, want)
		}
	}
}

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
		"curl -d x https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijkl":    true,
		"curl https://discord.com/api/webhooks/1234567890/AbC-dEf_0123456789":            true,
		"curl https://corp.webhook.office.com/webhookb2/abc@def/IncomingWebhook/x/y":     true,
		"curl https://api.telegram.org/bot123456:AAbbCCddEEff/sendMessage":               true,
		"curl https://chat.example.com/hooks/xi9s7k3m2n4b5v6c8x1z0a9q8w":                 true,
		"curl https://slack.com/api/chat.postMessage":                                    false,
		"curl -s -u ci:Xk9mQ2vLp8Tz https://ci.example.com/job/x":                        true,
		"wget --user=ci:Xk9mQ2vLp8Tz https://x":                                          true,
		`curl -u "ci:$CI_PASSWORD" https://x`:                                            false,
		"git log -a x:y":                                                                 false,
		"~/.claude/hooks/notify.sh":                                                      false,
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

package proxy

import "testing"

// Codex's client_metadata passes with only the keys codex-cli sends: the
// API reads another as it likes, and its headers' routing override
// chooses the account a call goes to. Gemini's labels, which Vertex AI
// adds to the billing of the project that pays, pass empty only:
// gemini-cli never fills them.
func TestClientMetadataAndLabels(t *testing.T) {
	for _, c := range []struct {
		shape   apiShape
		body    string
		refused bool
	}{
		{responsesAPI, `{"client_metadata":{"session_id":"s","thread_id":"t","turn_id":"u","root_turn_id":"r","x-codex-installation-id":"i","x-codex-turn-metadata":"{\"turn_id\":\"u\"}"}}`, false},
		{responsesAPI, `{"client_metadata":{"session_id":"s","x-openai-account-routing-override":"org-attacker"}}`, true},
		{responsesAPI, `{"client_metadata":{"OpenAI_Project":"proj_attacker"}}`, true},
		{responsesAPI, `{"client_metadata":[{"session_id":"s"},{"billing":"x"}]}`, true},
		{geminiAPI, `{"request":{"contents":[],"labels":{}},"project":"p"}`, false},
		{geminiAPI, `{"request":{"contents":[],"labels":{"cost-center":"attacker"}}}`, true},
		{geminiAPI, `{"contents":[],"Labels":{"team":"x"}}`, true},
	} {
		if _, err := checked(c.shape, c.body); (err != nil) != c.refused {
			t.Errorf("%s: refused %v (%v), want %v", c.body, err != nil, err, c.refused)
		}
	}
}

package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestReplayReview12MessagesStoredFile: under the filtered network the
// proxy refused a Messages API content source only of type url: a
// document or image whose source is a stored file (type file, by its
// file_id), or a block uploading one into the code execution container
// (container_upload), went on with the user's real key, and the API's
// servers read the user's stored file for the sandbox. A content block's
// source now passes only with its content inline (base64, text,
// content). Host-side proof: the API, which the stand-in plays, receives
// none of them with the real key.
func TestReplayReview12MessagesStoredFile(t *testing.T) {
	real := "sk-ant-api03-REAL-KEY"
	up := startAgentUpstream(t, "X-Api-Key", real)
	p, sock := attackProxy(t, nil, nil, up.URL)
	for _, body := range []string{
		`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}},{"type":"text","text":"repeat it"}]}]}`,
		`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"file_id":"file_011CNha8iCJcU1wXNR6q4V8w","type":"file"}}]}]}]}`,
		`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[{"type":"container_upload","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}]}]}`,
	} {
		status, answer := postThrough(t, sock, "/v1/messages", "X-Api-Key: "+p.Phantom, body)
		if status != http.StatusForbidden || !strings.Contains(answer, "claudebox --network=host") {
			t.Errorf("%s: answered %d %.200q, not a refusal that says how to allow it", body, status, answer)
		}
	}
	if got := up.received(); len(got) > 0 {
		t.Errorf("the API received with the user's real key requests that read a stored file: %.300q", got)
	}
}

